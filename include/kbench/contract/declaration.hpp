// kbench/contract/declaration.hpp: what a case declares, as plain data: its buffers' roles and layout, the work
// one launch does, and what it requires of the optimized kernel's performance. Shared by the contract
// (kernel_case.hpp), the results and the host-only parts of a program. HIP-free.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dtype.hpp"
#include "error.hpp"

namespace kbench {

// scratch: device memory a side needs beside its inputs and outputs, never compared (kernel_case::scratch).
enum class buffer_role : unsigned char { input, output, inout, scratch };
[[nodiscard]] inline const char* role_name(buffer_role role) {
  switch (role) {
    case buffer_role::input: return "in";
    case buffer_role::output: return "out";
    case buffer_role::inout: return "inout";
    case buffer_role::scratch: return "scratch";
  }
  return "?";
}
// Whether kbench draws the buffer's values (an input, or one updated in place) and compares it.
[[nodiscard]] inline bool drawn(buffer_role role) { return role == buffer_role::input || role == buffer_role::inout; }
[[nodiscard]] inline bool compared(buffer_role role) { return role == buffer_role::output || role == buffer_role::inout; }

// One buffer of a declaration: enough for `<program> list` and --max-elements, without device memory.
struct declared_buffer {
  std::string name;
  buffer_role role = buffer_role::input;
  dtype type = dtype::f32;
  std::vector<std::size_t> extents;
  std::size_t size = 0;  // elements
  std::size_t pitch = 0; // padded rows: elements from one row to the next (0: contiguous)
  int device = 0;        // the logical device it lives on (a case that spans devices)
  bool sized_when_opened = false;  // scratch whose size a library's query gives on the GPU (extents: 1)
};

// What one launch of the kernel moves and computes; the report turns it into GB/s, TFLOP/s, tokens/s.
// In a case that spans devices, `bytes` is what one device moves (its bound is one device's bandwidth)
// and `link_bytes` what crosses between GPUs in one launch, all devices together.
struct work_model {
  double bytes = 0.0;
  double flops = 0.0;
  dtype flop_type = dtype::f32;  // the arithmetic the flops are done in (the compute peak it is held to)
  bool matrix_units = false;     // done on matrix units (MFMA, tensor cores), for which no peak is measured
  double tokens = 0.0;
  double link_bytes = 0.0;
  // How many calls of the kernel one layer of a model, or one token, makes (0: not declared): the report
  // gives the time saved per layer and per token.
  double calls_per_layer = 0.0;
  double calls_per_token = 0.0;
};

// What a case declares about its own performance (kernel_case::require_speedup and friends).
struct perf_expectations {
  double required_speedup = 0.0;       // fail when the speedup's whole interval is below
  double required_bandwidth = 0.0;     // as a fraction of the copy bandwidth; likewise
  double max_plausible_speedup = 10.0; // above this a speedup is flagged as implausible, and fails
  bool speedup_limit_declared = false; // allow_speedup_up_to() was called: the limit holds even where the
                                       // work model bounds the kernel by physics (which replaces the 10x)
};

// What a case expects of its optimized side's kernels (kernel_case::expect_kernels and friends), checked
// against the census of a launch (census.hpp); unset values are not checked.
struct census_expectations {
  int kernels = -1;               // kernel launches in one launch of the side (a fusion: 1)
  int max_registers = -1;         // registers per thread (VGPRs on AMD) of every kernel, at most
  double min_occupancy = -1.0;    // theoretical occupancy of every kernel, at least (a fraction of the maximum)
  [[nodiscard]] bool any() const { return kernels >= 0 || max_registers >= 0 || min_occupancy >= 0; }
};

// A bound on the resources of the kernels whose names (as the census prints them) contain `kernels`, on
// one target ("gfx90a", "sm_90") or every target built (empty), read from the program itself without a GPU
// (`<program> resources`, kernel_case::expect_resources); unset values are not checked. On NVIDIA the
// registers are a thread's, LDS is static shared memory and scratch the stack; a cubin does not record
// spills apart from the stack, so there "no spills" means no stack. Waves per SIMD bound AMD targets,
// warps per SM NVIDIA's.
struct resource_bound {
  std::string kernels;
  std::string target;
  int max_vgprs = -1;                // on gfx90a and later the unified total
  bool no_spills = false;            // VGPRs and SGPRs
  long long max_scratch_bytes = -1;  // per work-item
  long long max_lds_bytes = -1;      // static
  int min_waves_per_simd = -1;       // by the compiler's occupancy rule for the target
  int min_warps_per_sm = -1;         // NVIDIA, by the architecture's rule (decisions/occupancy.hpp)

  resource_bound& vgprs_at_most(int count) { return set(max_vgprs, count, count > 0, "vgprs_at_most() needs a count > 0"); }
  resource_bound& spills_none() {
    no_spills = true;
    return *this;
  }
  resource_bound& scratch_at_most(long long bytes) {
    return set(max_scratch_bytes, bytes, bytes >= 0, "scratch_at_most() needs bytes >= 0");
  }
  resource_bound& lds_at_most(long long bytes) { return set(max_lds_bytes, bytes, bytes >= 0, "lds_at_most() needs bytes >= 0"); }
  resource_bound& waves_at_least(int waves) {
    return set(min_waves_per_simd, waves, waves >= 1 && waves <= 10, "waves_at_least() needs 1 to 10 waves per SIMD");
  }
  resource_bound& warps_at_least(int warps) {
    return set(min_warps_per_sm, warps, warps >= 1 && warps <= 64, "warps_at_least() needs 1 to 64 warps per SM");
  }

 private:
  template <class T>
  resource_bound& set(T& field, T value, bool valid, const char* problem) {
    if (!valid) throw usage_error(std::string("expect_resources(\"") + kernels + "\")." + problem);
    field = value;
    return *this;
  }
};

}  // namespace kbench
