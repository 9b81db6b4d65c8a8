// json_read.hpp: a results document read back into the structs it was written from. Typed -> JSON -> typed -> JSON
// gives the same JSON for runs of every shipped kernel family, in every mode; the documents an earlier kbench
// wrote (tests/data/) read without loss; what a document cannot be is a usage error naming it.
#include <kbench/reports/json_read.hpp>
#include <kbench/reports/json_report.hpp>
#include <kbench/reports/results_document.hpp>
#include <kbench/engines/comparison.hpp>
#include <kbench/program/child_report.hpp>

#include <cmath>
#include <cstdint>
#include <deque>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_json_read_test {  // one per file: the unit tests compile in unity batches

using json = nlohmann::ordered_json;
using kbench::dtype;
using kbench::finding_kind;
namespace tol = kbench::tol;

namespace {

const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

// An output compared by the host engine: `actual` against `expected`, both stored as `type` (codes as doubles).
kbench::output_result compared(const std::string& name, dtype type, const std::vector<double>& actual,
                               const std::vector<double>& expected, const kbench::tolerance& t,
                               std::vector<std::size_t> extents) {
  auto stored = [type](const std::vector<double>& values) {
    std::vector<unsigned char> bytes(values.size() * kbench::info(type).size);
    for (std::size_t i = 0; i < values.size(); ++i) kbench::store_from_double(bytes.data(), type, i, values[i]);
    return bytes;
  };
  const std::vector<unsigned char> a = stored(actual), e = stored(expected);
  kbench::output_result o{name, type, extents, {}, std::nullopt};
  o.result = kbench::compare({a.data(), type, actual.size(), extents}, {e.data(), type, expected.size(), extents}, t);
  return o;
}

// A correctness run's check of one seed, with its findings.
kbench::seed_result check(std::uint64_t seed, std::vector<kbench::output_result> outputs,
                          std::vector<kbench::finding> problems = {}) {
  kbench::seed_result s;
  s.seed = seed;
  s.outputs = std::move(outputs);
  s.problems = std::move(problems);
  s.edge_runs = 3;
  s.spike_runs = 2;
  s.stage_seconds = {{"optimized", 0.004}, {"under load", 0.0}, {"alignment", 0.25}, {"bounds", 0.0625}};
  return s;
}

// A timing as judge_timing leaves it, clocks and roofline with it; `host` times no reference.
kbench::timing_result timing(double optimized, double reference, bool host) {
  kbench::timing_result t;
  t.mode = optimized < 10e-6 ? kbench::timing_mode::batch : kbench::timing_mode::cold;
  t.method = "cold: a flush before each launch";
  t.launches_per_sample = t.mode == kbench::timing_mode::batch ? 100 : 1;
  t.warmup = 10;
  t.input_sets = 4;
  t.input_sets_wanted = 8;
  t.input_set_bytes = 1.5e6;
  for (int i = 0; i < 12; ++i) {
    t.optimized_samples.push_back(optimized * (1.0 + 0.001 * i));
    if (!host) t.reference_samples.push_back(reference * (1.0 + 0.002 * i));
  }
  t.optimized = kbench::summarize(t.optimized_samples);
  if (!host) t.reference = kbench::summarize(t.reference_samples);
  t.precision_target = 0.005;
  t.optimized_precision = 0.0012;
  t.reference_precision = host ? 0.0 : 0.0031;
  t.precise = true;
  t.speedup = host ? qnan : reference / optimized;
  t.speedup_interval = host ? kbench::interval{qnan, qnan} : kbench::interval{1.9, 2.1};
  t.verdict = host ? kbench::speedup_verdict::none : kbench::speedup_verdict::faster;
  t.idle_wait = 1.2e-6;
  t.single_launch = t.fresh_launch = t.seen_launch = optimized + 2e-6;
  t.latency = optimized;
  t.hot_latency = 0.9 * optimized;
  t.launch_wall = 9e-6;
  t.launch_call = 3e-6;
  t.saturated_call = 3.5e-6;
  t.saturation = 20e-3;
  if (t.mode == kbench::timing_mode::batch) t.reference_graph_operations = t.optimized_graph_operations = 100;
  t.work.bytes = 2e8;
  t.work.flops = 4e8;
  t.work.flop_type = dtype::f16;
  t.work.tokens = 37;
  t.expectations.required_speedup = 1.5;
  t.expectations.max_plausible_speedup = 25.0;
  t.expectations.speedup_limit_declared = true;
  t.checks = {1200, 12, 1.0 - std::pow(0.01, 1.0 / 12), ""};
  t.clocks.measured = true;
  t.clocks.highest_hz = 1980e6;
  t.clocks.throttle_threshold = 0.9;
  t.clocks.optimized_hz.assign(t.optimized_samples.size(), 1755e6);
  t.clocks.optimized_hz[3] = qnan;  // not read for that sample: null
  if (!host) t.clocks.reference_hz.assign(t.reference_samples.size(), 1740e6);
  t.clocks.optimized = kbench::summarize_clocks(t.clocks.optimized_hz);
  t.clocks.reference = kbench::summarize_clocks(t.clocks.reference_hz);
  t.clocks.throttled_hz = {1.2e9};
  t.clocks.speedup_in_cycles = host ? qnan : 2.02;
  t.throughput = kbench::throughput_of(t.work, t.optimized.median, host ? std::nullopt : std::optional<double>(reference), 4e12);
  kbench::roofline_ceilings ceilings;
  ceilings.memory_bytes_per_second = 4.4e12;
  const kbench::compute_peak peak{dtype::f16, 131e12, "packed fp16 FMA (two a lane)"};
  ceilings.peak = &peak;
  ceilings.memory_binds = t.mode == kbench::timing_mode::cold;
  t.roofline = kbench::roofline_of(t.work, ceilings, t.optimized.median, t.reference ? std::optional<double>(t.reference->median) : std::nullopt);
  t.saved = kbench::time_saved_of(t.work, t.optimized.median, t.reference ? std::optional<double>(t.reference->median) : std::nullopt,
                                  t.optimized_samples, t.reference_samples);
  t.findings = {{finding_kind::throttled, "3 samples ran below 90% of the highest clock"},
                {finding_kind::note, "batch mode: launches back to back"}};
  return t;
}

// A census of a fusion: three reference kernels against one, figures the runtime would not give left at -1.
kbench::case_census census(const std::string& platform) {
  kbench::case_census c;
  c.platform = platform;
  c.profiler_launches = 3;
  c.profiler_ranges = "NVTX";
  kbench::census_side& reference = c.reference.emplace();
  reference.captured = true;
  reference.kernels.resize(3);
  reference.kernels[1].name = "reduce<256>";
  reference.kernels[1].symbol = "_Z6reduceILi256EEvv";
  reference.copies = 1;
  reference.copies_seconds = 2e-6;
  reference.whole_seconds = 3.1e-5;
  c.optimized.captured = true;
  kbench::census_kernel& fused = c.optimized.kernels.emplace_back();
  fused.name = "fused_kernel<4>";
  fused.symbol = "_Z12fused_kernelILi4EEvv";
  fused.grid[0] = 148;
  fused.block[0] = 256;
  fused.dynamic_shared_bytes = 512;
  fused.registers = 40;
  fused.static_shared_bytes = 1024;
  fused.local_bytes = 0;
  fused.max_threads_per_block = 1024;
  fused.built_registers = 40;
  fused.built_static_shared_bytes = 1024;
  fused.built_local_bytes = 16;
  fused.blocks_per_unit = 6;
  fused.waves_per_unit = 48;
  fused.waves_per_simd = platform == "amd" ? 2.5 : -1.0;
  fused.occupancy = 0.75;
  fused.median_seconds = 9e-6;
  fused.in_side_seconds = 9.5e-6;
  c.optimized.memsets = 1;
  c.findings = {{finding_kind::census_mismatch, "2 kernels, the case expects 1"}};
  return c;
}

kbench::case_record& add_case(kbench::run_record& run, const std::string& name, kbench::shape shape,
                              kbench::case_verdict verdict) {
  kbench::case_record& c = run.cases.emplace_back();
  c.case_name = name;
  c.shape = std::move(shape);
  c.verdict = verdict;
  c.wall_seconds = 0.42;
  c.devices = {0};
  c.declaration = {"case " + name, "output y fp16"};
  return c;
}

// Every shipped kernel family, each with what its family brings: fp16, bf16 and fp8 outputs, integer ones
// (argmax's indices, quant_int8's codes), a host reference, an oracle, a slack audit, findings of several kinds,
// parameters and a neighbour shape, numbers that are not finite.
kbench::run_record family_run(kbench::run_mode mode) {
  kbench::run_record run;
  run.mode = mode;
  run.kbench_version = "0.1.0";
  run.compiler = "nvcc 12.6.85, host gcc 12.2.0";
  run.device = {true, "", 0, "--device", "0000:19:00.0", "nvidia", "NVIDIA H200", "sm_90", 132, 32, 150e9, 60e6, 1980e6, 0.21};
  run.warmup = 10;
  run.iterations = 100;
  run.quick = mode == kbench::run_mode::correctness;
  const bool perf = mode == kbench::run_mode::perf;
  if (perf) {
    run.copy = kbench::copy_bandwidth{4e12, std::size_t{1} << 30, kbench::summarize({5.36e-4, 5.39e-4}), 4.4e12};
    run.timer_floor = kbench::timer_floor{2.1e-6, 3.4e-6, 1.1e-6, 9.5e-6};
    run.compute_peaks = {{dtype::f32, 66e12, "fp32 FMA"}, {dtype::bf16, 0.0, "no bf16 peak on this device"}};
    run.clock_setting = kbench::clock_control{"NVML", false, 0.0, 1980e6, "SM clock 1980 MHz as read"};
    run.ceilings_seconds = 0.31;
  }
  const kbench::tolerance ulp1 = kbench::make_tolerance(tol::ulp{1});
  const kbench::tolerance exact = kbench::make_tolerance(tol::exact{});
  kbench::case_record& rms = add_case(run, "rmsnorm", {{"rows", 37}, {"cols", 4}}, kbench::case_verdict::pass);
  rms.checks.push_back(check(0x6b62, {compared("y", dtype::f16, {1, 2, 3, 4}, {1, 2, 3, 4.001}, ulp1, {1, 4})}));
  kbench::case_record& add = add_case(run, "add_rmsnorm_bf16", {{"rows", 2}, {"cols", 3}}, kbench::case_verdict::fail);
  add.checks.push_back(check(1, {compared("x", dtype::bf16, {1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 7}, ulp1, {2, 3}),
                                 compared("res", dtype::bf16, {1, 2}, {1, 2}, exact, {2})},
                             {{finding_kind::stray_write, "x: 4 bytes written past its end"},
                              {finding_kind::note, "the reference ran on the host"}}));
  add.message = "a wrong kernel";
  kbench::case_record& soft = add_case(run, "softmax", {{"rows", 3}, {"cols", 2}}, kbench::case_verdict::pass);
  kbench::output_result y = compared("y", dtype::f16, {0.5, 0.25, 0.25, 1, 0, 0}, {0.5, 0.25, 0.25, 1, 0, 0},
                                     kbench::make_tolerance(tol::ulp{1} && tol::cosine{0.999}), {3, 2});
  y.oracle = kbench::oracle_result{0.12, 0.13, 1, 2, 0.241};
  soft.checks.push_back(check(2, {y}));
  soft.checks[0].host_reference = kbench::host_run{1e6, 1e-3, 2e-3};
  kbench::case_record& arg = add_case(run, "argmax_fp16", {{"batch", 3}, {"vocab", 32001}}, kbench::case_verdict::fail);
  arg.checks.push_back(check(3, {compared("index", dtype::i32, {7, 31999, 5}, {7, 32000, 5}, exact, {3})},
                             {{finding_kind::edge_value, "wrong at ties"}, {finding_kind::misaligned, "off by 2 bytes"},
                              {finding_kind::out_of_bounds, "with 'logits' ending where unmapped memory starts"}}));
  kbench::case_record& q8 = add_case(run, "quant_int8", {{"rows", 1}, {"cols", 4}}, kbench::case_verdict::pass);
  q8.checks.push_back(check(4, {compared("codes", dtype::i8, {-127, 0, 64, 127}, {-127, 0, 64, 127}, exact, {1, 4}),
                                compared("scales", dtype::f32, {0.5}, {0.5}, exact, {1})}));
  kbench::case_record& fp8 = add_case(run, "quant_fp8", {{"rows", 1}, {"cols", 4}}, kbench::case_verdict::pass);
  kbench::output_result codes = compared("codes", dtype::f8e4m3, {448, 1, -2, 0.5}, {448, 1, -2, 0.5}, exact, {1, 4});
  fp8.checks.push_back(check(5, {codes}));
  kbench::case_record& gemv = add_case(run, "gemv", {{"n", 8}, {"k", 3}}, kbench::case_verdict::pass);
  kbench::output_result g = compared("y", dtype::f16, std::vector<double>(8, 1.0), {1, 1, 1, 1, 1, 1, 1, 2},
                                     kbench::make_tolerance(tol::allclose{1e-3, 1e-5} && tol::max_mismatch{0.2}), {8});
  g.result.max_rel_error = inf;
  g.result.allowed_at_max_abs = -inf;
  g.result.slack = kbench::slack_audit{1, 10.0, 1000.0, 7, 1, 7, 1, 0.01, {{"elements 7..7", 7, 1, 1, 1}}};
  gemv.checks.push_back(check(6, {g}));
  kbench::case_record& sum = add_case(run, "reduce_sum<2>", {{"n", 1531}}, kbench::case_verdict::pass);
  sum.checks.push_back(check(7, {compared("sum", dtype::f32, {3.5}, {3.5}, kbench::make_tolerance(tol::relative{1e-6}), {1})}));
  kbench::case_record& rope = add_case(run, "rope_bf16", kbench::shape({{"tokens", 37}, {"head_dim", 80}}, {{"theta", 1e4}}),
                                       kbench::case_verdict::pass);
  rope.near_shape = kbench::shape{{"tokens", 36}, {"head_dim", 80}};
  rope.checks.push_back(check(8, {compared("q", dtype::bf16, {1, -1}, {1, -1}, exact, {2})}));
  rope.devices = {0, 1};
  rope.devices_shared = true;
  rope.peer_access = true;
  kbench::case_record& skipped = add_case(run, "rmsnorm", {{"rows", 16384}, {"cols", 8192}}, kbench::case_verdict::filtered);
  skipped.message = "268443648 elements, more than --max-elements 200000";
  skipped.declaration.clear();
  if (perf || mode == kbench::run_mode::census) {
    for (kbench::case_record* c : {&rms, &soft, &gemv}) c->census = census(c == &gemv ? "amd" : "nvidia");
    soft.census->reference.reset();  // a host reference: no census of its side
  }
  if (perf) {
    rms.timing = timing(2e-5, 4e-5, false);
    rms.timing->work.calls_per_layer = 2;  // the time saved per layer and per token too
    rms.timing->work.calls_per_token = 0.25;
    const kbench::timing_result& r = *rms.timing;
    rms.timing->saved = kbench::time_saved_of(r.work, r.optimized.median, r.reference->median, r.optimized_samples, r.reference_samples);
    soft.timing = timing(5e-6, 0.0, true);
    gemv.timing = timing(1e-4, 1.5e-4, false);
    gemv.timing->speedup = inf;
    gemv.timing->findings.push_back({finding_kind::implausible, "a speedup of inf"});
    gemv.timing->checks.limit = "the inputs change in place";
    for (kbench::case_record* c : {&rms, &soft, &gemv}) c->stage_seconds = {{"first check", 0.05}, {"sampling", 1.2}, {"census", 0.01}};
  }
  return run;
}

// The document as text and back, as a file or a child's line carries it.
json through_text(const kbench::run_record& run) { return json::parse(kbench::to_json(run)); }

}  // namespace

TEST_CASE("typed -> JSON -> typed -> JSON gives the same JSON, in every mode", "[json_read]") {
  for (const kbench::run_mode mode : {kbench::run_mode::correctness, kbench::run_mode::perf, kbench::run_mode::census}) {
    const kbench::run_record run = family_run(mode);
    const json first = through_text(run);
    const kbench::run_record back = kbench::read_results(first);
    CHECK(through_text(back).dump(1) == first.dump(1));
    // The structs themselves, where a difference would not show in the JSON.
    REQUIRE(back.cases.size() == run.cases.size());
    CHECK(back.mode == mode);
    CHECK(back.declarations_carried);
    CHECK(back.kernels_digests_carried);
    CHECK(back.cases[1].checks[0].problems.size() == 2);
    CHECK(back.cases[1].checks[0].problems[0].kind == finding_kind::stray_write);
    CHECK(back.cases[1].checks[0].outputs[0].type == dtype::bf16);
    CHECK(back.cases[3].checks[0].outputs[0].type == dtype::i32);
    CHECK(back.cases[3].checks[0].problems.at(2).kind == finding_kind::out_of_bounds);
    CHECK(back.cases[3].checks[0].seed == 3);
    CHECK(back.cases[3].checks[0].stage_seconds == run.cases[3].checks[0].stage_seconds);  // in the run's order
    CHECK(back.cases[8].shape.to_string() == "tokens=37/head_dim=80/theta=1e+04");
    CHECK(back.cases[8].near_shape->to_string() == "tokens=36/head_dim=80");
    CHECK(back.cases[6].checks[0].outputs[0].result.max_rel_error == inf);
    CHECK(back.cases[6].checks[0].outputs[0].result.applied.max_mismatch_fraction == 0.2);
    CHECK(back.cases[6].checks[0].outputs[0].result.applied.min_cosine == std::nullopt);
    CHECK(back.cases[2].checks[0].outputs[0].result.applied.min_cosine == 0.999);
    CHECK(back.cases[2].checks[0].host_reference->compute_seconds == 2e-3);
    if (mode == kbench::run_mode::perf) {
      const kbench::timing_result& t = *back.cases[0].timing;
      CHECK(t.optimized_samples == run.cases[0].timing->optimized_samples);
      CHECK(std::isnan(t.clocks.optimized_hz[3]));
      CHECK(t.findings[0].kind == finding_kind::throttled);
      CHECK(t.roofline.binding == run.cases[0].timing->roofline.binding);
      CHECK(back.cases[0].stage_seconds == run.cases[0].stage_seconds);
      CHECK(std::isnan(back.cases[2].timing->speedup));
      CHECK_FALSE(back.cases[2].timing->reference.has_value());
      CHECK(back.cases[6].timing->speedup == inf);
      CHECK(back.clock_setting->locked == false);
      CHECK(back.compute_peaks[1].type == dtype::bf16);
      CHECK(back.cases[6].census->platform == "amd");
      // The time saved: with its interval, per layer and per token where declared, absent for a host reference.
      REQUIRE(t.saved);
      CHECK(t.saved->per_call.seconds == run.cases[0].timing->saved->per_call.seconds);
      CHECK(t.saved->per_call.ci.low == run.cases[0].timing->saved->per_call.ci.low);
      CHECK(t.saved->per_layer->ci.high == run.cases[0].timing->saved->per_layer->ci.high);
      CHECK(t.saved->per_token->seconds == run.cases[0].timing->saved->per_token->seconds);
      CHECK(t.work.calls_per_layer == 2);
      CHECK(t.work.calls_per_token == 0.25);
      CHECK_FALSE(back.cases[2].timing->saved);
      REQUIRE(back.cases[6].timing->saved);
      CHECK_FALSE(back.cases[6].timing->saved->per_layer);
      CHECK_FALSE(back.cases[6].timing->saved->per_token);
    }
  }
}

TEST_CASE("a child's records and its run read back as the cases and the run they were", "[json_read]") {
  const kbench::run_record run = family_run(kbench::run_mode::perf);
  std::string lines = "tests 1\n";
  for (const kbench::case_record& c : run.cases) lines += "record " + kbench::detail::case_json(c).dump() + "\n";
  lines += "run " + kbench::run_document(run).dump() + "\ndone 0\n";
  const kbench::detail::child_report report = kbench::detail::read_child_report(lines);
  REQUIRE(report.records.size() == run.cases.size());
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    CHECK(kbench::detail::case_json(report.records[i]).dump() == kbench::detail::case_json(run.cases[i]).dump());
  }
  REQUIRE(report.run);
  CHECK(kbench::run_document(*report.run).dump() == kbench::run_document(run).dump());
  // The incomplete run written from them holds every case as the child had it.
  const kbench::run_record incomplete =
      kbench::detail::incomplete_run("", run.mode, report.run,
                                     std::deque<kbench::case_record>(report.records.begin(), report.records.end()), "killed");
  json expected = through_text(run);
  expected["complete"] = false;
  expected["incomplete_reason"] = "killed";
  CHECK(kbench::results_document(incomplete).dump(1) == expected.dump(1));
}

TEST_CASE("the shipped documents of an earlier kbench read without loss", "[json_read]") {
  for (const char* name : {"results.json", "results-slower.json"}) {
    const std::string path = std::string(KBENCH_TEST_DATA) + "/" + name;
    std::ifstream file(path);
    REQUIRE(file);
    const json shipped = json::parse(file);
    const kbench::run_record run = kbench::load_results(path);
    const json again = kbench::results_document(run);
    // Every key the earlier kbench wrote, at every depth, holds the same value written again (keys it lacked are
    // added, with their defaults).
    std::vector<std::string> lost;
    std::function<void(const json&, const json&, const std::string&)> compare = [&](const json& a, const json& b,
                                                                                   const std::string& where) {
      if (a.is_object() && b.is_object()) {
        for (const auto& [key, value] : a.items()) {
          if (!b.contains(key)) lost.push_back(where + "/" + key);
          else compare(value, b[key], where + "/" + key);
        }
      } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
        for (std::size_t i = 0; i < a.size(); ++i) compare(a[i], b[i], where + "/" + std::to_string(i));
      } else if (a != b) {
        lost.push_back(where + ": " + a.dump() + " read back as " + b.dump());
      }
    };
    compare(shipped, again, name);
    CHECK(lost.empty());
    for (const std::string& l : lost) UNSCOPED_INFO(l);
    CHECK(run.cases.size() == 8);
    CHECK(run.cases[0].timing->optimized_samples.size() == shipped["cases"][0]["timing"]["samples"]["optimized"].size());
  }
}

TEST_CASE("a document of an older kbench, without the keys it lacked, reads with their defaults", "[json_read]") {
  json old = through_text(family_run(kbench::run_mode::perf));
  for (const char* key : {"complete", "incomplete_reason", "clock_setting"}) old.erase(key);
  old["options"].erase("quick");
  for (json& c : old["cases"]) {
    for (const char* key : {"parameters", "near_shape", "declaration", "kernels_digest", "devices", "devices_shared"}) c.erase(key);
    for (json& s : c["checks"]) s.erase("edge_runs"), s.erase("spike_runs");
    if (c["timing"].is_object()) {
      for (const char* key : {"clocks", "roofline", "samples", "speedup_interval", "launch_checks", "time_saved"}) c["timing"].erase(key);
      for (const char* key : {"calls_per_layer", "calls_per_token"}) c["timing"]["work"].erase(key);
    }
  }
  const kbench::run_record run = kbench::read_results(old);
  CHECK(run.complete);
  CHECK_FALSE(run.incomplete_reason);
  CHECK_FALSE(run.clock_setting);
  CHECK_FALSE(run.quick);
  CHECK(run.cases[8].shape.to_string() == "tokens=37/head_dim=80");
  CHECK_FALSE(run.cases[8].near_shape);
  CHECK(run.cases[0].declaration.empty());
  CHECK_FALSE(run.declarations_carried);  // which a comparison with a baseline needs to know
  CHECK_FALSE(run.kernels_digests_carried);
  CHECK(run.cases[0].checks[0].edge_runs == 0);
  CHECK(run.cases[0].checks[0].spike_runs == 0);
  const kbench::timing_result& t = *run.cases[0].timing;
  CHECK_FALSE(t.clocks.measured);
  CHECK(t.roofline.bound.empty());
  CHECK(t.optimized_samples.empty());
  CHECK(std::isnan(t.checks.smallest_share_caught));
  CHECK(t.optimized.median == Approx(2e-5 * 1.0055));
  CHECK_FALSE(t.saved);  // not recomputed: a reader reads what the document holds
  CHECK(t.work.calls_per_layer == 0);
}

TEST_CASE("what a document cannot be is a usage error naming it", "[json_read]") {
  const json good = through_text(family_run(kbench::run_mode::perf));
  auto refusal = [](const json& doc) -> std::string {
    try {
      (void)kbench::read_results(doc);
    } catch (const kbench::usage_error& e) {
      return e.what();
    }
    return "no error";
  };
  json doc = good;
  doc["cases"][0]["timing"]["findings"][0]["kind"] = "bogus";
  CHECK_THAT(refusal(doc), kbench_test::contains("case number 0 of the results: 'bogus' is not a finding kind kbench knows"));
  doc = good;
  doc["cases"][1]["verdict"] = "passed";
  CHECK_THAT(refusal(doc), kbench_test::contains("'passed' is not a case's verdict kbench knows"));
  doc = good;
  doc["mode"] = "bench";
  CHECK_THAT(refusal(doc), kbench_test::contains("the results: 'bench' is not a run mode kbench knows"));
  doc = good;
  doc["cases"][0]["checks"][0]["outputs"][0]["dtype"] = "fp7";
  CHECK_THAT(refusal(doc), kbench_test::contains("'fp7' is not an element type kbench knows"));
  doc = good;
  doc["cases"][0]["checks"][0]["seed"] = "12345";
  CHECK_THAT(refusal(doc), kbench_test::contains("'12345' is not a seed"));
  doc = good;
  doc["cases"][0]["timing"]["speedup"] = "Infinity";
  CHECK_THAT(refusal(doc), kbench_test::contains("\"speedup\": 'Infinity' is not a number"));
  doc = good;
  doc["cases"][0]["wall_seconds"] = true;
  CHECK_THAT(refusal(doc), kbench_test::contains("\"wall_seconds\": a boolean is not a number"));
  doc = good;
  doc["cases"][0]["message"] = 7;
  CHECK_THAT(refusal(doc), kbench_test::contains("\"message\": [json.exception.type_error.302]"));
  doc = good;
  doc["cases"][0]["shape"]["rows"] = "37";
  CHECK_THAT(refusal(doc), kbench_test::contains("the size of 'rows' is not an integer"));
  doc = good;
  doc["cases"][0]["checks"][0]["outputs"][0]["tolerance"]["element_rules"][0]["kind"] = "near";
  CHECK_THAT(refusal(doc), kbench_test::contains("'near' is not a kind of element rule"));
  CHECK_THAT(refusal(json{{"schema", "kbench-results/2"}, {"cases", json::array()}}), kbench_test::contains("\"kbench-results/1\""));
  CHECK_THAT(refusal(json{{"schema", "kbench-results/1"}}), kbench_test::contains("no \"cases\" array"));
}

}  // namespace unit_json_read_test
