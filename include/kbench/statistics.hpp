// kbench/statistics.hpp: summary statistics of timing samples. HIP-free.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

#include "error.hpp"

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

}  // namespace kbench
