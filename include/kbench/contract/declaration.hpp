// kbench/contract/declaration.hpp: what a case declares, as plain data: its buffers' roles and layout, the work
// one launch does, and what it requires of the optimized kernel's performance. Shared by the contract
// (kernel_case.hpp), the results and the host-only parts of a program. HIP-free.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dtype.hpp"

namespace kbench {

enum class buffer_role : unsigned char { input, output, inout };

// One buffer of a declaration: enough for `<program> list` and --max-elements, without device memory.
struct declared_buffer {
  std::string name;
  buffer_role role = buffer_role::input;
  dtype type = dtype::f32;
  std::vector<std::size_t> extents;
  std::size_t size = 0;  // elements
  std::size_t pitch = 0; // padded rows: elements from one row to the next (0: contiguous)
  int device = 0;        // the logical device it lives on (a case that spans devices)
};

// What one launch of the kernel moves and computes; the report turns it into GB/s, TFLOP/s, tokens/s.
// In a case that spans devices, `bytes` is what one device moves (its bound is one device's bandwidth)
// and `link_bytes` what crosses between GPUs in one launch, all devices together.
struct work_model {
  double bytes = 0.0;
  double flops = 0.0;
  double tokens = 0.0;
  double link_bytes = 0.0;
};

// What a case declares about its own performance (kernel_case::require_speedup and friends).
struct perf_expectations {
  double required_speedup = 0.0;       // fail when the speedup's whole interval is below
  double required_bandwidth = 0.0;     // as a fraction of the copy bandwidth; likewise
  double max_plausible_speedup = 10.0; // above this a speedup is flagged as implausible, and fails
};

// What a case expects of its optimized side's kernels (kernel_case::expect_kernels and friends), checked
// against the census of a launch (census.hpp); unset values are not checked.
struct census_expectations {
  int kernels = -1;               // kernel launches in one launch of the side (a fusion: 1)
  int max_registers = -1;         // registers per thread (VGPRs on AMD) of every kernel, at most
  double min_occupancy = -1.0;    // theoretical occupancy of every kernel, at least (a fraction of the maximum)
  [[nodiscard]] bool any() const { return kernels >= 0 || max_registers >= 0 || min_occupancy >= 0; }
};

}  // namespace kbench
