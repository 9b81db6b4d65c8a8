// kbench/results/roofline.hpp: where a timed case stands against the device's two ceilings, its memory
// bandwidth and its arithmetic peak for the case's declared arithmetic, both measured on the spot: the
// arithmetic intensity of the work model, the least time the ceilings allow for that work, and the share of
// it each side reaches. Computed once per timing (judge_timing), read by every report. HIP-free.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "../contract/declaration.hpp"
#include "../contract/dtype.hpp"

namespace kbench {

// The device's arithmetic peak for one type, measured on the spot (engines/compute_peak.hpp): fused
// multiply-adds in every lane, two to a lane where the type is packed.
struct compute_peak {
  dtype type = dtype::f32;
  double flops_per_second = 0.0;  // 0: not measured
  std::string how;                // what was measured, or whose peak stands in for it
};

// The peak measured for `type`, or nullptr.
[[nodiscard]] inline const compute_peak* peak_for(const std::vector<compute_peak>& peaks, dtype type) {
  for (const compute_peak& p : peaks) {
    if (p.type == type && p.flops_per_second > 0) return &p;
  }
  return nullptr;
}

struct roofline {
  double intensity = 0.0;                // flops per byte moved (0: the case declares no flops, or no bytes)
  double memory_bytes_per_second = 0.0;  // the memory ceiling: the faster of copying and reading
  double peak_flops_per_second = 0.0;    // the arithmetic ceiling for the case's type (0: none applies)
  std::string peak_how;                  // what that peak is, or why none applies
  std::string bound;  // "memory" or "compute": which ceiling the intensity meets first ("" when unknown)
  double attainable_flops_per_second = 0.0;  // min(peak, intensity x memory); 0 without flops
  // The least time a launch can take by the ceilings that bind it: the memory ceiling only when the work
  // cannot be served from cache (cold, working set beyond twice the L2), the arithmetic one when a peak
  // applies. 0: neither binds, and the case has no bound from physics.
  double floor_seconds = 0.0;
  std::string binding;  // "memory", "compute" or "" (what floor_seconds comes from)
  double optimized_share = 0.0;           // floor_seconds / the optimized median: 1 is at the roofline (0: none)
  std::optional<double> reference_share;  // the same for a timed reference
};

// What a roofline is computed from, beside the work model and the medians.
struct roofline_ceilings {
  double memory_bytes_per_second = 0.0;
  const compute_peak* peak = nullptr;  // for the case's arithmetic; nullptr when none was measured
  bool memory_binds = false;           // cold, and the declared bytes are more than twice the L2
};

[[nodiscard]] inline roofline roofline_of(const work_model& work, const roofline_ceilings& c, double optimized_median,
                                          std::optional<double> reference_median) {
  roofline r;
  r.memory_bytes_per_second = c.memory_bytes_per_second;
  if (work.flops > 0) {
    if (work.matrix_units) {
      r.peak_how = "matrix units: kbench measures no peak for them";
    } else if (c.peak) {
      r.peak_flops_per_second = c.peak->flops_per_second;
      r.peak_how = c.peak->how;
    } else {
      r.peak_how = "no peak measured for this arithmetic";
    }
  }
  if (work.flops > 0 && work.bytes > 0) {
    r.intensity = work.flops / work.bytes;
    if (r.peak_flops_per_second > 0 && r.memory_bytes_per_second > 0) {
      const bool memory = r.intensity * r.memory_bytes_per_second < r.peak_flops_per_second;
      r.bound = memory ? "memory" : "compute";
      r.attainable_flops_per_second = std::min(r.peak_flops_per_second, r.intensity * r.memory_bytes_per_second);
    }
  } else if (work.bytes > 0) {
    r.bound = "memory";
  } else if (r.peak_flops_per_second > 0) {
    r.bound = "compute";
  }
  const double memory_floor = c.memory_binds && work.bytes > 0 && r.memory_bytes_per_second > 0
                                  ? work.bytes / r.memory_bytes_per_second
                                  : 0.0;
  const double compute_floor = r.peak_flops_per_second > 0 ? work.flops / r.peak_flops_per_second : 0.0;
  r.floor_seconds = std::max(memory_floor, compute_floor);
  if (r.floor_seconds > 0) r.binding = memory_floor >= compute_floor ? "memory" : "compute";
  // A share of the roofline only where the binding ceiling is the one the case meets first: a memory-bound
  // case whose working set the cache may hold has no measured ceiling (its floor, the arithmetic's, is
  // still a bound for plausibility, far below).
  const bool shared = r.floor_seconds > 0 && !(r.bound == "memory" && r.binding == "compute");
  if (shared && optimized_median > 0) r.optimized_share = r.floor_seconds / optimized_median;
  if (shared && reference_median && *reference_median > 0) r.reference_share = r.floor_seconds / *reference_median;
  return r;
}

}  // namespace kbench
