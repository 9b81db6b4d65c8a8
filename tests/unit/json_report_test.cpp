// json_report.hpp: the machine-readable results, parsed back and checked key by key.
#include <kbench/reports/json_report.hpp>
#include <kbench/engines/comparison.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <vector>

#include "../catch.hpp"

namespace unit_json_report_test {  // one per file: the unit tests compile in unity batches

namespace tol = kbench::tol;
using kbench::dtype;

namespace {

kbench::run_record sample_run() {
  kbench::run_record run;
  run.mode = kbench::run_mode::perf;
  run.kbench_version = "0.1.0";
  run.compiler = "test";
  run.device.usable = true;
  run.device.platform = "nvidia";
  run.device.name = "Test GPU";
  run.copy = kbench::copy_bandwidth{4e12, 1u << 30, kbench::summarize({5e-4, 5.1e-4})};
  kbench::case_record& c = run.cases.emplace_back();
  c.case_name = "rmsnorm";
  c.shape = kbench::shape{{"rows", 2}, {"cols", 3}};
  c.verdict = kbench::case_verdict::pass;
  static const std::vector<float> e{1, 2, 3, 4, 5, 6}, a{1, 2, 3, 4, 5, 7};
  kbench::seed_result s;
  s.seed = 0xABCDEF;
  s.outputs.push_back({"y", dtype::f32, {2, 3},
                       kbench::compare({a.data(), dtype::f32, 6, {2, 3}}, {e.data(), dtype::f32, 6, {2, 3}},
                                       kbench::make_tolerance(tol::allclose{1e-3, 1e-5}))});
  c.checks.push_back(s);
  kbench::timing_result t;
  t.mode = kbench::timing_mode::cold;
  t.optimized = kbench::summarize({1e-4, 1.1e-4, 1.2e-4});
  t.reference = kbench::summarize({2e-4, 2.1e-4, 2.2e-4});
  t.speedup = 1.9;
  t.speedup_interval = {1.8, 2.0};
  t.verdict = kbench::speedup_verdict::faster;
  t.work.bytes = 2e8;
  t.throughput = kbench::throughput_of(t.work, t.optimized.median, t.reference->median, 4e12);
  t.findings.push_back({kbench::finding_kind::unseen_work, "a flag"});
  c.timing = t;
  return run;
}

}  // namespace

TEST_CASE("a run serialises every verdict, metric, tolerance and timing", "[json]") {
  const auto doc = nlohmann::json::parse(kbench::to_json(sample_run()));
  CHECK(doc["schema"] == "kbench-results/1");
  CHECK(doc["mode"] == "perf");
  CHECK(doc["device"]["name"] == "Test GPU");
  CHECK(doc["copy_bandwidth"]["bytes_per_second"] == 4e12);
  const auto& c = doc["cases"].at(0);
  CHECK(c["case"] == "rmsnorm");
  CHECK(c["shape"]["rows"] == 2);
  CHECK(c["verdict"] == "pass");
  const auto& check = c["checks"].at(0);
  CHECK(check["seed"] == "0xabcdef");
  CHECK(check["passed"] == false);
  const auto& out = check["outputs"].at(0);
  CHECK(out["dtype"] == "fp32");
  CHECK(out["metrics"]["mismatches"] == 1);
  CHECK(out["metrics"]["max_abs_index"] == 5);
  CHECK(out["tolerance"]["description"] == "allclose(rtol=0.001, atol=1e-05)");
  CHECK(out["tolerance"]["element_rules"].at(0)["kind"] == "within");
  CHECK(out["first_mismatches"].at(0)["index"] == 5);
  const auto& timing = c["timing"];
  CHECK(timing["optimized"]["median"] == 1.1e-4);
  CHECK(timing["speedup"] == 1.9);
  CHECK(timing["throughput"]["fraction_of_copy_bandwidth"].get<double>() == Approx(2e8 / 1.1e-4 / 4e12));
  CHECK(timing["flags"].at(0) == "a flag");
  CHECK(timing["findings"].at(0)["source"] == "timing");
  CHECK(check["findings"].is_array());
}

TEST_CASE("the time saved: per call with its interval, per layer and per token null where undeclared", "[json]") {
  kbench::run_record run = sample_run();
  kbench::timing_result& t = *run.cases.front().timing;
  t.work.calls_per_layer = 32;
  t.saved = kbench::time_saved{{1e-4, {0.9e-4, 1.1e-4}}, kbench::saved_seconds{3.2e-3, {2.88e-3, 3.52e-3}}, std::nullopt};
  const auto doc = nlohmann::json::parse(kbench::to_json(run));
  const auto& saved = doc["cases"][0]["timing"]["time_saved"];
  CHECK(saved["per_call"]["seconds"] == 1e-4);
  CHECK(saved["per_call"]["low"] == 0.9e-4);
  CHECK(saved["per_call"]["high"] == 1.1e-4);
  CHECK(saved["per_layer"]["seconds"] == 3.2e-3);
  CHECK(saved["per_token"].is_null());
  CHECK(doc["cases"][0]["timing"]["work"]["calls_per_layer"] == 32);
  CHECK(doc["cases"][0]["timing"]["work"]["calls_per_token"] == 0);
  t.saved.reset();  // a host reference
  CHECK(nlohmann::json::parse(kbench::to_json(run))["cases"][0]["timing"]["time_saved"].is_null());
}

TEST_CASE("numbers that are not finite become strings, absent values null", "[json]") {
  kbench::run_record run = sample_run();
  run.copy.reset();
  kbench::timing_result& t = *run.cases.front().timing;
  t.throughput = kbench::throughput_of(t.work, t.optimized.median, t.reference->median, 0.0);  // copy unknown
  run.cases.front().timing->speedup = std::numeric_limits<double>::quiet_NaN();
  run.cases.front().checks.front().outputs.front().result.max_rel_error = std::numeric_limits<double>::infinity();
  const auto doc = nlohmann::json::parse(kbench::to_json(run));
  CHECK(doc["copy_bandwidth"].is_null());
  CHECK(doc["cases"][0]["timing"]["speedup"] == "nan");
  CHECK(doc["cases"][0]["timing"]["throughput"]["fraction_of_copy_bandwidth"].is_null());
  CHECK(doc["cases"][0]["checks"][0]["outputs"][0]["metrics"]["max_rel_error"] == "inf");
}

TEST_CASE("an unwritable JSON path is an error", "[json]") {
  CHECK_THROWS_AS(kbench::write_json(sample_run(), "/nonexistent-dir/results.json"), kbench::error);
  const char* path = "kbench_json_report_test.json";
  kbench::write_json(sample_run(), path);
  std::ifstream file(path);
  CHECK(nlohmann::json::parse(file)["cases"].size() == 1);
  std::remove(path);
}

}  // namespace unit_json_report_test
