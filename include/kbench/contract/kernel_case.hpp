// kbench/contract/kernel_case.hpp: the reference-vs-optimized contract. A case function declares, for one shape,
// its inputs (drawn on the device from a seed), its outputs, a reference (the older kernel, or a host
// implementation in double), the optimized launch, a tolerance per output and a work model. kbench
// derives the correctness check and the benchmark from that one declaration.
//
//   static void rmsnorm(kbench::kernel_case& c) {
//     const auto rows = c.dim("rows"), cols = c.dim("cols");
//     auto x = c.input<kbench::fp16_t>("x", {rows, cols}, kbench::uniform(-2, 2));
//     auto y = c.output<kbench::fp16_t>("y", {rows, cols});
//     c.reference([=](hipStream_t s) { v1::rmsnorm(x, y, rows, cols, s); });
//     c.optimized([=](hipStream_t s) { v2::rmsnorm(x, y, rows, cols, s); });
//     c.bytes_moved(2.0 * 2 * rows * cols);
//   }
//   KBENCH_REGISTER(rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 16384}, {"cols", 8192}});
//
// Buffer handles (input_ref, output_ref) convert to device pointers only while kbench runs a launch:
// kbench binds each handle to the memory of that run (the reference and the optimized kernel write to
// different, freshly poisoned buffers), so capture the handles, not pointers taken from them.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "buffer_handle.hpp"
#include "declaration_rules.hpp"
#include "declared_case.hpp"
#include "declaration.hpp"
#include "devices.hpp"
#include "distribution.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "platform.hpp"
#include "shape.hpp"
#include "tolerance.hpp"

namespace kbench {

// The verbs declared here without a body check their arguments; they are defined once per program
// (kernel_case_impl.hpp), so that a test file compiles calls to them, not their checks and messages.
class kernel_case {
 public:
  kernel_case(std::string name, kbench::shape s) {
    declared_.name = std::move(name);
    declared_.shape = std::move(s);
  }
  kernel_case(const kernel_case&) = delete;
  kernel_case& operator=(const kernel_case&) = delete;

  [[nodiscard]] const std::string& name() const { return declared_.name; }
  [[nodiscard]] const kbench::shape& shape() const { return declared_.shape; }
  [[nodiscard]] std::int64_t dim(std::string_view dimension) const;
  // A dimension that switches a part of the case on or off (has_bias, causal): 0 or 1 at every shape, any
  // other value a usage error naming it.
  [[nodiscard]] bool flag(std::string_view dimension) const;
  // A parameter of the shape (a number that is no size: an epsilon, a scale), given on the registration
  // with .shape({...}).with("eps", 1e-5); a shape without it is a usage error naming it.
  [[nodiscard]] double param(std::string_view parameter) const;

  template <class T>
  [[nodiscard]] input_ref<T> input(std::string buffer_name, std::initializer_list<std::int64_t> extents,
                                   distribution init = detail::default_distribution<T>()) {
    return input_ref<T>(&declared_.add_drawn(std::move(buffer_name), buffer_role::input, dtype_v<T>, extents, init));
  }

  template <class T>
  [[nodiscard]] output_ref<T> output(std::string buffer_name, std::initializer_list<std::int64_t> extents) {
    return output_ref<T>(&declared_.add_buffer(std::move(buffer_name), buffer_role::output, dtype_v<T>, extents));
  }

  // An input or an output that only some shapes use (a bias where has_bias is 1): where `present` is
  // false it is absent, and its handle is a null pointer (present() says so; host() gives no values):
  // nothing is allocated, drawn, compared or timed for it, and its extents and distribution are not
  // read. Where `present` is true, input() and output() themselves.
  //   auto bias = c.input_if<float>(c.flag("has_bias"), "bias", {cols});
  template <class T>
  [[nodiscard]] input_ref<T> input_if(bool present, std::string buffer_name, std::initializer_list<std::int64_t> extents,
                                      distribution init = detail::default_distribution<T>()) {
    if (present) return input<T>(std::move(buffer_name), extents, std::move(init));
    return input_ref<T>(&declared_.add_absent(std::move(buffer_name), buffer_role::input, dtype_v<T>));
  }
  template <class T>
  [[nodiscard]] output_ref<T> output_if(bool present, std::string buffer_name, std::initializer_list<std::int64_t> extents) {
    if (present) return output<T>(std::move(buffer_name), extents);
    return output_ref<T>(&declared_.add_absent(std::move(buffer_name), buffer_role::output, dtype_v<T>));
  }

  // A buffer the kernels update in place: drawn like an input, compared like an output. Every run
  // (reference or optimized, checked or timed) starts from the same drawn values.
  template <class T>
  [[nodiscard]] output_ref<T> inout(std::string buffer_name, std::initializer_list<std::int64_t> extents,
                                    distribution init = detail::default_distribution<T>()) {
    return output_ref<T>(&declared_.add_drawn(std::move(buffer_name), buffer_role::inout, dtype_v<T>, extents, init));
  }

  // Device memory a side needs beside its inputs and outputs (a library's temporary storage, partials
  // between kernels): each side's own `count` elements, poisoned before every checked launch, guarded (a
  // write past either end is reported), never compared and not part of the work model. A count of 0 (only
  // some shapes use it) declares none at this shape: a null handle, as input_if()'s absent ones.
  template <class T>
  [[nodiscard]] scratch_ref<T> scratch(std::string buffer_name, std::int64_t count) {
    return scratch_ref<T>(&declared_.add_scratch(std::move(buffer_name), dtype_v<T>, count));
  }
  // `bytes` of scratch memory; 0 declares none at this shape, as scratch(name, 0) does.
  [[nodiscard]] scratch_ref<std::uint8_t> scratch_bytes(std::string buffer_name, std::size_t bytes);
  // Bytes a library asks the GPU for (CUB's query does): `query` runs when the case is opened on its GPU,
  // before any launch or capture, never when a case is only declared (`<program> list`, no GPU). A query
  // that answers 0 gets one byte: the case's buffers are laid out by then, and the handle is never null.
  template <class Query, class = std::enable_if_t<std::is_invocable_r_v<std::size_t, Query&>>>
  [[nodiscard]] scratch_ref<std::uint8_t> scratch_bytes(std::string buffer_name, Query query) {
    scratch_ref<std::uint8_t> ref = scratch<std::uint8_t>(std::move(buffer_name), 1);
    ref.slot()->bytes_query = std::move(query);
    return ref;
  }

  // ---- several devices ----------------------------------------------------------------------------
  // The case spans `count` devices (1 to 64): its launches receive one stream per device (reference and
  // optimized take a `const device_streams&`), and buffers declared *_on_each live on every device, one
  // handle per device. A machine that shows fewer GPUs skips the case, saying so. Returns `count`.
  int devices(int count);
  // The optimized (or reference) launch reads or writes other GPUs' memory: without peer access between
  // every pair of the case's distinct GPUs, the case is skipped, saying which pair.
  void requires_peer_access(bool yes = true) { declared_.requires_peer_access = yes; }

  // An input on every device, each drawn from the seed on its own random stream: "x[device d]".
  template <class T>
  [[nodiscard]] per_device<input_ref<T>> input_on_each(const std::string& buffer_name,
                                                       std::initializer_list<std::int64_t> extents,
                                                       distribution init = detail::default_distribution<T>()) {
    return on_each<input_ref<T>>(buffer_name, [&](std::string name) { return input<T>(std::move(name), extents, init); });
  }
  // An output on every device, poisoned and guarded on each and compared on each.
  template <class T>
  [[nodiscard]] per_device<output_ref<T>> output_on_each(const std::string& buffer_name,
                                                         std::initializer_list<std::int64_t> extents) {
    return on_each<output_ref<T>>(buffer_name, [&](std::string name) { return output<T>(std::move(name), extents); });
  }
  // An in-place buffer on every device.
  template <class T>
  [[nodiscard]] per_device<output_ref<T>> inout_on_each(const std::string& buffer_name,
                                                        std::initializer_list<std::int64_t> extents,
                                                        distribution init = detail::default_distribution<T>()) {
    return on_each<output_ref<T>>(buffer_name, [&](std::string name) { return inout<T>(std::move(name), extents, init); });
  }

  // Padded rows: the buffer's rows (every extent but the last) lie `leading_dimension` elements apart in
  // device memory, a leading dimension larger than the row. Handles and host() values still count only
  // the elements of the rows; the padding between rows is poisoned and must stay so (a write there is
  // reported, in outputs and inputs alike), and only the rows are compared.
  template <class Ref>
  void leading_dimension(const Ref& buffer, std::int64_t leading_dimension) {
    pad_rows(*buffer.slot(), leading_dimension);
  }

  // The reference is either a device launch (an older kernel) or a host function computing in double.
  void reference(launch_function launch);
  void host_reference(host_function compute);
  void optimized(launch_function launch);
  // The launches of a case that spans devices: one stream per device.
  void reference(device_launch_function launch);
  void optimized(device_launch_function launch);

  // The tolerance of every output that has none of its own; without one, the dtype's default applies.
  template <class Policy, class = std::enable_if_t<tol::is_policy_v<Policy>>>
  void tolerance(const Policy& policy) {
    declared_.case_tolerance = make_tolerance(policy);
  }
  template <class T, class Policy, class = std::enable_if_t<tol::is_policy_v<Policy>>>
  void tolerance(const output_ref<T>& out, const Policy& policy) {
    out.slot()->tol = make_tolerance(policy);
  }

  // Performance the case requires of the optimized kernel: its perf test fails when the whole 95%
  // interval falls short. And the largest speedup over the reference that is plausible (default 10x where
  // the work model gives no bound from physics; above it the result is flagged as a likely cheat or broken
  // reference, and fails); declared, it holds always.
  void require_speedup(double at_least) { declared_.expectations.required_speedup = checked_work(at_least, "require_speedup"); }
  void require_bandwidth(double fraction_of_copy) {
    declared_.expectations.required_bandwidth = checked_work(fraction_of_copy, "require_bandwidth");
  }
  void allow_speedup_up_to(double factor);

  // A third party: the exact result, computed on the host in double (as host_reference() does). Against it,
  // the optimized kernel may not be materially less accurate than the (device) reference: its share of
  // elements that are not the correctly rounded value may be at most `max_ratio` times the reference's,
  // plus 0.1% of the elements. This catches a loss of precision that the tolerance lets through (fp16
  // accumulation, say), while a correct reordering of a reduction passes. Checked with the first seed.
  void oracle(host_function compute, double max_ratio = 2.0);

  // The alignment (in bytes) every buffer's address must have for the optimized kernel: the correctness
  // run then moves buffers off their alignment only by multiples of it. Without it, kbench also runs the
  // optimized kernel with buffers at every offset below 16 bytes that their element size allows (all, the
  // outputs alone, the inputs alone), which break vector accesses of up to 16 bytes, and checks its outputs.
  void requires_alignment(std::size_t bytes);

  // Values at the edges: with the first seed, kbench also runs both sides with each random floating-point
  // input at a larger and a smaller magnitude than declared (powers of two, within its type's range), and
  // with signed zeros, subnormals and exact ties among them; the outputs must agree where the reference's
  // are finite (decisions/edge_values.hpp). Off for the case, or for one input (or in-place buffer) whose
  // values mean something only as declared (a probability, a table of cosines):
  //   c.edge_values(false);  c.edge_values(scale, false);
  void edge_values(bool yes) { declared_.edge_values = yes; }
  template <class Ref, class = decltype(std::declval<const Ref&>().slot())>
  void edge_values(const Ref& buffer, bool yes) {
    detail::buffer_slot& slot = *buffer.slot();
    if (!slot.absent && !drawn(slot.role)) fail(detail::declaration_rules::edge_values_of_output(slot.name));
    slot.edge_values = yes;
  }

  // What the census of one optimized launch must show (checked by the perf test, and `<program> census`):
  // the number of kernels it launches (a fusion: 1), registers per thread of each (VGPRs on AMD) at most,
  // and each one's theoretical occupancy (a fraction of the waves a compute unit holds) at least.
  void expect_kernels(int count);
  void expect_registers_at_most(int registers);
  void expect_occupancy_at_least(double fraction);

  // What the kernels whose names contain `kernels` may use on `target` ("gfx90a"; empty: every target), read
  // from the program and the code object files it loads, without a GPU (`<program> resources`):
  //   c.expect_resources("softmax_cached_kernel<8, 8>", "gfx90a").vgprs_at_most(96).spills_none().waves_at_least(5);
  // Name the instantiations a launch picks at run time; a bound that names no kernel of a target fails.
  resource_bound& expect_resources(std::string kernels, std::string target = "");

  // The optimized kernel gives the same bits on every run with the same inputs: a run that differs fails
  // (without it, a difference is a note: atomics may reorder a float reduction).
  void deterministic(bool yes = true) { declared_.deterministic = yes; }

  void bytes_moved(double bytes) { declared_.work.bytes = checked_work(bytes, "bytes_moved"); }
  // Floating-point operations one launch does (an FMA is two), in `arithmetic` (f64, f32, f16 or bf16) on
  // the vector units: held to that arithmetic's peak, measured on the spot (the roofline).
  void flops(double count, dtype arithmetic = dtype::f32);
  // The same done on matrix units (MFMA, tensor cores): no peak is measured for those, so the roofline
  // bounds such a case by memory alone.
  void matrix_flops(double count, dtype arithmetic);
  void tokens(double count) { declared_.work.tokens = checked_work(count, "tokens"); }
  // A case that spans devices: the bytes one launch moves between GPUs (over the links), all devices
  // together; the report gives their rate. bytes_moved() is then what one device moves.
  void link_bytes(double bytes) { declared_.work.link_bytes = checked_work(bytes, "link_bytes"); }
  // How many calls of the kernel one layer of a model makes, or one token (a count > 0, fractions allowed:
  // a kernel called every other layer makes 0.5). With a device reference, the report gives the time
  // saved per layer or per token beside the time saved per call.
  void calls_per_layer(double count);
  void calls_per_token(double count);

 private:
  friend const detail::declared_case& detail::declared(const kernel_case& c);

  [[noreturn]] void fail(const std::string& what) const;

  // A buffer per device, "name[device d]", each on its logical device.
  template <class Ref, class Declare>
  per_device<Ref> on_each(const std::string& buffer_name, Declare&& declare) {
    if (declared_.devices == 0) fail("buffer '" + buffer_name + "' is declared on each device, but the case declares no devices(n)");
    std::vector<Ref> refs;
    for (int d = 0; d < declared_.devices; ++d) {
      Ref ref = declare(buffer_name + "[device " + std::to_string(d) + "]");
      ref.slot()->device_index = d;
      refs.push_back(ref);
    }
    return per_device<Ref>(std::move(refs));
  }

  // A side has one launch, of one stream or of one per device.
  template <class F>
  void once_per_side(const F& other, const char* what) const {
    if (other) fail(detail::declaration_rules::twice(what));
  }

  template <class F>
  void set_once(F& target, F value, const char* what) {
    if (!value) fail(detail::declaration_rules::empty_function(what));
    if (target) fail(detail::declaration_rules::twice(what));
    target = std::move(value);
  }

  void pad_rows(detail::buffer_slot& slot, std::int64_t leading_dimension);
  double checked_work(double value, const char* what) const;
  double checked_calls(double count, const char* what) const;

  detail::declared_case declared_;
};

namespace detail {
inline const declared_case& declared(const kernel_case& c) { return c.declared_; }
}  // namespace detail

}  // namespace kbench
