// check_sampling.hpp: which timed launches a timing run checks, and what a number of checks catches.
#include <kbench/decisions/check_sampling.hpp>
#include <kbench/reports/json_report.hpp>
#include <kbench/reports/report.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_check_sampling_test {  // one per file: the unit tests compile in unity batches

TEST_CASE("the smallest share of wrong launches caught with 99% probability", "[check_sampling]") {
  CHECK(std::isnan(kbench::smallest_share_caught(0)));
  CHECK(kbench::smallest_share_caught(1) == Approx(0.99));
  CHECK(kbench::smallest_share_caught(459) == Approx(0.01).epsilon(0.01));  // ln(100)/459 ~ 1%
  // By definition: a share that large is missed by every one of n checks with probability 1%.
  const double share = kbench::smallest_share_caught(30);
  CHECK(std::pow(1.0 - share, 30) == Approx(0.01));
}

TEST_CASE("each launch is checked with the budget's probability, from the run's average", "[check_sampling]") {
  // Checks of 10 us against launches of 100 us per sample (both sides): 15% of that is 1.5 checks' worth
  // per launch, so every launch is checked.
  kbench::check_sampler every(0.15, 10e-6, 1);
  CHECK(every.choose(1, 100e-6, false).size() == 1);
  CHECK(every.per_launch_probability() == 1.0);
  // Checks of 100 us against 100 us of timed work per sample of 10 launches: 0.015 per launch.
  kbench::check_sampler some(0.15, 100e-6, 2);
  long long chosen = 0;
  for (int s = 0; s < 20000; ++s) chosen += static_cast<long long>(some.choose(10, 100e-6, false).size());
  CHECK(some.per_launch_probability() == Approx(0.015));
  CHECK(static_cast<double>(chosen) == Approx(0.015 * 200000).epsilon(0.1));
}

TEST_CASE("a sample made faster is not checked less often", "[check_sampling]") {
  kbench::check_sampler s(0.15, 100e-6, 3);
  for (int i = 0; i < 100; ++i) (void)s.choose(1, 100e-6, false);
  const double before = s.per_launch_probability();
  (void)s.choose(1, 1e-6, false);  // a sample whose launches skipped their work
  CHECK(s.per_launch_probability() == Approx(before).epsilon(0.02));
}

TEST_CASE("the last sample always has one launch checked; none without a budget otherwise", "[check_sampling]") {
  kbench::check_sampler host(0.0, 1.0, 4);
  CHECK(host.choose(8, 1e-3, false).empty());
  const std::vector<int> last = host.choose(8, 1e-3, true);
  REQUIRE(last.size() == 1);
  CHECK(last[0] >= 0);
  CHECK(last[0] < 8);
}

TEST_CASE("the launches checked and the order of the sides spread over every position", "[check_sampling]") {
  kbench::check_sampler s(0.15, 100e-6, 5);
  std::vector<int> hits(8, 0);
  int optimized_first = 0;
  for (int i = 0; i < 4000; ++i) {
    for (const int launch : s.choose(8, 800e-6, true)) ++hits[static_cast<std::size_t>(launch)];
    optimized_first += s.optimized_first();
  }
  for (const int h : hits) CHECK(h > 0);
  CHECK(optimized_first > 1800);
  CHECK(optimized_first < 2200);
}

TEST_CASE("the measured cost of a check replaces the first estimate", "[check_sampling]") {
  kbench::check_sampler s(0.15, 1e-3, 6);
  CHECK(s.seconds_per_check() == 1e-3);
  s.checked(4, 200e-6);
  CHECK(s.seconds_per_check() == Approx(50e-6));
  CHECK(s.checked_launches() == 4);
}

TEST_CASE("the report and the JSON say how many launches were checked and what that catches", "[check_sampling]") {
  kbench::timing_result t;
  CHECK(kbench::detail::format_checks(t.checks).empty());  // nothing timed: no line
  t.checks.timed = 412;
  t.checks.checked = 37;
  t.checks.smallest_share_caught = kbench::smallest_share_caught(37);
  const std::string line = kbench::detail::format_checks(t.checks);
  CHECK(line.find("checked    37 of 412 timed launches") != std::string::npos);
  CHECK(line.find("11.7% of its launches or more is found with 99% probability") != std::string::npos);
  const kbench::detail::json j = kbench::detail::to_json(t, {})["launch_checks"];
  CHECK(j["launches_timed"] == 412);
  CHECK(j["launches_checked"] == 37);
  CHECK(j["smallest_share_caught"].get<double>() == Approx(0.117).epsilon(0.01));
  CHECK(j["limit"] == "");
  t.checks.checked = 0;
  CHECK(kbench::detail::to_json(t, {})["launch_checks"]["smallest_share_caught"].is_null());
}

}  // namespace unit_check_sampling_test
