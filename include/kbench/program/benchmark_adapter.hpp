// kbench/program/benchmark_adapter.hpp: `<program> perf`: one Google Benchmark per case and shape, whose
// single iteration holds kbench's whole perf procedure (check, time, check again); its counters carry the
// figures, and kbench's own report follows the framework's table. HIP-free; compiled once per program.
#pragma once

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "program.hpp"

namespace kbench {
namespace detail {

inline void fail_benchmark(benchmark::State& state, case_record& record, const std::string& why) {
  record.verdict = case_verdict::fail;
  if (record.message.empty()) record.message = why;
  state.SkipWithError(why.c_str());
}

// The figures of a perf outcome as the framework's counters.
inline void set_counters(benchmark::State& state, const perf_outcome& outcome, const copy_bandwidth& copy) {
  if (outcome.timing) {
    const timing_result& t = *outcome.timing;
    state.counters["samples"] = static_cast<double>(t.optimized.count);
    state.counters["median_us"] = t.optimized.median * 1e6;
    state.counters["p10_us"] = t.optimized.p10 * 1e6;
    state.counters["p90_us"] = t.optimized.p90 * 1e6;
    state.counters["cv"] = t.optimized.coefficient_of_variation();
    if (t.reference) {
      state.counters["ref_median_us"] = t.reference->median * 1e6;
      state.counters["speedup"] = t.speedup;
      state.counters["speedup_low"] = t.speedup_interval.low;
      state.counters["speedup_high"] = t.speedup_interval.high;
    }
    if (t.work.bytes > 0) {
      state.counters["GB/s"] = t.work.bytes / t.optimized.median / 1e9;
      state.counters["copy_fraction"] = t.work.bytes / t.optimized.median / copy.bytes_per_second;
    }
    if (t.work.flops > 0) state.counters["TFLOP/s"] = t.work.flops / t.optimized.median / 1e12;
    if (t.work.tokens > 0) state.counters["tokens/s"] = t.work.tokens / t.optimized.median;
  }
  if (outcome.after) {
    double worst_cosine = 1.0, worst_abs = 0.0;
    for (const output_result& o : outcome.after->outputs) {
      worst_cosine = std::min(worst_cosine, o.result.cosine_similarity);
      worst_abs = std::max(worst_abs, o.result.max_abs_error);
    }
    state.counters["max_abs_err"] = worst_abs;
    state.counters["cosine"] = worst_cosine;
  }
}

inline void perf_benchmark(benchmark::State& state, const case_registration& reg, const kbench::shape& s,
                           const run_options& options) {
  case_record& record = new_record(reg, s);
  try {
    if (filtered_out(reg, s, options, record)) {
      state.SkipWithError(("filtered: " + record.message).c_str());
      return;
    }
    const gpu_info* g = gpu_or_skip(options, record);
    if (g == nullptr) {
      state.SkipWithError(("skipped: " + record.message).c_str());
      return;
    }
    // Once per program, and not part of any case's wall time.
    const device_ceilings& ceilings = device_ceilings_once();
    run_record& run = journal();
    run.copy = ceilings.copy;
    run.timer_floor = ceilings.floor;
    run.ceilings_seconds = ceilings.seconds;
    const wall_timer wall(record);
    const std::unique_ptr<case_run> instance = open_case(reg, s, options, record);
    if (!instance) {
      state.SkipWithError(("skipped: " + record.message).c_str());
      return;
    }
    perf_outcome outcome;
    for (auto _ : state) {
      outcome = instance->perf(options, *g, seeds_for_run(options));
      state.SetIterationTime(outcome.timing ? outcome.timing->optimized.median : 0.0);
    }
    record.checks.push_back(outcome.before);
    if (outcome.after) record.checks.push_back(*outcome.after);
    record.timing = outcome.timing;
    record.census = outcome.census;
    for (const seed_result* r : {&outcome.before, outcome.after ? &*outcome.after : nullptr}) {
      if (r && !r->passed()) std::fputs(format_seed_result(reg.name(), s, *r).c_str(), stdout);
    }
    set_counters(state, outcome, ceilings.copy);
    const std::string failure = outcome.failure();
    if (!failure.empty()) return fail_benchmark(state, record, failure);
    record.verdict = case_verdict::pass;
  } catch (const std::exception& e) {
    record.verdict = case_verdict::error;
    record.message = e.what();
    fmt::print("FAIL {}: {}\n", case_label(reg.name(), s), e.what());
    state.SkipWithError(e.what());
  }
}

int run_perf(const char* program, run_options& options) {
  std::vector<char*> argv = argv_for(program, options.passthrough);
  int argc = static_cast<int>(argv.size() - 1);
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data())) return 2;
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : run_shapes(reg, options)) {
      // One iteration holds kbench's whole adaptive measurement; its time is the optimized median.
      benchmark::RegisterBenchmark(case_label(reg.name(), s).c_str(),
                                   [&reg, s, &options](benchmark::State& state) { perf_benchmark(state, reg, s, options); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  progress().begin(count_tests(options), argc > 1);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const run_record& run = journal();
  if (run.copy) {
    fmt::print("{}", format_perf_header(run));
    for (const case_record& c : run.cases) {
      if (c.timing) fmt::print("{}", format_timing(case_label(c.case_name, c.shape), *c.timing, run.copy->bytes_per_second));
      if (c.census) fmt::print("{}", format_census(case_label(c.case_name, c.shape), *c.census));
    }
  }
  for (const case_record& c : run.cases) fmt::print("{}", format_case_outcome(c));
  return finish(program, options, 0);
}

}  // namespace detail
}  // namespace kbench
