// statistics.hpp: summary statistics of timing samples.
#include <kbench/results/statistics.hpp>

#include <cmath>
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "../catch.hpp"

namespace unit_statistics_test {  // one per file: the unit tests compile in unity batches

TEST_CASE("summary statistics of a known sample", "[statistics]") {
  const kbench::sample_stats s = kbench::summarize({10, 3, 1, 7, 2, 9, 4, 8, 6, 5});  // unsorted on purpose
  CHECK(s.count == 10);
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK(s.median == 5.5);
  CHECK(s.mean == 5.5);
  CHECK(s.p10 == Approx(1.9));  // numpy.percentile(range(1, 11), 10)
  CHECK(s.p90 == Approx(9.1));
  CHECK(s.stddev == Approx(3.0276503540974917));
  CHECK(s.coefficient_of_variation() == Approx(3.0276503540974917 / 5.5));
}

TEST_CASE("odd counts take the middle sample; one sample has no spread", "[statistics]") {
  CHECK(kbench::summarize({5, 1, 3}).median == 3);
  const kbench::sample_stats one = kbench::summarize({2.5});
  CHECK(one.median == 2.5);
  CHECK(one.p10 == 2.5);
  CHECK(one.stddev == 0.0);
}

TEST_CASE("empty or non-finite samples are usage errors", "[statistics]") {
  CHECK_THROWS_AS(kbench::summarize({}), kbench::usage_error);
  CHECK_THROWS_AS(kbench::summarize({1.0, std::numeric_limits<double>::quiet_NaN()}), kbench::usage_error);
  CHECK_THROWS_AS(kbench::summarize({1.0, std::numeric_limits<double>::infinity()}), kbench::usage_error);
  CHECK_THROWS_AS(kbench::quantile_of_sorted({1.0}, 1.5), kbench::usage_error);
}

TEST_CASE("the median's interval tightens with more samples and holds the median", "[statistics]") {
  std::vector<double> few, many;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(100.0, 2.0);
  for (int i = 0; i < 20; ++i) few.push_back(noise(rng));
  for (int i = 0; i < 2000; ++i) many.push_back(noise(rng));
  std::sort(few.begin(), few.end());
  std::sort(many.begin(), many.end());
  const kbench::interval a = kbench::median_interval_of_sorted(few), b = kbench::median_interval_of_sorted(many);
  CHECK(a.contains(kbench::quantile_of_sorted(few, 0.5)));
  CHECK(b.contains(kbench::quantile_of_sorted(many, 0.5)));
  CHECK(b.high - b.low < (a.high - a.low) / 3);
  CHECK(kbench::median_relative_precision(many) < 0.005);  // 2% noise, 2000 samples: known to 0.5%
  CHECK(kbench::median_relative_precision(few) > 0.005);
  // n = 100: the interval is the 40th and 61st order statistics (1-based), as in the usual tables.
  std::vector<double> ranks(100);
  std::iota(ranks.begin(), ranks.end(), 1.0);
  const kbench::interval r = kbench::median_interval_of_sorted(ranks);
  CHECK(r.low == 40.0);
  CHECK(r.high == 61.0);
}

TEST_CASE("the speedup interval separates real differences from noise", "[statistics]") {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<double> slow, fast, same;
  for (int i = 0; i < 200; ++i) {
    const double drift = 1.0 + 0.05 * std::sin(i / 10.0);  // shared by both kernels, as clock drift is
    slow.push_back(2.0 * drift * (1.0 + noise(rng)));
    fast.push_back(1.0 * drift * (1.0 + noise(rng)));
    same.push_back(2.0 * drift * (1.0 + noise(rng)));
  }
  const kbench::interval faster = kbench::ratio_of_medians_interval(slow, fast);
  CHECK(faster.low > 1.9);
  CHECK(faster.high < 2.1);
  const kbench::interval tie = kbench::ratio_of_medians_interval(slow, same);
  CHECK(tie.contains(1.0));
  CHECK(kbench::ratio_of_medians_interval(slow, fast).low == faster.low);  // seeded: reproducible
  CHECK_THROWS_AS(kbench::ratio_of_medians_interval({1.0}, {}), kbench::usage_error);
}

TEST_CASE("the time saved's interval comes from the speedup's paired bootstrap", "[statistics]") {
  std::mt19937_64 rng(12);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<double> slow, fast, shifted;
  for (int i = 0; i < 200; ++i) {
    const double drift = 1.0 + 0.05 * std::sin(i / 10.0);
    slow.push_back(150e-6 * drift * (1.0 + noise(rng)));
    fast.push_back(100e-6 * drift * (1.0 + noise(rng)));
    shifted.push_back(fast.back() + 47e-6);  // each pair exactly 47 us apart
  }
  const kbench::interval saved = kbench::difference_of_medians_interval(slow, fast);
  const double point = kbench::summarize(slow).median - kbench::summarize(fast).median;
  CHECK(saved.contains(point));
  CHECK(saved.low > 45e-6);
  CHECK(saved.high < 55e-6);
  // Paired, as the samples were taken: a shift shared by every pair is known exactly, however much the
  // samples themselves spread.
  const kbench::interval exact = kbench::difference_of_medians_interval(shifted, fast);
  CHECK(exact.low == Approx(47e-6).epsilon(1e-9));
  CHECK(exact.high == Approx(47e-6).epsilon(1e-9));
  // The same draws as the ratio's: a sample set twice another gives a ratio of 2 and a difference of one
  // median, each from the same resampled pairs.
  std::vector<double> twice;
  for (double f : fast) twice.push_back(2.0 * f);
  const kbench::interval ratio = kbench::ratio_of_medians_interval(twice, fast);
  CHECK(ratio.low == Approx(2.0));
  CHECK(ratio.high == Approx(2.0));
  CHECK(kbench::difference_of_medians_interval(twice, fast).contains(kbench::summarize(fast).median));
  CHECK(kbench::difference_of_medians_interval(slow, fast).low == saved.low);  // seeded: reproducible
  CHECK_THROWS_AS(kbench::difference_of_medians_interval({1.0}, {}), kbench::usage_error);
  CHECK_THROWS_AS(kbench::difference_of_medians_interval({1.0}, {1.0}, 0), kbench::usage_error);
}

}  // namespace unit_statistics_test
