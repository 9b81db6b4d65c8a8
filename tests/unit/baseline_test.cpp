// baseline.hpp: a perf run against an earlier one, on synthetic runs serialised by json_report.hpp and read back.
#include <kbench/decisions/baseline.hpp>
#include <kbench/reports/json_read.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_baseline_test {  // one per file: the unit tests compile in unity batches

using json = nlohmann::ordered_json;

namespace {

// `count` samples around `seconds`, each off by up to +-`spread` (relative), drawn from `seed`.
std::vector<double> samples_around(double seconds, std::uint64_t seed, double spread = 0.01, int count = 101) {
  std::mt19937_64 rng(seed);
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    const double u = static_cast<double>(rng() >> 11) * 0x1p-53;  // [0, 1)
    out.push_back(seconds * (1.0 + spread * (2.0 * u - 1.0)));
  }
  return out;
}

void set_samples(kbench::timing_result& t, std::vector<double> optimized, std::vector<double> reference) {
  t.optimized_samples = std::move(optimized);
  t.reference_samples = std::move(reference);
  t.optimized = kbench::summarize(t.optimized_samples);
  t.reference = kbench::summarize(t.reference_samples);
  t.speedup = t.reference->median / t.optimized.median;
}

void add_case(kbench::run_record& run, const std::string& name, kbench::shape shape, double seconds,
              std::uint64_t seed) {
  kbench::case_record& c = run.cases.emplace_back();
  c.case_name = name;
  c.shape = std::move(shape);
  c.verdict = kbench::case_verdict::pass;
  kbench::timing_result t;
  t.mode = kbench::timing_mode::cold;
  set_samples(t, samples_around(seconds, seed), samples_around(2 * seconds, seed + 1000));
  c.timing = t;
}

// Three cases, every sample within 1% of its kernel's time; `seed` picks the noise.
kbench::run_record sample_run(std::uint64_t seed = 1) {
  kbench::run_record run;
  run.mode = kbench::run_mode::perf;
  run.kbench_version = "0.1.0";
  run.compiler = "test";
  run.device.usable = true;
  run.device.name = "Test GPU";
  add_case(run, "rmsnorm", {{"rows", 4096}, {"cols", 1024}}, 20e-6, seed);
  add_case(run, "rmsnorm", {{"rows", 4096}, {"cols", 2048}}, 40e-6, seed + 1);
  add_case(run, "softmax", {{"rows", 8192}, {"cols", 4096}}, 1.5e-3, seed + 2);
  return run;
}

json json_of(const kbench::run_record& run) { return json::parse(kbench::to_json(run)); }

// The run as its document gives it back, as a file's is.
kbench::run_record document(const kbench::run_record& run) { return kbench::read_results(json_of(run)); }

// Scales the optimized kernel's samples of case `index` (and its reference's, by `reference`).
kbench::run_record scaled(kbench::run_record run, std::size_t index, double optimized, double reference = 1.0) {
  kbench::timing_result& t = *run.cases[index].timing;
  std::vector<double> o = t.optimized_samples, r = t.reference_samples;
  for (double& s : o) s *= optimized;
  for (double& s : r) s *= reference;
  set_samples(t, o, r);
  return run;
}

const kbench::baseline_case& find(const kbench::baseline_report& r, const std::string& label) {
  const auto it =
      std::find_if(r.cases.begin(), r.cases.end(), [&](const kbench::baseline_case& c) { return c.label == label; });
  REQUIRE(it != r.cases.end());
  return *it;
}

}  // namespace

TEST_CASE("the same samples are the same everywhere", "[baseline]") {
  const kbench::run_record doc = document(sample_run());
  const kbench::baseline_report r = kbench::compare_with_baseline(doc, doc, {});
  REQUIRE(r.cases.size() == 3);
  for (const kbench::baseline_case& c : r.cases) {
    CHECK(c.change == kbench::time_change::same);
    CHECK(c.optimized->ratio == 1.0);
    CHECK(c.optimized->ci->contains(1.0));
    CHECK(c.notes.empty());
  }
  CHECK(r.cases[0].label == "rmsnorm/rows=4096/cols=1024");
  CHECK_FALSE(r.regressed());
  CHECK(*r.geomean_ratio == Approx(1.0));
  CHECK(r.added.empty());
  CHECK(r.missing.empty());
  CHECK(r.warnings.empty());
  const std::string text = kbench::format_baseline(r);
  CHECK_THAT(text, kbench_test::contains("rmsnorm/rows=4096/cols=1024"));
  CHECK_THAT(text, kbench_test::contains("20.00 us"));  // report.hpp's durations
  CHECK_THAT(text, kbench_test::contains("1.000 ("));
  CHECK(text.substr(text.rfind("baseline:")) == "baseline: 3 same, 0 faster, 0 slower, 0 now failing\n");
}

TEST_CASE("one case 1.3x slower is slower, alone, and a regression", "[baseline]") {
  const kbench::run_record before = sample_run();
  const kbench::baseline_report r = kbench::compare_with_baseline(document(before), document(scaled(before, 1, 1.3)));
  CHECK(find(r, "rmsnorm/rows=4096/cols=1024").change == kbench::time_change::same);
  const kbench::baseline_case& slow = find(r, "rmsnorm/rows=4096/cols=2048");
  CHECK(slow.change == kbench::time_change::slower);
  CHECK(slow.optimized->ratio == Approx(1.3));
  CHECK(slow.optimized->ci->low > 1.05);
  CHECK(slow.optimized->ci->contains(slow.optimized->ratio));
  CHECK(slow.reference->ratio == 1.0);
  CHECK(slow.notes.empty());  // the reference did not move: the kernel did
  CHECK(find(r, "softmax/rows=8192/cols=4096").change == kbench::time_change::same);
  CHECK(r.regressed());
  CHECK(*r.geomean_ratio == Approx(std::cbrt(1.3)));
  const std::string text = kbench::format_baseline(r);
  CHECK_THAT(text, kbench_test::contains("slower"));
  CHECK_THAT(text, kbench_test::contains("baseline: 2 same, 0 faster, 1 slower, 0 now failing"));
  const json j = kbench::to_json(r);
  CHECK(j["schema"] == "kbench-baseline/1");
  CHECK(j["regressed"] == true);
  CHECK(j["counts"]["slower"] == 1);
  CHECK(j["cases"][1]["verdict"] == "slower");
  CHECK(j["cases"][1]["shape"]["cols"] == 2048);
  CHECK(j["cases"][1]["ratio_interval"]["low"].get<double>() > 1.05);
  const std::string markdown = kbench::to_markdown(r);
  CHECK_THAT(markdown, kbench_test::contains("| case | baseline | current | ratio (95% interval) |"));
  CHECK_THAT(markdown, kbench_test::contains("| rmsnorm/rows=4096/cols=2048 | 39.92 us | 51.90 us | 1.300 ("));
  CHECK_THAT(markdown, kbench_test::contains("**baseline: 2 same, 0 faster, 1 slower, 0 now failing**"));
}

TEST_CASE("one case 0.7x the time is faster, and no regression", "[baseline]") {
  const kbench::run_record before = sample_run();
  const kbench::baseline_report r = kbench::compare_with_baseline(document(before), document(scaled(before, 2, 0.7)));
  CHECK(find(r, "softmax/rows=8192/cols=4096").change == kbench::time_change::faster);
  CHECK(find(r, "rmsnorm/rows=4096/cols=2048").change == kbench::time_change::same);
  CHECK_FALSE(r.regressed());
  CHECK(r.count(kbench::time_change::faster) == 1);
}

TEST_CASE("1% noise in fresh samples stays within a 5% threshold; a 0.5% threshold sees a 3% change", "[baseline]") {
  const kbench::run_record before = document(sample_run(1)), now = document(sample_run(77));
  const kbench::baseline_report r = kbench::compare_with_baseline(before, now, {0.05, 2000});
  for (const kbench::baseline_case& c : r.cases) {
    CHECK(c.change == kbench::time_change::same);
    CHECK(c.optimized->ratio != 1.0);  // other draws, so not trivially the same
  }
  CHECK_FALSE(r.regressed());
  const kbench::baseline_report strict =
      kbench::compare_with_baseline(before, document(scaled(sample_run(77), 0, 1.03)), {0.005, 2000});
  CHECK(strict.cases[0].change == kbench::time_change::slower);
}

TEST_CASE("the reference moving as much says the machine moved", "[baseline]") {
  const kbench::run_record before = sample_run();
  const kbench::baseline_report r =
      kbench::compare_with_baseline(document(before), document(scaled(before, 0, 1.3, 1.3)));
  const kbench::baseline_case& c = r.cases[0];
  CHECK(c.change == kbench::time_change::slower);
  REQUIRE(c.notes.size() == 2);
  CHECK_THAT(c.notes[0], kbench_test::contains("the reference's time moved (1.300x)"));
  CHECK_THAT(c.notes[1], kbench_test::contains("the reference moved as much (1.300x)"));
  CHECK_THAT(kbench::format_baseline(r), kbench_test::contains("note: the reference moved as much"));
}

TEST_CASE("cases in one run only are added or missing; missing is a warning, not a regression", "[baseline]") {
  kbench::run_record now = sample_run();
  now.cases.pop_back();  // softmax
  add_case(now, "gemv", {{"n", 4096}}, 10e-6, 9);
  const kbench::baseline_report r = kbench::compare_with_baseline(document(sample_run()), document(now));
  CHECK(r.cases.size() == 2);
  CHECK(r.added == std::vector<std::string>{"gemv/n=4096"});
  CHECK(r.missing == std::vector<std::string>{"softmax/rows=8192/cols=4096"});
  CHECK_FALSE(r.regressed());
  const std::string text = kbench::format_baseline(r);
  CHECK_THAT(text, kbench_test::contains("added (only in the current run): gemv/n=4096"));
  CHECK_THAT(text, kbench_test::contains("warning: missing (in the baseline, not in the current run): softmax"));
}

TEST_CASE("cases match by name and dims whatever the dims' order", "[baseline]") {
  const kbench::run_record before = document(sample_run());
  json now = json_of(sample_run());
  json& shape = now["cases"][0]["shape"];
  shape = json{{"cols", shape["cols"]}, {"rows", shape["rows"]}};
  const kbench::baseline_report r = kbench::compare_with_baseline(before, kbench::read_results(now));
  CHECK(r.added.empty());
  CHECK(r.missing.empty());
  CHECK(r.cases[0].label == "rmsnorm/cols=1024/rows=4096");  // labelled as the current run writes it
}

TEST_CASE("a case that passed and fails now is a regression", "[baseline]") {
  kbench::run_record now = sample_run();
  now.cases[2].verdict = kbench::case_verdict::fail;
  now.cases[2].timing.reset();  // a wrong kernel is never timed
  now.cases[1].verdict = kbench::case_verdict::error;
  const kbench::baseline_report r = kbench::compare_with_baseline(document(sample_run()), document(now));
  const kbench::baseline_case& failing = find(r, "softmax/rows=8192/cols=4096");
  CHECK(failing.now_fails);
  CHECK(failing.change == kbench::time_change::not_timed);
  CHECK(find(r, "rmsnorm/rows=4096/cols=2048").now_fails);  // still timed, but erred
  CHECK(r.regressed());
  CHECK(r.now_failing() == 2);
  const std::string text = kbench::format_baseline(r);
  CHECK_THAT(text, kbench_test::contains("now fails (fail)"));
  CHECK_THAT(text, kbench_test::contains("baseline: 1 same, 0 faster, 0 slower, 2 now failing"));
  CHECK(*r.geomean_ratio == Approx(1.0));  // over the two cases timed in both runs
}

TEST_CASE("another device, compiler or kbench version is a warning", "[baseline]") {
  kbench::run_record now = sample_run();
  now.device.name = "Other GPU";
  now.compiler = "other";
  const kbench::baseline_report r = kbench::compare_with_baseline(document(sample_run()), document(now));
  REQUIRE(r.warnings.size() == 2);
  CHECK(r.warnings[0] == "device differs: baseline \"Test GPU\", current \"Other GPU\"");
  CHECK_THAT(r.warnings[1], kbench_test::contains("compiler differs"));
  CHECK_FALSE(r.regressed());
  CHECK_THAT(kbench::format_baseline(r), kbench_test::contains("warning: device differs"));
}

TEST_CASE("runs without raw samples are judged on their medians, and say so", "[baseline]") {
  const kbench::run_record before = document(sample_run());
  json now = json_of(scaled(sample_run(), 0, 1.3));
  for (json& c : now["cases"]) c["timing"].erase("samples");  // a file from before the samples were written
  const kbench::baseline_report r = kbench::compare_with_baseline(before, kbench::read_results(now));
  CHECK_FALSE(r.cases[0].optimized->ci.has_value());
  CHECK(r.cases[0].change == kbench::time_change::slower);
  CHECK_THAT(r.cases[0].notes.at(0), kbench_test::contains("judged on the medians alone"));
}

TEST_CASE("the unpaired bootstrap is seeded and brackets the ratio of medians", "[baseline]") {
  const std::vector<double> a = samples_around(2.0, 3), b = samples_around(1.0, 4);
  const kbench::interval first = kbench::detail::ratio_of_medians_interval_unpaired(a, b);
  const kbench::interval again = kbench::detail::ratio_of_medians_interval_unpaired(a, b);
  CHECK(first.low == again.low);
  CHECK(first.high == again.high);
  CHECK(first.contains(2.0));
  CHECK(first.high - first.low < 0.02);  // 1% noise, 101 samples each
  const kbench::interval constant = kbench::detail::ratio_of_medians_interval_unpaired({3.0, 3.0}, {1.5});
  CHECK(constant.low == 2.0);
  CHECK(constant.high == 2.0);
  CHECK_THROWS_AS(kbench::detail::ratio_of_medians_interval_unpaired({}, {1.0}), kbench::usage_error);
}

TEST_CASE("a bad threshold is a usage error", "[baseline]") {
  const kbench::run_record doc = document(sample_run());
  CHECK_THROWS_AS(kbench::compare_with_baseline(doc, doc, {-0.1, 2000}), kbench::usage_error);
  CHECK_THROWS_AS(kbench::compare_with_baseline(doc, doc, {0.05, 0}), kbench::usage_error);
}

TEST_CASE("load_results reads perf runs and refuses anything else, naming the file", "[baseline]") {
  const char* path = "kbench_baseline_test.json";
  auto write = [&](const std::string& text) {
    std::ofstream(path) << text;
  };
  auto refusal = [&]() -> std::string {
    try {
      (void)kbench::load_results(path);
    } catch (const kbench::usage_error& e) {
      return e.what();
    }
    return "no error";
  };
  write(kbench::to_json(sample_run()));
  CHECK(kbench::load_results(path).cases.size() == 3);
  write("{\"schema\": \"kbench-results/2\", \"mode\": \"perf\", \"cases\": []}");
  CHECK_THAT(refusal(), kbench_test::contains("'kbench_baseline_test.json' has schema \"kbench-results/2\""));
  write("{\"cases\": []");
  CHECK_THAT(refusal(), kbench_test::contains("is not JSON"));
  kbench::run_record correctness = sample_run();
  correctness.mode = kbench::run_mode::correctness;
  write(kbench::to_json(correctness));
  CHECK_THAT(refusal(), kbench_test::contains("is not a perf run"));
  write("{\"schema\": \"kbench-results/1\", \"mode\": \"perf\", \"cases\": [{\"case\": \"x\"}]}");
  CHECK_THAT(refusal(), kbench_test::contains("malformed case (number 0)"));
  std::remove(path);
  CHECK_THROWS_AS(kbench::load_results("/nonexistent-dir/results.json"), kbench::usage_error);
  CHECK_THAT(refusal(), kbench_test::contains("'kbench_baseline_test.json' cannot be opened"));
}

// ---- the test itself changed: declarations, kernels, a reference that moved, a run cut short ----------

namespace {

// A census side whose kernels' digest `symbol` sets.
kbench::census_side side_with(const std::string& symbol) {
  kbench::census_side side;
  side.captured = true;
  side.kernels.emplace_back().symbol = symbol;
  return side;
}

// Each case with a declaration ("case <name>", and `declaration`) and each side's kernels, read back.
void set_digests(kbench::case_record& c, const std::string& declaration, const std::string& reference,
                 const std::string& optimized) {
  c.declaration = {"case " + c.case_name, declaration};
  c.census.emplace();
  c.census->reference = side_with(reference);
  c.census->optimized = side_with(optimized);
}

kbench::run_record with_digests(kbench::run_record run) {
  for (kbench::case_record& c : run.cases) set_digests(c, "1", "a1", "b1");
  return document(run);
}

}  // namespace

TEST_CASE("a reference made slower fails, unless the change is intended", "[baseline]") {
  const kbench::run_record before = sample_run();
  const kbench::run_record old = document(before), now = document(scaled(before, 2, 1.0, 1.5));  // the optimized kernel as it was
  const kbench::baseline_report r = kbench::compare_with_baseline(old, now);
  const kbench::baseline_case& c = find(r, "softmax/rows=8192/cols=4096");
  CHECK(c.change == kbench::time_change::same);
  CHECK(c.reference_change == kbench::time_change::slower);
  CHECK(c.reference_fails);
  CHECK(c.regressed());
  CHECK(r.regressed());
  CHECK(r.reference_moved() == std::vector<std::string>{"softmax/rows=8192/cols=4096"});
  const std::string text = kbench::format_baseline(r);
  CHECK_THAT(text, kbench_test::contains("same, reference slower"));
  CHECK_THAT(text, kbench_test::contains("reference time moved beyond 5% (a failure unless --intended-change): softmax"));
  CHECK_THAT(text, kbench_test::contains("baseline: 3 same, 0 faster, 0 slower, 0 now failing, 1 reference moved\n"));
  CHECK(kbench::to_json(r)["cases"][2]["reference_fails"] == true);
  // A reference made faster moves too: the speedup is against another reference either way.
  CHECK(kbench::compare_with_baseline(old, document(scaled(before, 2, 1.0, 0.6))).regressed());
  // Said to be intended: noted, and no regression.
  kbench::baseline_options intended;
  intended.intended_change = true;
  const kbench::baseline_report meant = kbench::compare_with_baseline(old, now, intended);
  CHECK_FALSE(meant.regressed());
  CHECK_FALSE(find(meant, "softmax/rows=8192/cols=4096").reference_fails);
  CHECK_THAT(find(meant, "softmax/rows=8192/cols=4096").notes.at(0), kbench_test::contains("an intended change"));
  CHECK_THAT(kbench::format_baseline(meant), kbench_test::contains("1 reference moved (intended)"));
  CHECK(kbench::to_json(meant)["intended_change"] == true);
  // Still a regression when the optimized kernel itself got slower.
  CHECK(kbench::compare_with_baseline(old, document(scaled(before, 2, 1.3, 1.5)), intended).regressed());
}

TEST_CASE("a changed declaration is listed, with the case, and is no regression by itself", "[baseline]") {
  const kbench::run_record old = with_digests(sample_run());
  kbench::run_record now = with_digests(sample_run());
  now.cases[1].declaration.back() = "2";
  const kbench::baseline_report r = kbench::compare_with_baseline(old, now);
  const kbench::baseline_case& c = find(r, "rmsnorm/rows=4096/cols=2048");
  CHECK(c.declaration_changed);
  CHECK(c.test_changed());
  CHECK_FALSE(find(r, "rmsnorm/rows=4096/cols=1024").test_changed());
  CHECK(r.changed_tests() == std::vector<std::string>{"rmsnorm/rows=4096/cols=2048"});
  CHECK_FALSE(r.regressed());
  const std::string text = kbench::format_baseline(r);
  CHECK_THAT(text, kbench_test::contains("note: the declaration changed"));
  CHECK_THAT(text, kbench_test::contains("test changed (its declaration or its reference's kernels differ from the baseline's): rmsnorm/rows=4096/cols=2048"));
  CHECK_THAT(text, kbench_test::contains(", 1 test changed\n"));
  const json j = kbench::to_json(r);
  CHECK(j["cases"][1]["declaration_changed"] == true);
  CHECK(j["changed_tests"].size() == 1);
}

TEST_CASE("the reference's kernels changing is a changed test; the optimized kernels', a note", "[baseline]") {
  const kbench::run_record old = with_digests(sample_run());
  kbench::run_record now = with_digests(sample_run());
  now.cases[0].census->reference = side_with("a2");
  now.cases[2].census->optimized = side_with("b2");
  const kbench::baseline_report r = kbench::compare_with_baseline(old, now);
  CHECK(r.cases[0].reference_kernels_changed);
  CHECK(r.cases[0].test_changed());
  CHECK(r.cases[2].optimized_kernels_changed);
  CHECK_FALSE(r.cases[2].test_changed());
  CHECK_THAT(r.cases[2].notes.at(0), kbench_test::contains("the optimized kernels changed"));
  CHECK(r.changed_tests() == std::vector<std::string>{"rmsnorm/rows=4096/cols=1024"});
  // A digest that one run lacks (a correctness run, a side not captured) is no change.
  now.cases[0].census.reset();
  CHECK(kbench::compare_with_baseline(old, now).changed_tests().empty());
}

TEST_CASE("a current run cut short fails the comparison; a baseline cut short is a warning", "[baseline]") {
  const kbench::run_record complete = document(sample_run());
  json cut_document = json_of(sample_run());
  cut_document["complete"] = false;
  cut_document["incomplete_reason"] = "the program ended with status 0 during softmax/rows=8192/cols=4096";
  const kbench::run_record cut = kbench::read_results(cut_document);
  const kbench::baseline_report r = kbench::compare_with_baseline(complete, cut);
  CHECK(r.regressed());
  CHECK(*r.current_incomplete == "the program ended with status 0 during softmax/rows=8192/cols=4096");
  CHECK_THAT(kbench::format_baseline(r), kbench_test::contains("the current run is incomplete, so it fails: the program ended"));
  CHECK(kbench::to_json(r)["current_incomplete"].is_string());
  const kbench::baseline_report against_cut = kbench::compare_with_baseline(cut, complete);
  CHECK_FALSE(against_cut.regressed());
  REQUIRE(against_cut.warnings.size() == 1);
  CHECK_THAT(against_cut.warnings[0], kbench_test::contains("the baseline run is incomplete"));
}

TEST_CASE("a baseline without declarations, against a run with them, is a warning", "[baseline]") {
  json old = json_of(sample_run());
  for (json& c : old["cases"]) c.erase("declaration");  // a file from before the declarations were written
  const kbench::baseline_report r = kbench::compare_with_baseline(kbench::read_results(old), with_digests(sample_run()));
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], kbench_test::contains("the baseline carries no declarations"));
  CHECK(r.changed_tests().empty());
}

}  // namespace unit_baseline_test
