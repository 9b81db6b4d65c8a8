// kbench/decisions/throttle_rule.hpp: which timed samples ran throttled, and what a run with throttled samples
// reports. A sample is throttled when the SM clock over either side (results/clocks.hpp) was below the
// threshold's share of the device's highest clock (--throttle-threshold, 0.75 by default: nvbench's); it
// is left out of the statistics and of the stop rule's count, as nvbench does, unless too few samples ran
// unthrottled, when all are kept and the timing is flagged. HIP-free.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../results/clocks.hpp"
#include "../results/outcome.hpp"

namespace kbench {

class throttle_rule {
 public:
  // `threshold` in (0, 1]; `highest_hz` the device's highest SM clock (0: unknown, nothing is throttled).
  throttle_rule(double threshold, double highest_hz) : threshold_(threshold), highest_hz_(highest_hz) {}

  // Whether a sample whose sides ran at these clocks (NaN: not read, never throttled) was throttled.
  [[nodiscard]] bool throttled(double optimized_hz, double reference_hz) const {
    return below(optimized_hz) || below(reference_hz);
  }

  // The clock of the sample a report names: the lower of the two read.
  [[nodiscard]] static double lower(double optimized_hz, double reference_hz) {
    if (!std::isfinite(reference_hz)) return optimized_hz;
    if (!std::isfinite(optimized_hz)) return reference_hz;
    return std::fmin(optimized_hz, reference_hz);
  }

  [[nodiscard]] double limit_hz() const { return threshold_ * highest_hz_; }

  // Fewer unthrottled samples than this: all samples are kept and the timing is flagged.
  static constexpr std::size_t fewest_kept = 10;

  // The note, or the flag, a run with throttled samples gets (none when none was).
  [[nodiscard]] std::vector<finding> findings(const sample_clocks& c, std::size_t kept) const {
    if (c.throttled_hz.empty()) return {};
    double lowest = c.throttled_hz.front();
    for (double hz : c.throttled_hz) lowest = std::fmin(lowest, hz);
    const std::string what = fmt::format("{} of {} samples ran below {:.0f}% of the highest SM clock ({:.0f} of {:.0f} "
                                         "MHz; the lowest {:.0f} MHz)",
                                         c.throttled_hz.size(), c.throttled_hz.size() + kept, 100 * threshold_,
                                         limit_hz() / 1e6, highest_hz_ / 1e6, lowest / 1e6);
    if (c.throttled_kept) {
      return {{finding_kind::throttled,
               what + ": too few ran unthrottled to leave them out, so the statistics include them; the device "
                      "could not hold its clock (power, heat, or other work): time again on an idle device"}};
    }
    return {{finding_kind::note, what + " and were left out of the statistics (--throttle-threshold)"}};
  }

 private:
  [[nodiscard]] bool below(double hz) const { return highest_hz_ > 0 && std::isfinite(hz) && hz < limit_hz(); }

  double threshold_;
  double highest_hz_;
};

}  // namespace kbench
