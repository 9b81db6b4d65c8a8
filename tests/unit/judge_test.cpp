// judge.hpp, timing_plan.hpp, stop_rule.hpp: the decisions of a timing run, on plain data.
#include <kbench/decisions/judge.hpp>
#include <kbench/decisions/stop_rule.hpp>
#include <kbench/decisions/timing_plan.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "../catch.hpp"

namespace unit_judge_test {  // one per file: the unit tests compile in unity batches

using kbench::finding_kind;
using kbench::timing_mode;

namespace {

// A clean cold timing: 100 us optimized, 150 us reference, 1 GB moved on a 4 TB/s device with a 50 MB L2.
kbench::timing_result clean_timing() {
  kbench::timing_result t;
  t.mode = timing_mode::cold;
  t.optimized = kbench::summarize({99e-6, 100e-6, 101e-6});
  t.reference = kbench::summarize({149e-6, 150e-6, 151e-6});
  t.speedup = 1.5;
  t.speedup_interval = {1.45, 1.55};
  t.precise = true;
  t.precision_target = 0.005;
  t.single_launch = 100e-6;
  t.launch_wall = 130e-6;
  t.idle_wait = 2e-6;
  t.work.bytes = 0.3e9;
  t.input_sets = t.input_sets_wanted = 2;
  return t;
}

kbench::judging_context h200() {
  kbench::judging_context c;
  c.l2_bytes = 50e6;
  c.copy.bytes_per_second = 4.2e12;
  c.copy.read_bytes_per_second = 4.4e12;
  c.floor.empty_launch_wall = 8e-6;
  c.floor.events_only = 1.3e-6;
  return c;
}

std::vector<finding_kind> kinds(const kbench::timing_result& t) {
  std::vector<finding_kind> k;
  for (const kbench::finding& f : t.findings) k.push_back(f.kind);
  return k;
}

// `t`'s measurements with their judgement, put together as the perf procedure puts them (runner.hpp): the
// judgement reads the measurements only, so a timing judged again with other measurements is judged afresh.
void judge(kbench::timing_result& t, const kbench::judging_context& c) {
  const kbench::timing_measurements measured = t;
  t = kbench::timing_result{measured, kbench::judge_timing(measured, c)};
}

bool has(const kbench::timing_result& t, finding_kind kind, const std::string& text) {
  for (const kbench::finding& f : t.findings) {
    if (f.kind == kind && f.text.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the speedup's verdict needs the whole interval 1% clear of 1", "[judge]") {
  CHECK(kbench::judge_speedup({1.02, 1.10}) == kbench::speedup_verdict::faster);
  CHECK(kbench::judge_speedup({1.005, 1.10}) == kbench::speedup_verdict::no_significant_difference);
  CHECK(kbench::judge_speedup({0.90, 0.985}) == kbench::speedup_verdict::slower);
  CHECK(kbench::judge_speedup({0.95, 1.05}) == kbench::speedup_verdict::no_significant_difference);
}

TEST_CASE("the judgement lists what the timing run found first, and leaves the measurements as they were", "[judge]") {
  kbench::timing_measurements measured = clean_timing();
  measured.speedup = 25.0;
  measured.mode = timing_mode::hot;
  measured.found.push_back({finding_kind::timed_launch_wrong, "a timed launch disagrees"});
  const kbench::timing_measurements before = measured;
  const kbench::timing_judgement j = kbench::judge_timing(measured, h200());
  REQUIRE(j.findings.size() == 2);
  CHECK(j.findings[0].kind == finding_kind::timed_launch_wrong);
  CHECK(j.findings[1].kind == finding_kind::implausible);
  CHECK(measured.found.size() == before.found.size());
  CHECK(measured.speedup == before.speedup);
}

TEST_CASE("a clean timing gets its verdict and no finding", "[judge]") {
  kbench::timing_result t = clean_timing();
  judge(t, h200());
  CHECK(t.verdict == kbench::speedup_verdict::faster);
  CHECK(t.findings.empty());
  CHECK_FALSE(t.flagged());
}

TEST_CASE("the time saved: per call with its interval, per layer and per token where declared", "[judge]") {
  kbench::timing_result t = clean_timing();
  t.optimized_samples.clear();
  t.reference_samples.clear();
  for (int i = 0; i < 100; ++i) {  // paired: 100 us and 147.26 us, each pair a little apart
    const double drift = 1.0 + 0.002 * ((i * 37) % 11 - 5);
    t.optimized_samples.push_back(100e-6 * drift);
    t.reference_samples.push_back(147.26e-6 * drift + 0.1e-6 * ((i * 13) % 7 - 3));
  }
  t.optimized = kbench::summarize(t.optimized_samples);
  t.reference = kbench::summarize(t.reference_samples);
  judge(t, h200());
  REQUIRE(t.saved);
  const double per_call = t.reference->median - t.optimized.median;
  CHECK(t.saved->per_call.seconds == per_call);
  CHECK(per_call == Approx(47.26e-6).epsilon(0.01));
  CHECK(t.saved->per_call.ci.low < per_call);
  CHECK(t.saved->per_call.ci.high > per_call);
  CHECK(t.saved->per_call.ci.high - t.saved->per_call.ci.low < 2e-6);
  const kbench::interval same = kbench::difference_of_medians_interval(t.reference_samples, t.optimized_samples);
  CHECK(t.saved->per_call.ci.low == same.low);  // the one bootstrap, not an interval of its own
  CHECK(t.saved->per_call.ci.high == same.high);
  CHECK_FALSE(t.saved->per_layer);
  CHECK_FALSE(t.saved->per_token);

  t.work.calls_per_layer = 32;
  t.work.calls_per_token = 0.5;
  judge(t, h200());
  REQUIRE(t.saved->per_layer);
  REQUIRE(t.saved->per_token);
  CHECK(t.saved->per_layer->seconds == Approx(32 * per_call));
  CHECK(t.saved->per_layer->ci.low == Approx(32 * same.low));
  CHECK(t.saved->per_layer->ci.high == Approx(32 * same.high));
  CHECK(t.saved->per_token->seconds == Approx(0.5 * per_call));
  CHECK(t.saved->per_token->ci.high == Approx(0.5 * same.high));

  SECTION("a slower optimized kernel saves a negative time") {
    std::swap(t.optimized_samples, t.reference_samples);
    t.optimized = kbench::summarize(t.optimized_samples);
    t.reference = kbench::summarize(t.reference_samples);
    judge(t, h200());
    CHECK(t.saved->per_call.seconds == Approx(-per_call));
    CHECK(t.saved->per_call.ci.high < 0);
  }
  SECTION("without paired samples the interval is unknown, not made up") {
    t.reference_samples.clear();
    judge(t, h200());
    CHECK(t.saved->per_call.seconds == per_call);
    CHECK(std::isnan(t.saved->per_call.ci.low));
    CHECK(std::isnan(t.saved->per_layer->ci.high));
  }
  SECTION("a host reference is not timed: no time saved") {
    t.reference.reset();
    t.reference_samples.clear();
    judge(t, h200());
    CHECK_FALSE(t.saved);
  }
}

TEST_CASE("work the timed stream did not see fails the timing", "[judge]") {
  SECTION("the device stays busy after the timed events") {
    kbench::timing_result t = clean_timing();
    t.idle_wait = 500e-6;
    judge(t, h200());
    CHECK(has(t, finding_kind::unseen_work, "the device stayed busy 500.00 us after the timed launches ended"));
  }
  SECTION("one launch keeps the device busy far longer on the host's clock") {
    kbench::timing_result t = clean_timing();
    t.launch_wall = 2e-3;
    judge(t, h200());
    CHECK(has(t, finding_kind::unseen_work, "on the host's clock but 100.00 us on the timed stream"));
  }
  SECTION("a launch's host work (a Python side's interpreter) is its own where the call was measured apart") {
    kbench::timing_result t = clean_timing();
    t.single_launch = 5e-6;
    t.launch_call = 60e-6;  // the call's host work: 60 us for a 5 us kernel
    t.launch_wall = 75e-6;
    t.saturated_call = 62e-6;
    t.saturation = 20e-3;
    judge(t, h200());
    CHECK_FALSE(has(t, finding_kind::unseen_work, ""));
    // Not measured apart (a side timed without the launch gate, or on several devices): the whole call counts.
    t.saturation = 0.0;
    t.findings.clear();
    judge(t, h200());
    CHECK(has(t, finding_kind::unseen_work, "one launch keeps the device busy 67.00 us on the host's clock but 5.00 us"));
  }
  SECTION("work left running on another stream after the call returns") {
    kbench::timing_result t = clean_timing();
    t.launch_call = 40e-6;
    t.launch_wall = 40e-6 + 2e-3;
    t.saturated_call = 41e-6;
    t.saturation = 20e-3;
    judge(t, h200());
    CHECK(has(t, finding_kind::unseen_work, "busy 1.992 ms after its call returns on the host's clock but 100.00 us"));
  }
  SECTION("a call that waits for work on another stream waits for the load") {
    kbench::timing_result t = clean_timing();
    t.launch_call = 900e-6;  // 0.9 ms of work on another stream, waited for in the call
    t.launch_wall = 1000e-6;
    t.saturated_call = 20.8e-3;
    t.saturation = 20e-3;
    judge(t, h200());
    CHECK(has(t, finding_kind::unseen_work, "the launch function waits for the device inside its call: with every "
                                            "compute unit kept busy for 20.000 ms from another stream, one call took 20.800 ms "
                                            "(on an idle device 900.00 us)"));
    CHECK_FALSE(has(t, finding_kind::unseen_work, "after its call returns"));
  }
  SECTION("a graph that captured nothing, or fewer operations than launches") {
    kbench::timing_result t = clean_timing();
    t.mode = timing_mode::batch;
    t.launches_per_sample = 64;
    t.optimized_graph_operations = 0;
    t.reference_graph_operations = 32;
    judge(t, h200());
    CHECK(has(t, finding_kind::unseen_work, "the optimized launch put no work on the stream kbench gave it"));
    CHECK(has(t, finding_kind::unseen_work, "64 launches captured 32 operations"));
  }
  SECTION("a graph with an operation per launch, or more, is fine") {
    kbench::timing_result t = clean_timing();
    t.launches_per_sample = 64;
    t.optimized_graph_operations = 64;
    t.reference_graph_operations = 192;
    judge(t, h200());
    CHECK(t.findings.empty());
  }
}

TEST_CASE("implausible speedups and bandwidths fail; cache-resident ones are noted", "[judge]") {
  SECTION("a speedup above 10x where no work model bounds the kernel (hot: the cache may serve it)") {
    kbench::timing_result t = clean_timing();
    t.mode = timing_mode::hot;
    t.speedup = 25.0;
    judge(t, h200());
    CHECK(has(t, finding_kind::implausible, "implausible speedup 25.0x (above 10x)"));
    CHECK(has(t, finding_kind::implausible, "or declares the work that bounds it"));
    kbench::timing_result allowed = t;
    allowed.expectations.max_plausible_speedup = 30.0;
    allowed.expectations.speedup_limit_declared = true;
    judge(allowed, h200());
    CHECK_FALSE(allowed.flagged());
  }
  SECTION("where the roofline bounds the kernel, it replaces the 10x; a declared limit still holds") {
    kbench::timing_result t = clean_timing();  // cold, 0.3 GB beyond the L2: 68 us at the least, 100 us taken
    t.speedup = 25.0;
    judge(t, h200());
    CHECK(t.roofline.binding == "memory");
    CHECK(t.roofline.optimized_share == Approx(0.3e9 / 4.4e12 / 100e-6));
    CHECK_FALSE(t.flagged());
    kbench::timing_result declared = clean_timing();
    declared.speedup = 25.0;
    declared.expectations.max_plausible_speedup = 20.0;
    declared.expectations.speedup_limit_declared = true;
    judge(declared, h200());
    CHECK(has(declared, finding_kind::implausible, "implausible speedup 25.0x (above 20x)"));
  }
  SECTION("the arithmetic's floor far below a memory-bound case the cache may serve bounds nothing: 10x holds") {
    kbench::judging_context c = h200();
    c.peaks = {{kbench::dtype::f32, 60e12, "fp32 FMA"}};
    kbench::timing_result t = clean_timing();
    t.mode = timing_mode::hot;
    t.work.flops = 0.3e9;  // 1 FLOP/B: memory-bound
    t.speedup = 25.0;
    judge(t, c);
    CHECK(t.roofline.binding == "compute");
    CHECK(t.roofline.optimized_share == 0);
    CHECK(has(t, finding_kind::implausible, "implausible speedup 25.0x (above 10x)"));
  }
  SECTION("faster than the arithmetic peak allows fails, naming the peak; matrix units are not held to it") {
    kbench::judging_context c = h200();
    c.peaks = {{kbench::dtype::f32, 60e12, "fp32 FMA"}, {kbench::dtype::f16, 120e12, "packed fp16 FMA (two a lane)"}};
    kbench::timing_result t = clean_timing();
    t.mode = timing_mode::hot;
    t.work.flops = 9e9;  // 90 TFLOP/s in 100 us
    judge(t, c);
    CHECK(t.roofline.binding == "compute");
    CHECK(has(t, finding_kind::implausible, "90.00 TFLOP/s is above the device's measured peak for its arithmetic "
                                            "(60.00 TFLOP/s, fp32 FMA)"));
    kbench::timing_result half = t;
    half.findings.clear();
    half.work.flop_type = kbench::dtype::f16;  // within f16's peak
    judge(half, c);
    CHECK_FALSE(half.flagged());
    CHECK(half.roofline.optimized_share == Approx(0.75));
    kbench::timing_result matrix = t;
    matrix.findings.clear();
    matrix.work.matrix_units = true;
    judge(matrix, c);
    CHECK_FALSE(matrix.flagged());
    CHECK(matrix.roofline.peak_how == "matrix units: kbench measures no peak for them");
  }
  SECTION("above the device's bandwidth with cold caches and a working set beyond the L2") {
    kbench::timing_result t = clean_timing();
    t.work.bytes = 1e9;  // 10 TB/s
    judge(t, h200());
    CHECK(has(t, finding_kind::implausible, "bytes_moved() overstates the work"));
  }
  SECTION("the same rate from a working set that fits in the L2, or while hot, is a note") {
    kbench::timing_result small = clean_timing();
    small.work.bytes = 1e9;
    kbench::judging_context big_cache = h200();
    big_cache.l2_bytes = 1e9;
    judge(small, big_cache);
    CHECK_FALSE(small.flagged());
    CHECK(has(small, finding_kind::note, "served from cache"));
    kbench::timing_result hot = clean_timing();
    hot.mode = timing_mode::hot;
    hot.work.bytes = 1e9;
    judge(hot, h200());
    CHECK_FALSE(hot.flagged());
  }
}

TEST_CASE("a requirement fails only when the whole interval falls short", "[judge]") {
  kbench::timing_result t = clean_timing();
  t.expectations.required_speedup = 1.5;  // the interval reaches 1.55: not short
  judge(t, h200());
  CHECK_FALSE(t.flagged());
  kbench::timing_result short_of = clean_timing();
  short_of.expectations.required_speedup = 1.6;
  short_of.expectations.required_bandwidth = 0.9;  // 3 TB/s is 71% of copy
  judge(short_of, h200());
  CHECK(kinds(short_of) == std::vector<finding_kind>{finding_kind::requirement_missed, finding_kind::requirement_missed});
  CHECK(has(short_of, finding_kind::requirement_missed, "short of the required 1.600x"));
  CHECK(has(short_of, finding_kind::requirement_missed, "bandwidth 71.4% of copy is short of the required 90.0%"));
}

TEST_CASE("a kernel faster on inputs it has seen reuses results, and fails", "[judge]") {
  kbench::timing_result memo = clean_timing();
  memo.fresh_launch = 300e-6;
  memo.seen_launch = 90e-6;
  judge(memo, h200());
  CHECK(has(memo, finding_kind::memoization, "takes 90.00 us on inputs an earlier launch has seen and 300.00 us on fresh"));
  kbench::timing_result honest = clean_timing();
  honest.fresh_launch = 100e-6;
  honest.seen_launch = 99e-6;  // noise
  judge(honest, h200());
  CHECK_FALSE(honest.flagged());
  kbench::timing_result tiny = clean_timing();
  tiny.fresh_launch = 2.0e-6;
  tiny.seen_launch = 1.5e-6;  // less than a microsecond apart: launch noise, not reuse
  judge(tiny, h200());
  CHECK_FALSE(tiny.flagged());
}

TEST_CASE("a batch whose launches do less work than a launch alone fails", "[judge]") {
  // The H200's floor: an empty kernel 2.75 us between events (1.31 us alone), 0.69 us a launch in a graph.
  kbench::judging_context c = h200();
  c.floor.events_only = 1.31e-6;
  c.floor.empty_kernel = 2.75e-6;
  c.floor.empty_kernel_batch = 0.69e-6;
  auto batch = [&](double median, double hot, long long operations) {
    kbench::timing_result t = clean_timing();
    t.mode = timing_mode::batch;
    t.launches_per_sample = 40;
    t.optimized = kbench::summarize({median, median, median});
    t.reference = kbench::summarize({2 * median, 2 * median, 2 * median});
    t.hot_latency = hot;
    t.optimized_graph_operations = operations;
    judge(t, c);
    return t;
  };
  // The shipped cases on the H200 (batch median, hot latency): a launch in a batch 0.64 to 1.1 times alone.
  for (const auto& [median, hot] : {std::pair{2.64e-6, 3.36e-6}, std::pair{1.07e-6, 2.02e-6}, std::pair{3.09e-6, 5.18e-6},
                                    std::pair{1.05e-6, 1.76e-6}, std::pair{9.95e-6, 10.75e-6}}) {
    const kbench::timing_result honest = batch(median, hot, 40);
    INFO(median << " against " << hot);
    CHECK_FALSE(has(honest, finding_kind::unseen_work, "in a batch"));
  }
  // A 5 us kernel that does its work in 4 launches of 40 (the last, which the checks reach) and launches an
  // empty kernel in the others.
  const kbench::timing_result skips = batch(0.1 * 5e-6 + 0.69e-6, 5e-6 + 1.44e-6, 40);
  CHECK(has(skips, finding_kind::unseen_work, "in a batch the optimized kernel takes 0.50 us a launch and alone 5.00 us"));
  // Two kernels a launch: the cost of two launches comes out of both.
  CHECK_FALSE(has(batch(2 * 0.69e-6 + 1.0e-6, 2 * 1.44e-6 + 1.2e-6, 80), finding_kind::unseen_work, "in a batch"));
  // Tiny kernels: 0.5 us apart at least.
  CHECK_FALSE(has(batch(0.69e-6 + 0.1e-6, 1.44e-6 + 0.5e-6, 40), finding_kind::unseen_work, "in a batch"));
  // Cold mode times single launches: nothing to compare.
  kbench::timing_result cold = clean_timing();
  cold.hot_latency = 500e-6;
  judge(cold, c);
  CHECK_FALSE(has(cold, finding_kind::unseen_work, "in a batch"));
}

TEST_CASE("timed launches faster than launches on inputs no launch has seen fail, cold only", "[judge]") {
  // A kernel that recognises its inputs in another arrangement: as fast on seen inputs as on fresh ones
  // right after them, but faster timed.
  kbench::timing_result recognises = clean_timing();  // timed median 100 us
  recognises.fresh_launch = 300e-6;
  recognises.seen_launch = 300e-6;
  judge(recognises, h200());
  REQUIRE(kinds(recognises) == std::vector<finding_kind>{finding_kind::memoization});
  CHECK(has(recognises, finding_kind::memoization, "timed launches take 100.00 us and its launches on inputs drawn just"));
  kbench::timing_result honest = clean_timing();
  honest.fresh_launch = 104e-6;  // a few percent apart: noise
  honest.seen_launch = 103e-6;
  judge(honest, h200());
  CHECK_FALSE(honest.flagged());
  // Batch mode times launches back to back in a graph, hot: no single cold launch compares with them.
  kbench::timing_result batch = clean_timing();
  batch.mode = timing_mode::batch;
  batch.launches_per_sample = 33;
  batch.fresh_launch = batch.seen_launch = 300e-6;
  judge(batch, h200());
  CHECK_FALSE(has(batch, finding_kind::memoization, "timed launches take"));
}

TEST_CASE("notes say how the samples were taken, and never fail", "[judge]") {
  kbench::timing_result t = clean_timing();
  t.precise = false;
  t.optimized_precision = 0.02;
  t.input_sets = 3;
  t.input_sets_wanted = 64;
  t.input_set_bytes = 4.0 * 1048576;
  judge(t, h200());
  CHECK_FALSE(t.flagged());
  CHECK(has(t, finding_kind::note, "3 input set(s) drawn before each sample, not 64"));
  CHECK(has(t, finding_kind::note, "stopped before the medians were known to +-0.5%"));
  CHECK(kbench::texts(t.findings).empty());
  CHECK(kbench::texts(t.findings, false).size() == 2);
}

TEST_CASE("a perf outcome fails on its first reason", "[judge]") {
  kbench::perf_outcome o;
  o.before.outputs.push_back({"y", kbench::dtype::f32, {4}, {}});
  CHECK(o.failure() == "refusing to time a kernel that is not correct (report above)");
  o.before.outputs[0].result.passed = true;
  CHECK(o.failure() == "not timed");
  o.timing = clean_timing();
  o.timing->findings.push_back({finding_kind::note, "a note"});
  o.timing->findings.push_back({finding_kind::unseen_work, "the first flag"});
  CHECK(o.failure() == "the first flag");
  o.timing->findings.pop_back();
  CHECK(o.failure() == "the optimized kernel was correct before timing and wrong after it (report above)");
  o.after = o.before;
  CHECK(o.passed());
}

TEST_CASE("the timing plan: flush size, input sets, mode and batch size", "[timing_plan]") {
  kbench::run_options o;
  CHECK(kbench::flush_bytes(o, 50e6) == 256u << 20);
  CHECK(kbench::flush_bytes(o, 256e6) == static_cast<std::size_t>(1024e6));
  o.flush_mib = 64;
  CHECK(kbench::flush_bytes(o, 256e6) == 64u << 20);

  const kbench::mode_plan cold{timing_mode::cold, 1}, batch64{timing_mode::batch, 64};
  kbench::run_options sets;
  CHECK(kbench::plan_input_sets(sets, 0, 256u << 20, 1u << 30, cold).sets == 1);  // nothing drawn
  CHECK(kbench::plan_input_sets(sets, 4u << 20, 256u << 20, 1ull << 36, cold).sets == 1);  // fresh before each sample
  const kbench::input_set_plan per_launch = kbench::plan_input_sets(sets, 4u << 20, 256u << 20, 1ull << 36, batch64);
  CHECK(per_launch.sets == 64);  // one per launch of a batch
  CHECK(per_launch.launches_per_sample == 64);
  const kbench::input_set_plan short_batch = kbench::plan_input_sets(sets, 4u << 20, 256u << 20, 40u << 20, batch64);
  CHECK(short_batch.sets == 2);  // a quarter of 40 MiB holds two sets of 4 MiB...
  CHECK(short_batch.launches_per_sample == 2);  // ...so a batch is cut to two launches: none shares its inputs
  sets.input_sets = kbench::input_sets_beyond_cache;
  const kbench::input_set_plan beyond = kbench::plan_input_sets(sets, 4u << 20, 256u << 20, 1ull << 36, cold);
  CHECK(beyond.sets == 64);
  CHECK(beyond.wanted == 64);
  const kbench::input_set_plan capped = kbench::plan_input_sets(sets, 4u << 20, 256u << 20, 40u << 20, cold);
  CHECK(capped.wanted == 64);
  CHECK(capped.sets == 2);
  sets.input_sets = 7;
  CHECK(kbench::plan_input_sets(sets, 1024, 256u << 20, 1ull << 36, cold).sets == 7);
  CHECK(kbench::plan_input_sets(sets, 1024, 256u << 20, 1ull << 36, batch64).sets == 64);

  // Batch mode's output copies: one per launch where both sides' fit in a sixteenth of the L2.
  CHECK(kbench::plan_output_copies(1, 1u << 20, 0, 50e6, 1ull << 36) == 1);       // cold and hot: the case's own
  CHECK(kbench::plan_output_copies(58, 0, 0, 50e6, 1ull << 36) == 58);            // no output beside in-place ones
  CHECK(kbench::plan_output_copies(58, 4096, 0, 50e6, 1ull << 36) == 58);         // small outputs: one each
  CHECK(kbench::plan_output_copies(58, 512u << 10, 0, 50e6, 1ull << 36) == 5);    // 3.1 MB hold five of 512 KiB
  CHECK(kbench::plan_output_copies(58, 512u << 10, 0, 50e6, 1u << 20) == 2);   // the memory left holds two
  CHECK(kbench::plan_output_copies(58, 512u << 10, 256u << 10, 50e6, 1u << 20) == 1);  // less the guards: one
  // Guards (256 KiB for one output) count against memory, not against the cache: 16 KiB outputs, 58 copies.
  CHECK(kbench::plan_output_copies(58, 32u << 10, 256u << 10, 50e6, 1ull << 36) == 58);
  CHECK(kbench::plan_output_copies(58, 64u << 20, 0, 50e6, 1ull << 36) == 1);     // never none
  CHECK(kbench::plan_output_copies(58, 512u << 10, 0, 50e6, 0) == 1);

  kbench::run_options automatic;
  CHECK(kbench::plan_mode(automatic, 50e-6).mode == timing_mode::cold);
  const kbench::mode_plan tiny = kbench::plan_mode(automatic, 2e-6);
  CHECK(tiny.mode == timing_mode::batch);
  CHECK(tiny.launches_per_sample >= 100);  // about 200 us per sample (ceil of 200e-6 / 2e-6 in binary: 100 or 101)
  CHECK(tiny.launches_per_sample <= 101);
  const int fastest = kbench::plan_mode(automatic, 1e-9).launches_per_sample;  // pilots count as 100 ns at least
  CHECK(fastest >= 2000);
  CHECK(fastest <= 2001);
  CHECK(kbench::plan_mode(automatic, 9e-6).launches_per_sample == 23);
  kbench::run_options batch;
  batch.timing = timing_mode::batch;
  CHECK(kbench::plan_mode(batch, 1e-3).launches_per_sample == 16);
  kbench::run_options hot;
  hot.timing = timing_mode::hot;
  CHECK(kbench::plan_mode(hot, 2e-6).mode == timing_mode::hot);
  CHECK(kbench::plan_mode(hot, 2e-6).launches_per_sample == 1);
}

TEST_CASE("the stop rule: never before the iterations, then on precision, time or count", "[stop_rule]") {
  kbench::run_options o;
  o.iterations = 20;
  o.max_iterations = 60;
  o.precision = 0.005;
  o.max_time = 10.0;
  std::vector<double> steady(19, 1e-4), noisy;
  kbench::stop_rule rule(o);
  CHECK_FALSE(rule.should_stop(steady, steady, 0.0));  // 19 < 20
  steady.push_back(1e-4);
  CHECK(rule.should_stop(steady, steady, 0.0));  // 20 identical samples: known exactly
  CHECK(rule.precise());
  steady.push_back(1e-4);
  CHECK_FALSE(kbench::stop_rule(o).should_stop(steady, steady, 0.0));  // 21: only every 10th sample is checked
  for (int i = 0; i < 30; ++i) noisy.push_back(i % 2 ? 1e-4 : 2e-4);
  kbench::stop_rule wide(o);
  CHECK_FALSE(wide.should_stop(noisy, {}, 0.0));
  CHECK_FALSE(wide.precise());
  CHECK(wide.optimized_precision() > 0.1);
  CHECK(wide.should_stop(noisy, {}, 11.0));  // out of time
  for (int i = 0; i < 30; ++i) noisy.push_back(i % 2 ? 1e-4 : 2e-4);
  CHECK(kbench::stop_rule(o).should_stop(noisy, {}, 0.0));  // 60 samples: the limit
}

TEST_CASE("the stop rule cannot be starved: slow samples never end sampling below the iterations", "[stop_rule]") {
  // A kernel (or a launcher) that is slow while the number of samples is decided, so that the time limit
  // comes first: no verdict before the declared iterations, however long each took.
  kbench::run_options o;
  o.iterations = 100;
  o.max_iterations = 1000;
  o.precision = 0.005;
  o.max_time = 1.0;
  kbench::stop_rule rule(o);
  std::vector<double> slow;
  for (int i = 1; i < 100; ++i) {
    slow.push_back(0.5);
    CHECK_FALSE(rule.should_stop(slow, slow, 0.5 * i));  // far past the time limit, and still sampling
  }
  slow.push_back(0.5);
  CHECK(rule.should_stop(slow, slow, 50.0));
  // Samples left out as throttled count toward the limits, never toward the iterations: the run ends at the
  // time limit with fewer kept, which the throttle rule fails (throttle_rule.hpp), not a pass.
  kbench::stop_rule throttled(o);
  const std::vector<double> kept(30, 0.5);
  CHECK_FALSE(throttled.should_stop(kept, kept, 0.5, 99));
  CHECK(throttled.should_stop(kept, kept, 2.0, 100));
}

}  // namespace unit_judge_test
