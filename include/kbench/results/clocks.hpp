// kbench/results/clocks.hpp: the GPU's clock as a run saw it: the driver's clock setting (locked or not,
// at what), read once per program, and the SM clock over each timed sample with the samples left out as
// throttled (decisions/throttle_rule.hpp). HIP-free.
//
// Why: the clock moves with load, temperature and power (the H200's read 345 MHz idle and 1980 MHz under
// load); a throttled stretch shifts a median, and a baseline run at another clock differs for that alone.
// A time in cycles (seconds x the sample's clock) does not move with the clock where the kernel is bound
// by its own arithmetic or latency (memory-bound kernels move less than the clock: the memory's clock
// is another).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "statistics.hpp"

namespace kbench {

// The driver's setting of the SM clock, read once per program (engines/clock_control.hpp).
struct clock_control {
  std::string source;          // where it was read ("NVML", "sysfs ..."); empty: nowhere
  std::optional<bool> locked;  // held at one clock by a setting (nvidia-smi -lgc / -ac, rocm-smi); unknown without source
  double locked_hz = 0.0;      // the clock it is held at, when locked and known
  double current_hz = 0.0;     // the SM clock the driver reported as it was read (0: unknown)
  std::string detail;          // what was read, in words
};

// The SM clock over the timed samples of one case: the rate of the cycle counter of one multiprocessor
// against the device's constant-rate timer, from a stamp before a side's untimed flush or spin to one
// after its stop event (engines/clock_stamps.hpp).
struct sample_clocks {
  bool measured = false;
  std::string unmeasured;         // why not, when not
  double highest_hz = 0.0;        // the device's highest SM clock (the runtime's clock rate)
  double throttle_threshold = 0.0;  // a sample with either side below threshold x highest_hz is throttled
  // The clock of each sample kept, in the order of timing_result's optimized_samples / reference_samples
  // (NaN: not read for that sample; empty reference: a host reference).
  std::vector<double> optimized_hz;
  std::vector<double> reference_hz;
  std::optional<sample_stats> optimized;  // of the clocks read; absent when none was
  std::optional<sample_stats> reference;
  // The samples left out: each one's lower clock of its two sides, in order taken.
  std::vector<double> throttled_hz;
  bool throttled_kept = false;    // too few samples ran unthrottled: the statistics include the throttled
  // Reference median cycles / optimized median cycles, over the samples with both clocks read (NaN: none).
  double speedup_in_cycles = std::numeric_limits<double>::quiet_NaN();
};

// Seconds x clock of each sample whose clock was read.
[[nodiscard]] inline std::vector<double> cycles_of(const std::vector<double>& seconds, const std::vector<double>& hz) {
  std::vector<double> cycles;
  for (std::size_t i = 0; i < seconds.size() && i < hz.size(); ++i) {
    if (std::isfinite(hz[i])) cycles.push_back(seconds[i] * hz[i]);
  }
  return cycles;
}

// The speedup in cycles: the ratio of the two sides' median cycles (NaN when either has none).
[[nodiscard]] inline double speedup_in_cycles(const std::vector<double>& reference_seconds,
                                              const std::vector<double>& reference_hz,
                                              const std::vector<double>& optimized_seconds,
                                              const std::vector<double>& optimized_hz) {
  const std::vector<double> reference = cycles_of(reference_seconds, reference_hz);
  const std::vector<double> optimized = cycles_of(optimized_seconds, optimized_hz);
  if (reference.empty() || optimized.empty()) return std::numeric_limits<double>::quiet_NaN();
  return summarize(reference).median / summarize(optimized).median;
}

// Statistics of the clocks that were read (absent when none was).
[[nodiscard]] inline std::optional<sample_stats> summarize_clocks(const std::vector<double>& hz) {
  std::vector<double> read;
  for (double h : hz) {
    if (std::isfinite(h)) read.push_back(h);
  }
  if (read.empty()) return std::nullopt;
  return summarize(read);
}

}  // namespace kbench
