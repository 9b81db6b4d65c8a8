// statistics.hpp: summary statistics of timing samples.
#include <kbench/statistics.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "../catch.hpp"

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
