// kbench/procedure/timed_samples.hpp: the samples of a timing run, each side's seconds per launch with the SM
// clock over it: two clock stamps around each side's timed work, outside its event pair
// (engines/clock_stamps.hpp); a sample that ran throttled is set aside (decisions/throttle_rule.hpp), so
// the statistics and the stop rule see only the others, unless too few ran unthrottled.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "../decisions/run_options.hpp"
#include "../decisions/stop_rule.hpp"
#include "../decisions/throttle_rule.hpp"
#include "../engines/clock_stamps.hpp"
#include "../results/results.hpp"
#include "case_launcher.hpp"

namespace kbench {
namespace detail {

// What the samples come to once sampling has stopped: how well the medians are known, the clocks over the
// samples, and the findings on throttling.
struct sampling_summary {
  bool precise = false;  // the stop rule's precision reached, with the samples it judged
  double optimized_precision = 0.0;
  double reference_precision = 0.0;
  sample_clocks clocks;
  std::vector<finding> found;
};

class timed_samples {
 public:
  timed_samples(hipStream_t s, const gpu_info& g, const run_options& o, bool with_reference)
      : stamps_(s, g.multiprocessors, g.highest_clock_hz), throttle_(o.throttle_threshold, g.highest_clock_hz),
        with_reference_(with_reference) {
    clocks_.highest_hz = g.highest_clock_hz;
    clocks_.throttle_threshold = o.throttle_threshold;
    clocks_.measured = stamps_.unreadable().empty() && g.highest_clock_hz > 0;
    if (!stamps_.unreadable().empty()) {
      clocks_.unmeasured = stamps_.unreadable();
    } else if (!clocks_.measured) {
      clocks_.unmeasured = "the runtime gives no highest SM clock for this device";
    }
  }

  // What `enqueue_side` puts on `s` for one side of a sample, between two clock stamps.
  template <class Enqueue>
  void stamp_around(side target, hipStream_t s, Enqueue&& enqueue_side) {
    const clock_stamps::opened opening = stamps_.open(s);
    enqueue_side();
    stamped_[static_cast<int>(target)] = {opening, stamps_.close(s, opening)};
  }

  // Whether the SM clock over what `enqueue` puts on `s` (waited for here) reached `share` of the device's
  // highest; false where the clock cannot be read.
  template <class Enqueue>
  [[nodiscard]] bool clock_reached(double share, hipStream_t s, Enqueue&& enqueue) {
    const clock_stamps::opened opening = stamps_.open(s);
    enqueue();
    const int closing = stamps_.close(s, opening);
    KBENCH_HIP_CHECK(hipStreamSynchronize(s));
    const double hz = stamps_.hz(opening, closing);  // NaN when not read: not reached
    return clocks_.measured && hz >= share * clocks_.highest_hz;
  }

  // The sample whose sides were just stamped, once the device has run it: kept, or set aside as throttled.
  void add(double optimized_seconds, double reference_seconds) {
    const double optimized_hz = clock_of(side::optimized);
    const double reference_hz = with_reference_ ? clock_of(side::reference) : std::numeric_limits<double>::quiet_NaN();
    const clocked clocked_sample{optimized_seconds, reference_seconds, optimized_hz, reference_hz};
    if (throttle_.throttled(optimized_hz, reference_hz)) {
      throttled_.push_back(clocked_sample);
      clocks_.throttled_hz.push_back(throttle_rule::lower(optimized_hz, reference_hz));
    } else {
      keep(clocked_sample);
    }
  }

  // Seconds per launch of each side's kept samples (the reference's empty for a host reference).
  [[nodiscard]] const std::vector<double>& optimized() const { return optimized_; }
  [[nodiscard]] const std::vector<double>& reference() const { return reference_; }
  // Samples taken, throttled ones included.
  [[nodiscard]] int taken() const { return static_cast<int>(optimized_.size() + throttled_.size()); }

  // Once sampling has stopped: the throttled samples too when too few ran unthrottled (after the others,
  // and then the medians' precisions are theirs, not the rule's), and the clocks with their statistics and
  // findings.
  [[nodiscard]] sampling_summary finish(const stop_rule& rule) {
    const std::size_t unthrottled = optimized_.size();
    const bool join = !throttled_.empty() && unthrottled < throttle_rule::fewest_kept;
    if (join) {
      clocks_.throttled_kept = true;
      for (const clocked& s : throttled_) keep(s);
    }
    sampling_summary summary;
    summary.precise = rule.precise() && !join;
    summary.optimized_precision = join ? median_relative_precision(optimized_) : rule.optimized_precision();
    summary.reference_precision =
        !join ? rule.reference_precision() : reference_.empty() ? 0.0 : median_relative_precision(reference_);
    summary.found = throttle_.findings(clocks_, unthrottled);
    clocks_.optimized = summarize_clocks(clocks_.optimized_hz);
    clocks_.reference = summarize_clocks(clocks_.reference_hz);
    clocks_.speedup_in_cycles = speedup_in_cycles(reference_, clocks_.reference_hz, optimized_, clocks_.optimized_hz);
    summary.clocks = clocks_;
    return summary;
  }

 private:
  struct clocked {
    double optimized = 0.0;
    double reference = 0.0;
    double optimized_hz = 0.0;
    double reference_hz = 0.0;
  };

  void keep(const clocked& s) {
    optimized_.push_back(s.optimized);
    clocks_.optimized_hz.push_back(s.optimized_hz);
    if (with_reference_) {
      reference_.push_back(s.reference);
      clocks_.reference_hz.push_back(s.reference_hz);
    }
  }

  // The SM clock over a side's last stamps (NaN: not read).
  [[nodiscard]] double clock_of(side target) const {
    const auto& [opening, closing] = stamped_[static_cast<int>(target)];
    return stamps_.hz(opening, closing);
  }

  clock_stamps stamps_;
  std::array<std::pair<clock_stamps::opened, int>, 2> stamped_{};  // each side's last stamps, by side
  const throttle_rule throttle_;
  const bool with_reference_;
  std::vector<double> optimized_, reference_;
  std::vector<clocked> throttled_;
  sample_clocks clocks_;
};

}  // namespace detail
}  // namespace kbench
