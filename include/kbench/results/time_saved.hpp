// kbench/results/time_saved.hpp: the time the optimized kernel saves over its device reference. Per call: the
// reference's median less the optimized kernel's, with a 95% interval from the speedup's own paired bootstrap
// (the same draws of the same samples); per layer and per token where the case declares how many calls one
// makes (kernel_case::calls_per_layer, calls_per_token). Computed once per timing (judge_timing calls
// time_saved_of) into the timing result, which the printed report, the JSON file and the tables only read.
// HIP-free.
#pragma once

#include <limits>
#include <optional>
#include <vector>

#include "../contract/declaration.hpp"
#include "statistics.hpp"

namespace kbench {

// A time saved and its 95% interval, in seconds; negative where the optimized kernel is the slower.
struct saved_seconds {
  double seconds = 0.0;
  interval ci;  // NaN at both ends where no paired samples were kept
};

struct time_saved {
  saved_seconds per_call;
  std::optional<saved_seconds> per_layer;  // per_call x work_model::calls_per_layer, where declared
  std::optional<saved_seconds> per_token;  // per_call x work_model::calls_per_token, where declared
};

namespace detail {
// `count` calls: the figure and its interval scale alike (the count is exact, declared).
[[nodiscard]] inline saved_seconds times(const saved_seconds& s, double count) {
  return {s.seconds * count, {s.ci.low * count, s.ci.high * count}};
}
}  // namespace detail

// The time saved by the optimized kernel, from both medians and the paired samples they summarize (seconds per
// call, each sample of the reference beside the optimized one taken with it). Absent without a device
// reference: a host reference is not timed, so nothing was saved that could be measured.
[[nodiscard]] inline std::optional<time_saved> time_saved_of(const work_model& work, double optimized_median,
                                                             std::optional<double> reference_median,
                                                             const std::vector<double>& optimized_samples,
                                                             const std::vector<double>& reference_samples) {
  if (!reference_median) return std::nullopt;
  time_saved t;
  t.per_call.seconds = *reference_median - optimized_median;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  t.per_call.ci = {nan, nan};
  if (!optimized_samples.empty() && optimized_samples.size() == reference_samples.size()) {
    t.per_call.ci = difference_of_medians_interval(reference_samples, optimized_samples);
  }
  if (work.calls_per_layer > 0) t.per_layer = detail::times(t.per_call, work.calls_per_layer);
  if (work.calls_per_token > 0) t.per_token = detail::times(t.per_call, work.calls_per_token);
  return t;
}

}  // namespace kbench
