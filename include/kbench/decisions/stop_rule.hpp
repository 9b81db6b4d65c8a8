// kbench/decisions/stop_rule.hpp: when a timing run stops sampling. Never before the options' iterations; then,
// every 10 samples, as soon as both medians are known to the options' precision (half-width of the
// median's 95% interval, relative), or when the time or sample limit is reached. Samples that ran
// throttled (throttle_rule.hpp) are not among those kept, but count toward the limits: a device that stays
// throttled ends sampling at the time limit. HIP-free.
#pragma once

#include <vector>

#include "../results/statistics.hpp"
#include "run_options.hpp"

namespace kbench {

class stop_rule {
 public:
  explicit stop_rule(const run_options& o)
      : min_samples_(o.iterations), max_samples_(o.max_iterations), precision_(o.precision), max_time_(o.max_time) {}

  // After another sample: whether sampling stops here. `optimized` and `reference` are the samples kept
  // (`reference` empty for a host reference); `taken` counts the throttled ones too (-1: none was).
  [[nodiscard]] bool should_stop(const std::vector<double>& optimized, const std::vector<double>& reference,
                                 double elapsed_seconds, int taken = -1) {
    const auto n = static_cast<int>(optimized.size());
    if (taken > n && taken >= min_samples_ && (elapsed_seconds >= max_time_ || taken >= max_samples_)) return true;
    if (n < min_samples_ || n % check_every != 0) return false;
    optimized_precision_ = median_relative_precision(optimized);
    reference_precision_ = reference.empty() ? 0.0 : median_relative_precision(reference);
    precise_ = optimized_precision_ <= precision_ && reference_precision_ <= precision_;
    return precise_ || elapsed_seconds >= max_time_ || n >= max_samples_;
  }

  [[nodiscard]] bool precise() const { return precise_; }
  [[nodiscard]] double optimized_precision() const { return optimized_precision_; }
  [[nodiscard]] double reference_precision() const { return reference_precision_; }
  [[nodiscard]] double target() const { return precision_; }

  static constexpr int check_every = 10;

 private:
  int min_samples_;
  int max_samples_;
  double precision_;
  double max_time_;
  double optimized_precision_ = 0.0;
  double reference_precision_ = 0.0;
  bool precise_ = false;
};

}  // namespace kbench
