// kbench/results/statistics.hpp: summary statistics of timing samples. HIP-free.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "../contract/error.hpp"

namespace kbench {

struct sample_stats {
  std::size_t count = 0;
  double median = 0.0;
  double mean = 0.0;
  double min = 0.0;
  double max = 0.0;
  double stddev = 0.0;  // sample standard deviation (n - 1); 0 for a single sample
  double p10 = 0.0;
  double p90 = 0.0;

  // Relative spread used in reports: stddev / mean.
  [[nodiscard]] double coefficient_of_variation() const { return mean != 0.0 ? stddev / mean : 0.0; }
};

// The q-quantile (q in [0, 1]) of sorted values, interpolating linearly between the closest ranks
// (numpy's default method).
[[nodiscard]] inline double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw usage_error("quantile of an empty sample");
  if (!(q >= 0.0 && q <= 1.0)) throw usage_error("quantile must be in [0, 1]");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * weight;
}

[[nodiscard]] inline sample_stats summarize(std::vector<double> samples) {
  if (samples.empty()) throw usage_error("no samples to summarize");
  for (double s : samples) {
    if (!std::isfinite(s)) throw usage_error("a timing sample is not finite");
  }
  std::sort(samples.begin(), samples.end());
  sample_stats s;
  s.count = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile_of_sorted(samples, 0.5);
  s.p10 = quantile_of_sorted(samples, 0.1);
  s.p90 = quantile_of_sorted(samples, 0.9);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.count);
  if (s.count > 1) {
    double squares = 0.0;
    for (double v : samples) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  return s;
}

struct interval {
  double low = 0.0;
  double high = 0.0;
  [[nodiscard]] bool contains(double v) const { return low <= v && v <= high; }
};

// A distribution-free 95% confidence interval for the median of sorted samples: the order statistics
// j = n/2 - 1.96 sqrt(n)/2 and k = 1 + n/2 + 1.96 sqrt(n)/2 (1-based, rounded; the normal approximation
// to the binomial, e.g. the 40th and 61st of 100). Needs at least 6 samples to be narrower than the
// sample range.
[[nodiscard]] inline interval median_interval_of_sorted(const std::vector<double>& sorted) {
  if (sorted.empty()) throw usage_error("median interval of an empty sample");
  const double n = static_cast<double>(sorted.size());
  const double half_width = 1.959964 * std::sqrt(n) / 2.0;
  const auto low = static_cast<std::ptrdiff_t>(std::lround(n / 2.0 - half_width)) - 1;
  const auto high = static_cast<std::ptrdiff_t>(std::lround(1.0 + n / 2.0 + half_width)) - 1;
  const auto last = static_cast<std::ptrdiff_t>(sorted.size()) - 1;
  return {sorted[static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(low, 0, last))],
          sorted[static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(high, 0, last))]};
}

// Half the width of the median's 95% interval, relative to the median: how well the median is known.
[[nodiscard]] inline double median_relative_precision(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const interval ci = median_interval_of_sorted(samples);
  const double median = quantile_of_sorted(samples, 0.5);
  return median > 0.0 ? (ci.high - ci.low) / (2.0 * median) : 0.0;
}

namespace detail {

// A percentile bootstrap over pairs: `resamples` draws of n pairs with replacement, `combine` of the two medians
// of each draw, and the 2.5% and 97.5% quantiles of those. Seeded, so the same samples always give the same
// interval; figures from the same samples and seed are made from the same draws.
template <class Combine>
[[nodiscard]] interval paired_bootstrap(const std::vector<double>& first, const std::vector<double>& second,
                                        int resamples, std::uint64_t seed, Combine combine) {
  if (resamples < 1) throw usage_error("a bootstrap needs at least one resample");
  const std::size_t n = first.size();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  std::vector<double> figures(static_cast<std::size_t>(resamples)), a(n), b(n);
  for (double& figure : figures) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = pick(rng);
      a[i] = first[j];
      b[i] = second[j];
    }
    std::nth_element(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n / 2), a.end());
    std::nth_element(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n / 2), b.end());
    figure = combine(a[n / 2], b[n / 2]);
  }
  std::sort(figures.begin(), figures.end());
  return {quantile_of_sorted(figures, 0.025), quantile_of_sorted(figures, 0.975)};
}

inline constexpr std::uint64_t bootstrap_seed = 0x6b62656e6368ull;

}  // namespace detail

// 95% interval of median(numerator) / median(denominator) for paired samples (taken together, as the
// interleaved reference and optimized launches are), by a percentile bootstrap over the pairs. The
// resampling is seeded, so the same samples always give the same interval.
[[nodiscard]] inline interval ratio_of_medians_interval(const std::vector<double>& numerator,
                                                        const std::vector<double>& denominator,
                                                        int resamples = 2000, std::uint64_t seed = detail::bootstrap_seed) {
  if (numerator.size() != denominator.size() || numerator.empty()) {
    throw usage_error("ratio interval needs paired, non-empty samples");
  }
  return detail::paired_bootstrap(numerator, denominator, resamples, seed, [](double a, double b) { return a / b; });
}

// 95% interval of median(minuend) - median(subtrahend) for paired samples, by the same bootstrap as the ratio's
// (the same draws, at the same seed): the time one side saves over the other.
[[nodiscard]] inline interval difference_of_medians_interval(const std::vector<double>& minuend,
                                                             const std::vector<double>& subtrahend,
                                                             int resamples = 2000,
                                                             std::uint64_t seed = detail::bootstrap_seed) {
  if (minuend.size() != subtrahend.size() || minuend.empty()) {
    throw usage_error("difference interval needs paired, non-empty samples");
  }
  return detail::paired_bootstrap(minuend, subtrahend, resamples, seed, [](double a, double b) { return a - b; });
}

}  // namespace kbench
