// clocks.hpp and throttle_rule.hpp: the SM clock of each sample, the samples left out as throttled, the speedup
// in cycles; and how the report, the JSON, the tables and a baseline comparison show them.
#include <kbench/decisions/baseline.hpp>
#include <kbench/decisions/throttle_rule.hpp>
#include <kbench/results/clocks.hpp>
#include <kbench/reports/json_report.hpp>
#include <kbench/reports/report.hpp>
#include <kbench/reports/table_report.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_clocks_test {  // one per file: the unit tests compile in unity batches

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double highest = 1980e6;

// A timing of `samples` samples whose optimized side ran at `clock` Hz, `faster` times faster than the
// reference, at the same clock.
kbench::timing_result clocked_timing(double clock, double faster, int samples = 20) {
  kbench::timing_result t;
  t.mode = kbench::timing_mode::cold;
  for (int i = 0; i < samples; ++i) {
    const double seconds = 1e-3 * (1.0 + 0.001 * i) * 1980e6 / clock;  // a kernel bound by its own cycles
    t.optimized_samples.push_back(seconds);
    t.reference_samples.push_back(seconds * faster);
    t.clocks.optimized_hz.push_back(clock);
    t.clocks.reference_hz.push_back(clock);
  }
  t.optimized = kbench::summarize(t.optimized_samples);
  t.reference = kbench::summarize(t.reference_samples);
  t.speedup = t.reference->median / t.optimized.median;
  t.clocks.measured = true;
  t.clocks.highest_hz = highest;
  t.clocks.throttle_threshold = 0.75;
  t.clocks.optimized = kbench::summarize_clocks(t.clocks.optimized_hz);
  t.clocks.reference = kbench::summarize_clocks(t.clocks.reference_hz);
  t.clocks.speedup_in_cycles = kbench::speedup_in_cycles(t.reference_samples, t.clocks.reference_hz,
                                                         t.optimized_samples, t.clocks.optimized_hz);
  return t;
}

kbench::run_record run_with(const kbench::timing_result& t) {
  kbench::run_record run;
  run.mode = kbench::run_mode::perf;
  run.kbench_version = "0.1.0";
  run.compiler = "test";
  run.device.usable = true;
  run.device.name = "Test GPU";
  run.device.highest_clock_hz = highest;
  kbench::clock_control setting;
  setting.source = "NVML";
  setting.locked = false;
  setting.current_hz = 1980e6;
  setting.detail = "SM clock 1980 MHz as read";
  run.clock_setting = setting;
  kbench::case_record& c = run.cases.emplace_back();
  c.case_name = "gemv";
  c.shape = {{"rows", 4096}};
  c.verdict = kbench::case_verdict::pass;
  c.timing = t;
  return run;
}

}  // namespace

TEST_CASE("the speedup in cycles weighs each sample's time by its clock", "[clocks]") {
  // The reference ran at half the clock: 2x the seconds for the same cycles.
  const std::vector<double> reference_s = {2e-3, 2e-3, 2e-3}, reference_hz = {1e9, 1e9, 1e9};
  const std::vector<double> optimized_s = {1e-3, 1e-3, 1e-3}, optimized_hz = {2e9, 2e9, 2e9};
  CHECK(kbench::speedup_in_cycles(reference_s, reference_hz, optimized_s, optimized_hz) == Approx(1.0));
  // A sample whose clock was not read is left out of its side's cycles, not counted as zero.
  const std::vector<double> partly = {2e9, nan, 2e9};
  CHECK(kbench::cycles_of(optimized_s, partly).size() == 2);
  CHECK(kbench::speedup_in_cycles(reference_s, reference_hz, {1e-3, 5e-3, 1e-3}, partly) == Approx(1.0));
  // No clock on a side: no speedup in cycles.
  CHECK(std::isnan(kbench::speedup_in_cycles(reference_s, {nan, nan, nan}, optimized_s, optimized_hz)));
  CHECK_FALSE(kbench::summarize_clocks({nan, nan}));
  REQUIRE(kbench::summarize_clocks({1e9, nan, 3e9}));
  CHECK(kbench::summarize_clocks({1e9, nan, 3e9})->median == Approx(2e9));
}

TEST_CASE("a sample is throttled when either side ran below the threshold's share of the highest clock", "[clocks]") {
  const kbench::throttle_rule rule(0.75, highest);
  CHECK(rule.limit_hz() == Approx(1485e6));
  CHECK_FALSE(rule.throttled(1980e6, 1980e6));
  CHECK_FALSE(rule.throttled(1485e6, 1500e6));
  CHECK(rule.throttled(1484e6, 1980e6));
  CHECK(rule.throttled(1980e6, 1000e6));
  // A clock not read throttles nothing (a host reference has none).
  CHECK_FALSE(rule.throttled(nan, nan));
  CHECK(rule.throttled(1000e6, nan));
  CHECK(kbench::throttle_rule::lower(1000e6, nan) == 1000e6);
  CHECK(kbench::throttle_rule::lower(1500e6, 1200e6) == 1200e6);
  // A threshold of 0, or a device without a highest clock: nothing is throttled.
  CHECK_FALSE(kbench::throttle_rule(0.0, highest).throttled(1e6, 1e6));
  CHECK_FALSE(kbench::throttle_rule(0.75, 0.0).throttled(1e6, 1e6));
}

TEST_CASE("throttled samples left out are a note; kept because too few ran unthrottled, a failing finding", "[clocks]") {
  const kbench::throttle_rule rule(0.75, highest);
  kbench::sample_clocks c;
  CHECK(rule.findings(c, 100).empty());
  c.throttled_hz = {1400e6, 1200e6};
  const std::vector<kbench::finding> left_out = rule.findings(c, 100);
  REQUIRE(left_out.size() == 1);
  CHECK_FALSE(left_out[0].fails());
  CHECK_THAT(left_out[0].text, kbench_test::contains("2 of 102 samples ran below 75% of the highest SM clock (1485 of 1980 MHz; "
                                               "the lowest 1200 MHz)"));
  CHECK_THAT(left_out[0].text, kbench_test::contains("left out"));
  c.throttled_kept = true;
  const std::vector<kbench::finding> kept = rule.findings(c, 3);
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].fails());
  CHECK(kept[0].kind == kbench::finding_kind::throttled);
  CHECK_THAT(kept[0].text, kbench_test::contains("too few ran unthrottled"));
}

TEST_CASE("the report, the JSON and the tables give each side's clock and the speedup in cycles", "[clocks]") {
  const kbench::timing_result t = clocked_timing(1755e6, 3.0);
  const std::string report = kbench::format_timing("gemv/rows=4096", t, {});
  CHECK_THAT(report, kbench_test::contains("clock      optimized 1755 MHz median (1755 to 1755), reference 1755 MHz median "
                                     "(1755 to 1755) of 1980 MHz highest; speedup in cycles 3.000x"));
  const kbench::run_record run = run_with(t);
  const std::string header = kbench::format_perf_header(run);
  CHECK_THAT(header, kbench_test::contains("SM clock setting: not locked (NVML: SM clock 1980 MHz as read)"));
  CHECK(header.find("first checks: --quick") == std::string::npos);
  kbench::run_record quick = run;
  quick.quick = true;  // the main job's timing stage, once its correctness stage passed
  CHECK_THAT(kbench::format_perf_header(quick), kbench_test::contains("first checks: --quick, each a later seed's"));

  const nlohmann::ordered_json doc = kbench::results_document(run);
  CHECK(doc["device"]["highest_clock_hz"] == 1980e6);
  CHECK(doc["clock_setting"]["locked"] == false);
  CHECK(doc["clock_setting"]["locked_hz"].is_null());
  const auto& clocks = doc["cases"][0]["timing"]["clocks"];
  CHECK(clocks["measured"] == true);
  CHECK(clocks["optimized"]["median"] == Approx(1755e6));
  CHECK(clocks["samples"]["optimized"].size() == 20);
  CHECK(clocks["speedup_in_cycles"] == Approx(3.0));
  CHECK(clocks["throttled_samples"].empty());

  CHECK_THAT(kbench::to_csv(run), kbench_test::contains(",optimized_clock_hz,speedup_in_cycles,"));
  CHECK_THAT(kbench::to_csv(run), kbench_test::contains(",1755000000,3,"));
  CHECK_THAT(kbench::to_markdown(run), kbench_test::contains("| cold, 1755 MHz |"));
}

TEST_CASE("a clock that could not be read says why; a locked clock says at what", "[clocks]") {
  kbench::timing_result t = clocked_timing(1980e6, 2.0);
  t.clocks = {};
  t.clocks.unmeasured = "the cycle counter read 100 MHz on a busy multiprocessor";
  CHECK_THAT(kbench::format_timing("gemv", t, {}), kbench_test::contains("clock      not read: the cycle counter read 100 MHz"));
  kbench::clock_control locked;
  locked.source = "sysfs /sys/bus/pci/devices/0000:03:00.0";
  locked.locked = true;
  locked.locked_hz = 1300e6;
  locked.detail = "performance level 'manual'";
  CHECK(kbench::detail::format_clock_setting(locked) ==
        "locked at 1300 MHz (sysfs /sys/bus/pci/devices/0000:03:00.0: performance level 'manual')");
  kbench::clock_control unknown;
  unknown.detail = "NVML (libnvidia-ml.so.1) could not be opened";
  CHECK(kbench::detail::format_clock_setting(unknown).rfind("unknown (", 0) == 0);
}

TEST_CASE("a baseline run at another SM clock says so, with the time's change in cycles", "[clocks][baseline]") {
  // The same kernel, bound by its cycles: 1980 MHz in the baseline, 1485 MHz now (4/3 the seconds).
  const kbench::run_record before = run_with(clocked_timing(1980e6, 2.0));
  const kbench::run_record after = run_with(clocked_timing(1485e6, 2.0));
  const kbench::baseline_report report = kbench::compare_with_baseline(before, after);
  REQUIRE(report.cases.size() == 1);
  const kbench::baseline_case& c = report.cases[0];
  CHECK(c.change == kbench::time_change::slower);
  bool noted = false;
  for (const std::string& note : c.notes) {
    if (note.find("ran at another SM clock: 1980 MHz in the baseline, 1485 MHz now (0.750x)") != std::string::npos) {
      noted = true;
      CHECK_THAT(note, kbench_test::contains("in cycles its time moved 1.000x"));
    }
  }
  CHECK(noted);
  // Within 2%: nothing said.
  const kbench::run_record close = run_with(clocked_timing(1960e6, 2.0));
  const kbench::baseline_report close_report = kbench::compare_with_baseline(before, close);
  REQUIRE(close_report.cases.size() == 1);
  for (const std::string& note : close_report.cases[0].notes) {
    CHECK(note.find("SM clock") == std::string::npos);
  }
  // A locked clock against an unlocked one: a warning for the whole comparison.
  kbench::run_record locked_run = run_with(clocked_timing(1410e6, 2.0));
  locked_run.clock_setting->locked = true;
  locked_run.clock_setting->locked_hz = 1410e6;
  const kbench::baseline_report warned = kbench::compare_with_baseline(before, locked_run);
  bool warned_lock = false;
  for (const std::string& w : warned.warnings) {
    warned_lock = warned_lock || w == "the SM clock setting differs: baseline not locked, current locked at 1410 MHz";
  }
  CHECK(warned_lock);
}

}  // namespace unit_clocks_test
