// kbench/program/benchmark_adapter.hpp: `<program> perf`: one Google Benchmark per case and shape, whose
// single iteration holds kbench's whole perf procedure (check, time, check again); its counters carry the
// figures, and kbench's own report is what the console shows (the framework's table on request).
// HIP-free; compiled once per program.
#pragma once

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <regex.h>
#include <fmt/format.h>

#include "../reports/census_report.hpp"
#include "case_lifecycle.hpp"

namespace kbench {
namespace detail {

// The figures of a perf outcome as the framework's counters.
inline void set_counters(benchmark::State& state, const perf_outcome& outcome) {
  if (outcome.timing) {
    const timing_result& t = *outcome.timing;
    const work_rates& rates = t.throughput.optimized;
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
      state.counters["GB/s"] = rates.bytes_per_second / 1e9;
      if (rates.fraction_of_copy) state.counters["copy_fraction"] = *rates.fraction_of_copy;
    }
    if (t.work.flops > 0) state.counters["TFLOP/s"] = rates.flops_per_second / 1e12;
    if (t.roofline.optimized_share > 0) state.counters["roofline_share"] = t.roofline.optimized_share;
    if (t.work.tokens > 0) state.counters["tokens/s"] = rates.tokens_per_second;
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

// The perf procedure as one Google Benchmark: its single iteration is the whole procedure, whose time is
// the optimized median.
class perf_mode : public case_mode {
 public:
  perf_mode(program_run& run, benchmark::State& state, const run_options& options)
      : run_(run), state_(state), options_(options) {}

  // Once per program, and not part of any case's wall time.
  void prepare(const gpu_info&) override {
    const device_ceilings& ceilings = device_ceilings_once();
    run_record& results = run_.results;
    results.copy = ceilings.copy;
    results.timer_floor = ceilings.floor;
    results.compute_peaks = ceilings.compute;
    results.clock_setting = ceilings.clock_setting;
    results.ceilings_seconds = ceilings.seconds;
    (void)built_resources();  // the census's figures of the build
  }
  case_work run(opened_case& instance, const gpu_info& g, const case_record& started) override {
    case_work work;
    for (auto _ : state_) {
      work.perf = instance.perf(options_, g, seeds_for_run(options_), built_resources());
      state_.SetIterationTime(work.perf->timing ? work.perf->timing->optimized.median : 0.0);
    }
    if (!work.perf) return work;  // the framework ran no iteration: decide_case makes that an error
    const perf_outcome& outcome = *work.perf;
    for (const seed_result* r : {&outcome.before, outcome.after ? &*outcome.after : nullptr}) {
      if (r && !r->passed()) std::fputs(format_seed_result(started.case_name, started.shape, *r).c_str(), stdout);
    }
    set_counters(state_, outcome);
    return work;
  }
  void finished(const case_record& record) override {
    print_figures(record);
    if (record.verdict != case_verdict::pass) state_.SkipWithError(record.message.c_str());
  }
  void not_run(const case_record& record) override {
    const char* what = record.verdict == case_verdict::filtered ? "filtered: " : "skipped: ";
    state_.SkipWithError((what + record.message).c_str());
  }
  void failed(const std::exception_ptr&, const case_record& record) override {
    fmt::print("FAIL {}: {}\n", case_label(record.case_name, record.shape), record.message);
    state_.SkipWithError(record.message.c_str());
  }

 private:
  // The case's figures as it finishes, under the run's header (the device's ceilings) before the first: a
  // process that a later case ends (supervisor.hpp) has printed them already.
  void print_figures(const case_record& record) {
    const run_record& results = run_.results;
    if (!results.copy || (!record.timing && !record.census)) return;
    if (!run_.perf_header_printed) fmt::print("{}", format_perf_header(results));
    run_.perf_header_printed = true;
    const std::string label = case_label(record.case_name, record.shape);
    if (record.timing) fmt::print("{}", format_timing(label, *record.timing, record.stage_seconds));
    if (record.census) fmt::print("{}", format_census(label, *record.census));
    std::fflush(stdout);
  }

  program_run& run_;
  benchmark::State& state_;
  const run_options& options_;
};

// The benchmarks --benchmark_filter leaves, matched as Google Benchmark matches them (1.7,
// FindBenchmarks: "all" or nothing is every one; a leading '-' inverts; an extended regular expression
// searched in each run's name, which ends in the settings below). POSIX's regex: <regex> would cost this
// translation unit seconds of compiling.
inline std::size_t filtered_benchmarks(const run_options& options) {
  std::string spec = benchmark::GetBenchmarkFilter();
  if (spec.empty() || spec == "all") spec = ".";
  const bool inverted = spec.front() == '-';
  regex_t filter;
  if (::regcomp(&filter, inverted ? spec.c_str() + 1 : spec.c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
    throw usage_error("--benchmark_filter " + spec + ": not a regular expression");
  }
  std::size_t n = 0;
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : run_shapes(reg, options)) {
      const std::string name = case_label(reg.name(), s) + "/iterations:1/manual_time";
      n += (::regexec(&filter, name.c_str(), 0, nullptr, 0) == 0) != inverted;
    }
  }
  ::regfree(&filter);
  return n;
}

// Google Benchmark's own table and context, left out unless asked for (--benchmark_format): its CPU column
// is the host thread that waited for the whole procedure, its time the one figure kbench's report below
// gives with its spread, and its context warns about how the library package was built. Its counters
// still reach --benchmark_out.
class quiet_reporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

int run_perf(program_run& run, const char* program, run_options& options) {
  std::vector<char*> argv = argv_for(program, options.passthrough);
  int argc = static_cast<int>(argv.size() - 1);
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data())) return 2;
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : run_shapes(reg, options)) {
      // One iteration holds kbench's whole adaptive measurement; its time is the optimized median.
      benchmark::RegisterBenchmark(case_label(reg.name(), s).c_str(),
                                   [&run, &reg, s, &options](benchmark::State& state) {
                                     perf_mode mode(run, state, options);
                                     (void)run_case_at_shape(run, reg, s, options, mode);
                                   })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  begin_tests(run, filtered_benchmarks(options));
  const bool framework_table = std::any_of(options.passthrough.begin(), options.passthrough.end(), [](const std::string& a) {
    return a.rfind("--benchmark_format", 0) == 0;
  });
  quiet_reporter quiet;
  if (framework_table) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    benchmark::RunSpecifiedBenchmarks(&quiet);
  }
  benchmark::Shutdown();
  for (const case_record& c : run.results.cases) fmt::print("{}", format_case_outcome(c));
  return finish(run, program, options, 0);
}

}  // namespace detail
}  // namespace kbench
