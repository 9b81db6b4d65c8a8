// kbench/contract/declared_case.hpp: a case's declaration as the runner reads it. The case function speaks
// to kernel_case (kernel_case.hpp), whose verbs fill a declared_case; the procedure reads that through
// detail::declared(c), a field per verb under the verb's own name (`c.requires_alignment(16)` is
// `declared(c).requires_alignment`), so what an author can call and what the runner can read are separate
// types.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "buffer_handle.hpp"
#include "callable.hpp"
#include "declaration.hpp"
#include "distribution.hpp"
#include "dtype.hpp"
#include "devices.hpp"
#include "error.hpp"
#include "platform.hpp"
#include "shape.hpp"
#include "tolerance.hpp"

namespace kbench {

using launch_function = detail::callable<void(hipStream_t)>;
// The launch of a case that spans several devices (kernel_case::devices): one stream per device.
using device_launch_function = detail::callable<void(const device_streams&)>;
using host_function = detail::callable<void()>;

class kernel_case;

namespace detail {

struct declared_case {
  std::string name;
  kbench::shape shape;
  std::vector<std::unique_ptr<buffer_slot>> buffers;  // in declaration order
  std::vector<std::unique_ptr<buffer_slot>> absent;   // input_if(), output_if() at a shape that does not use them
  launch_function device_reference;                   // reference(): one stream
  device_launch_function device_reference_on_each;    // reference(): a stream per device
  host_function host_reference;
  launch_function optimized;
  device_launch_function optimized_on_each;
  int devices = 0;  // devices(): 0 when the case never said (one device)
  bool requires_peer_access = false;
  std::optional<kbench::tolerance> case_tolerance;  // tolerance(policy): outputs without their own
  work_model work;                                  // bytes_moved(), flops(), tokens(), link_bytes(), calls_per_...()
  perf_expectations expectations;                   // require_speedup(), require_bandwidth(), allow_speedup_up_to()
  census_expectations census;                       // expect_kernels(), expect_registers_at_most(), ...
  std::vector<std::unique_ptr<resource_bound>> resource_bounds;  // expect_resources(): each stays put
  bool deterministic = false;
  host_function oracle;
  double oracle_ratio = 2.0;
  std::size_t requires_alignment = 1;
  bool edge_values = true;  // edge_values(): inputs also at other magnitudes and special values
  mutable std::vector<std::string> asked;  // dim() calls, for unasked_dimensions()
  mutable std::vector<std::string> flags;  // flag() calls: switches, which the shapes around it never vary

  [[noreturn]] void fail(const std::string& what) const;
  // A new buffer, checked: a unique name, extents > 0, addressable (kernel_case's input(), output(), inout(),
  // scratch()).
  buffer_slot& add_buffer(std::string buffer_name, buffer_role role, dtype type,
                          std::initializer_list<std::int64_t> extents);
  // A buffer whose values kbench draws (an input, or an in-place buffer), its distribution within the
  // range of its type.
  buffer_slot& add_drawn(std::string buffer_name, buffer_role role, dtype type,
                         std::initializer_list<std::int64_t> extents, const distribution& init);
  // Scratch of `count` elements (kernel_case's scratch()): absent at a count of 0, an error below it.
  buffer_slot& add_scratch(std::string buffer_name, dtype type, std::int64_t count);
  // A buffer the shape does not use (input_if(), output_if(), a scratch of 0): its name taken, nothing else
  // of it kept.
  // It is not among `buffers`, so nothing allocates, draws, binds, compares, times or lists it.
  buffer_slot& add_absent(std::string buffer_name, buffer_role role, dtype type);

  [[nodiscard]] int device_count() const { return devices == 0 ? 1 : devices; }
  [[nodiscard]] bool has_device_reference() const { return device_reference || device_reference_on_each; }

  // The bodies below are kernel_case_impl.hpp's, compiled once per program: only the procedure calls them,
  // and a test file that sees them would compile their containers again.
  // The elements of all its buffers: what decides whether it is small (decisions/nearby_shapes.hpp).
  [[nodiscard]] double elements() const;
  // Runs the reference (device) or the optimized launch on `streams`, with device 0 current; a launch of
  // one stream gets device 0's.
  void run_launch(bool optimized_side, const device_streams& streams) const;
  // An output's tolerance: its own, else the case's, else its dtype's default.
  [[nodiscard]] kbench::tolerance tolerance_of(const buffer_slot& out) const;
  // The buffers as plain data (what `<program> list` prints and --max-elements counts).
  [[nodiscard]] std::vector<declared_buffer> declared_buffers() const;
  // The dimensions and parameters of the shape that the case function never asked for (a shape given at run
  // time must have none: a typo would otherwise run the case at some other size).
  [[nodiscard]] std::vector<std::string> unasked_dimensions() const;
  // Throws usage_error unless the declaration is complete: outputs, one reference, an optimized launch.
  void validate() const;
};

// What a case declared, for the runner (kernel_case.hpp defines it).
const declared_case& declared(const kernel_case& c);

}  // namespace detail
}  // namespace kbench
