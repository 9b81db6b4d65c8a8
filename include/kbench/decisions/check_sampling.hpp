// kbench/decisions/check_sampling.hpp: which timed launches a timing run checks against the reference,
// and which side of a sample goes first (timing_run.hpp does the checking). HIP-free.
//
// No property of a sample may tell a kernel whether it will be checked: every sample's outputs are
// prepared alike, the order of the two sides is drawn per sample, and the launches to check are drawn once
// the sample has run, from a generator seeded from the host's entropy (std::random_device), which nothing
// on the device can read. Each launch is checked with the same probability, chosen so that the checks'
// expected cost stays a share (budget_share) of the timed work: checks are outside the timed regions, but
// inside the run's wall time.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "../detail/entropy.hpp"

namespace kbench {

// The smallest share of wrong launches that `checked` checks find with probability `confidence`:
// 1 - (1 - confidence)^(1/checked). For a kernel wrong on a share f of its timed launches, the chance that
// none of `checked` launches drawn uniformly at random among them is a wrong one is at most (1 - f)^checked.
// NaN when nothing was checked.
[[nodiscard]] inline double smallest_share_caught(long long checked, double confidence = 0.99) {
  if (checked <= 0) return std::numeric_limits<double>::quiet_NaN();
  return 1.0 - std::pow(1.0 - confidence, 1.0 / static_cast<double>(checked));
}

class check_sampler {
 public:
  // `budget_share`: the checks' expected host time as a share of the timed work (0: check only where
  // the caller insists, e.g. with a host reference, whose every check runs the host function);
  // `first_estimate`: seconds one check is expected to take until one has been timed.
  check_sampler(double budget_share, double first_estimate, std::uint64_t seed = detail::entropy_word())
      : share_(budget_share), estimate_(first_estimate), generator_(seed) {}

  // Whether the optimized kernel goes first in the next sample (a fair coin).
  [[nodiscard]] bool optimized_first() { return std::bernoulli_distribution(0.5)(generator_); }

  // After a sample whose timed regions took `timed_seconds` (both sides), with `candidates` launches that
  // can be checked: those to check, each drawn with per_launch_probability(); with `at_least_one`, one
  // drawn uniformly when the draw chose none.
  [[nodiscard]] std::vector<int> choose(int candidates, double timed_seconds, bool at_least_one) {
    candidates_ += candidates;
    timed_seconds_ += timed_seconds;
    std::vector<int> chosen;
    const double p = per_launch_probability();
    std::bernoulli_distribution check(p);
    for (int i = 0; i < candidates; ++i) {
      if (p > 0 && check(generator_)) chosen.push_back(i);
    }
    if (chosen.empty() && at_least_one && candidates > 0) {
      chosen.push_back(std::uniform_int_distribution<int>(0, candidates - 1)(generator_));
    }
    return chosen;
  }

  // `count` launches were checked, in `seconds` of host time.
  void checked(int count, double seconds) {
    checked_launches_ += count;
    check_seconds_ += seconds;
  }

  [[nodiscard]] long long checked_launches() const { return checked_launches_; }
  // Host seconds one check takes: measured once some ran, the first estimate before.
  [[nodiscard]] double seconds_per_check() const {
    return checked_launches_ > 0 ? check_seconds_ / static_cast<double>(checked_launches_) : estimate_;
  }
  // The probability with which each candidate launch is checked: the budget's share of the timed work per
  // candidate so far (both sides), over the cost of a check. The run's average, not the sample's own
  // time, so that a launch made faster by skipping work is not checked less often.
  [[nodiscard]] double per_launch_probability() const {
    if (candidates_ <= 0 || share_ <= 0) return 0.0;
    const double per_launch = timed_seconds_ / static_cast<double>(candidates_);
    return std::clamp(share_ * per_launch / std::max(seconds_per_check(), 1e-9), 0.0, 1.0);
  }

 private:
  double share_;
  double estimate_;
  std::mt19937_64 generator_;
  long long candidates_ = 0;  // launches that could have been checked so far
  long long checked_launches_ = 0;
  double timed_seconds_ = 0.0;  // of every sample so far, both sides
  double check_seconds_ = 0.0;
};

}  // namespace kbench
