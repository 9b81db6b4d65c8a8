// python/src/case_declaration.hpp: a case declared from Python, at one shape, as plain data. A Python case
// function speaks to this class as a C++ case function speaks to kernel_case (contract/kernel_case.hpp), with
// the element type a runtime dtype instead of a template parameter; what it collects becomes the same
// declaration_facts the C++ path makes (procedure_impl.hpp's facts_of), so the canonical text and the digest
// are contract/declaration_digest.hpp's, line for line. HIP-free and free of pybind11: the binding
// (bind_declaration.hpp) holds the Python callables; this holds what kbench can read of them.
//
// The argument checks mirror kernel_case_impl.hpp's, with its messages, because that file needs the GPU
// platform's headers and this module builds without them. When the GPU path lands, the declaration is
// replayed onto a kernel_case, whose own checks then run too (docs/python.md).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kbench/contract/declaration.hpp>
#include <kbench/contract/declaration_digest.hpp>
#include <kbench/contract/distribution.hpp>
#include <kbench/contract/dtype.hpp>
#include <kbench/contract/error.hpp>
#include <kbench/contract/shape.hpp>
#include <kbench/contract/tolerance.hpp>

namespace kbench::python {

// How a side runs, as the digest names it: a device launch on kbench's stream, or a host function.
enum class side_kind { none, device, host };

// One buffer as the case declared it: its layout, what is drawn into it and its own tolerance.
struct declared_python_buffer {
  declared_buffer layout;
  std::optional<distribution> init;  // inputs and in-place buffers
  std::optional<tolerance> own_tolerance;
  bool edge_values = true;
  bool absent = false;  // declared for a shape that does not use it: a name taken, nothing else kept
};

namespace detail {
// kernel_case's default distribution, by the runtime dtype (buffer_handle.hpp's default_distribution<T>).
[[nodiscard]] inline distribution default_distribution(dtype t) {
  if (info(t).is_float) return uniform(-1.0, 1.0);
  return info(t).is_signed ? uniform(-100.0, 100.0) : uniform(0.0, 100.0);
}
}  // namespace detail

class case_declaration {
 public:
  // The case `name` at shape `s`, one of `registered` (every shape the test declares: the digest names them).
  case_declaration(std::string name, kbench::shape s, std::vector<kbench::shape> registered)
      : name_(std::move(name)), shape_(std::move(s)), registered_(std::move(registered)) {}

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const kbench::shape& shape() const { return shape_; }
  [[nodiscard]] std::int64_t dim(std::string_view dimension) const { return shape_[dimension]; }
  [[nodiscard]] double param(std::string_view parameter) const { return shape_.parameter_value(parameter); }
  [[nodiscard]] bool flag(std::string_view dimension) const {
    const std::int64_t value = dim(dimension);
    if (value != 0 && value != 1) {
      fail("dimension '" + std::string(dimension) + "' is a flag: 0 or 1, not " + std::to_string(value));
    }
    return value == 1;
  }

  const declared_python_buffer& input(std::string buffer_name, dtype type, const std::vector<std::int64_t>& extents,
                                      const std::optional<distribution>& init) {
    return add_drawn(std::move(buffer_name), buffer_role::input, type, extents, init);
  }
  const declared_python_buffer& inout(std::string buffer_name, dtype type, const std::vector<std::int64_t>& extents,
                                      const std::optional<distribution>& init) {
    return add_drawn(std::move(buffer_name), buffer_role::inout, type, extents, init);
  }
  const declared_python_buffer& output(std::string buffer_name, dtype type, const std::vector<std::int64_t>& extents) {
    return add_buffer(std::move(buffer_name), buffer_role::output, type, extents);
  }
  // A buffer that this shape does not use (kernel_case's input_if(), output_if() where `present` is false).
  const declared_python_buffer& absent(std::string buffer_name, buffer_role role, dtype type) {
    declared_python_buffer& b = new_buffer(std::move(buffer_name), role, type);
    b.absent = true;
    return b;
  }
  // `count` elements of scratch; 0 declares none at this shape.
  const declared_python_buffer& scratch(std::string buffer_name, dtype type, std::int64_t count) {
    if (count < 0) {
      fail("scratch '" + buffer_name + "' has count " + std::to_string(count) +
           ": a count must be >= 0 (0: no scratch at this shape, a null handle)");
    }
    if (count == 0) return absent(std::move(buffer_name), buffer_role::scratch, type);
    return add_buffer(std::move(buffer_name), buffer_role::scratch, type, {count});
  }

  // The case's tolerance, or one output's (an output or in-place buffer of this case, by name).
  void tolerance(const kbench::tolerance& t) { case_tolerance_ = t; }
  void tolerance(const std::string& buffer_name, const kbench::tolerance& t) {
    declared_python_buffer& b = buffer_named(buffer_name);
    if (!b.absent && !compared(b.layout.role)) fail("tolerance(): buffer '" + buffer_name + "' is not compared (not an output)");
    b.own_tolerance = t;
  }
  void edge_values(bool yes) { edge_values_ = yes; }
  void edge_values(const std::string& buffer_name, bool yes) {
    declared_python_buffer& b = buffer_named(buffer_name);
    if (!b.absent && !drawn(b.layout.role)) fail("edge_values(): buffer '" + buffer_name + "' is not drawn (not an input)");
    b.edge_values = yes;
  }

  // Each side once: a device launch (reference or optimized) or a host reference.
  void reference(side_kind kind) { set_side(reference_, kind, kind == side_kind::host ? "host_reference" : "reference"); }
  void optimized() { set_side(optimized_, side_kind::device, "optimized"); }

  // The work model and the requirements: kernel_case's verbs, with its checks.
  void bytes_moved(double bytes) { work_.bytes = checked_work(bytes, "bytes_moved"); }
  void flops(double count, dtype arithmetic, bool matrix_units) {
    if (arithmetic != dtype::f64 && arithmetic != dtype::f32 && arithmetic != dtype::f16 && arithmetic != dtype::bf16) {
      fail("flops() counts arithmetic in f64, f32, f16 or bf16, not " + std::string(info(arithmetic).name));
    }
    work_.flops = checked_work(count, "flops");
    work_.flop_type = arithmetic;
    work_.matrix_units = matrix_units;
  }
  void tokens(double count) { work_.tokens = checked_work(count, "tokens"); }
  void calls_per_layer(double count) { work_.calls_per_layer = checked_calls(count, "calls_per_layer"); }
  void calls_per_token(double count) { work_.calls_per_token = checked_calls(count, "calls_per_token"); }
  void require_speedup(double at_least) { expectations_.required_speedup = checked_work(at_least, "require_speedup"); }
  void require_bandwidth(double fraction) {
    expectations_.required_bandwidth = checked_work(fraction, "require_bandwidth");
  }
  void allow_speedup_up_to(double factor) {
    if (!(factor >= 1.0) || !std::isfinite(factor)) fail("allow_speedup_up_to() needs a finite factor >= 1");
    expectations_.max_plausible_speedup = factor;
    expectations_.speedup_limit_declared = true;
  }
  void deterministic(bool yes) { deterministic_ = yes; }
  void requires_alignment(std::size_t bytes) {
    if (bytes == 0 || (bytes & (bytes - 1)) != 0 || bytes > 256) fail("requires_alignment() needs a power of two up to 256");
    requires_alignment_ = bytes;
  }
  void expect_kernels(int count) {
    if (count < 0) fail("expect_kernels() needs a count >= 0");
    census_.kernels = count;
  }

  [[nodiscard]] const std::vector<declared_python_buffer>& buffers() const { return buffers_; }

  // Throws usage_error unless the declaration is complete (declared_case::validate's rules).
  void validate() const {
    bool has_output = false;
    for (const auto& b : buffers_) has_output = has_output || (!b.absent && compared(b.layout.role));
    if (!has_output) fail("declares no output: there is nothing to check");
    if (reference_ == side_kind::none) fail("declares no reference: call reference() or host_reference()");
    if (optimized_ == side_kind::none) fail("declares no optimized launch: call optimized()");
  }

  // The declaration as the digest reads it: facts_of()'s rules (procedure_impl.hpp).
  [[nodiscard]] kbench::detail::declaration_facts facts() const {
    kbench::detail::declaration_facts f;
    f.name = name_;
    f.shape = shape_;
    f.registered_shapes = registered_;
    f.reference = reference_ == side_kind::host ? "host" : reference_ == side_kind::device ? "device" : "none";
    f.optimized = optimized_ == side_kind::device ? "device" : "none";
    for (const declared_python_buffer& b : buffers_) {
      if (b.absent) continue;  // nothing allocates, draws, compares or digests it
      kbench::detail::buffer_facts& facts = f.buffers.emplace_back();
      facts.layout = b.layout;
      if (drawn(b.layout.role)) facts.init = b.init;
      facts.edge_values = b.edge_values;
      if (compared(b.layout.role)) facts.compared = tolerance_of(b);
    }
    f.work = work_;
    f.expectations = expectations_;
    f.census = census_;
    f.deterministic = deterministic_;
    f.requires_alignment = requires_alignment_;
    f.edge_values = edge_values_;
    return f;
  }
  [[nodiscard]] std::vector<std::string> lines() const { return kbench::detail::declaration_lines(facts()); }
  [[nodiscard]] std::string digest() const { return kbench::detail::digest_of_lines(lines()); }

  // An output's tolerance: its own, else the case's, else its dtype's default.
  [[nodiscard]] kbench::tolerance tolerance_of(const declared_python_buffer& out) const {
    if (out.own_tolerance) return *out.own_tolerance;
    if (case_tolerance_) return *case_tolerance_;
    return default_tolerance(out.layout.type);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw usage_error("case '" + name_ + "' [" + shape_.to_string() + "] " + what);
  }

 private:
  declared_python_buffer& new_buffer(std::string buffer_name, buffer_role role, dtype type) {
    for (const declared_python_buffer& b : buffers_) {
      if (b.layout.name == buffer_name) fail("declares buffer '" + buffer_name + "' twice");
    }
    declared_python_buffer& b = buffers_.emplace_back();
    b.layout.name = std::move(buffer_name);
    b.layout.role = role;
    b.layout.type = type;
    return b;
  }

  declared_python_buffer& add_buffer(std::string buffer_name, buffer_role role, dtype type,
                                     const std::vector<std::int64_t>& extents);
  declared_python_buffer& add_drawn(std::string buffer_name, buffer_role role, dtype type,
                                    const std::vector<std::int64_t>& extents, const std::optional<distribution>& init);

  declared_python_buffer& buffer_named(const std::string& buffer_name) {
    for (declared_python_buffer& b : buffers_) {
      if (b.layout.name == buffer_name) return b;
    }
    fail("has no buffer '" + buffer_name + "'");
  }

  // kernel_case's set_once(): each side once; a device and a host reference are one too many.
  void set_side(side_kind& side, side_kind kind, const char* what) {
    if (side == kind) fail(std::string("sets ") + what + "() twice");
    if (side != side_kind::none) fail("declares both a device and a host reference: keep one");
    side = kind;
  }

  double checked_work(double value, const char* what) const {
    if (!std::isfinite(value) || value < 0.0) fail(std::string(what) + "() must be finite and >= 0");
    return value;
  }
  double checked_calls(double count, const char* what) const {
    if (!std::isfinite(count) || count <= 0.0) fail(std::string(what) + "() needs a finite count of calls > 0");
    return count;
  }

  std::string name_;
  kbench::shape shape_;
  std::vector<kbench::shape> registered_;
  std::vector<declared_python_buffer> buffers_;  // in declaration order, absent ones among them
  side_kind reference_ = side_kind::none;
  side_kind optimized_ = side_kind::none;
  std::optional<kbench::tolerance> case_tolerance_;
  work_model work_;
  perf_expectations expectations_;
  census_expectations census_;
  bool deterministic_ = false;
  std::size_t requires_alignment_ = 1;
  bool edge_values_ = true;
};

// A new buffer, checked: a unique name, extents > 0, addressable (declared_case::add_buffer's checks).
inline declared_python_buffer& case_declaration::add_buffer(std::string buffer_name, buffer_role role, dtype type,
                                                            const std::vector<std::int64_t>& extents) {
  if (extents.empty()) fail("buffer '" + buffer_name + "' has no extents");
  std::size_t size = 1;
  std::vector<std::size_t> checked;
  for (std::int64_t e : extents) {
    if (e <= 0) {
      fail("buffer '" + buffer_name + "' has extent " + std::to_string(e) +
           ": every extent must be > 0 (an empty buffer tests nothing; one that some shapes do not use is "
           "declared with input_if() or output_if())");
    }
    if (size > std::numeric_limits<std::size_t>::max() / info(type).size / static_cast<std::size_t>(e)) {
      fail("buffer '" + buffer_name + "' is too large to address");
    }
    size *= static_cast<std::size_t>(e);
    checked.push_back(static_cast<std::size_t>(e));
  }
  declared_python_buffer& b = new_buffer(std::move(buffer_name), role, type);
  b.layout.extents = std::move(checked);
  b.layout.size = size;
  return b;
}

// A drawn buffer, its distribution within the range of its type (declared_case::add_drawn's checks).
inline declared_python_buffer& case_declaration::add_drawn(std::string buffer_name, buffer_role role, dtype type,
                                                           const std::vector<std::int64_t>& extents,
                                                           const std::optional<distribution>& given) {
  const distribution init = given ? *given : detail::default_distribution(type);
  if (init.shape == distribution::kind::from_index) {
    fail("input '" + buffer_name + "': from_index() from Python is not built yet (docs/python.md)");
  }
  declared_python_buffer& b = add_buffer(std::move(buffer_name), role, type, extents);
  const std::string type_name(info(type).name);
  if (init.shape == distribution::kind::uniform) {
    const double largest = largest_finite(type);  // a larger bound would be drawn as inf, or as fp8's NaN
    if (std::fabs(init.a) > largest || std::fabs(init.b) > largest) {
      fail("input '" + b.layout.name + "': " + init.describe() + " exceeds the range of " + type_name);
    }
  }
  if (init.given_values()) {
    for (const double v : {init.a, init.shape == distribution::kind::choice ? init.b : init.a}) {
      if (!holds_value(type, v)) {
        fail("input '" + b.layout.name + "': " + init.describe() + " holds a value " + type_name + " cannot hold");
      }
    }
  }
  b.init = init;
  return b;
}

}  // namespace kbench::python
