// kbench/main.hpp: the main() of a kbench test program. Include it in exactly one translation unit (the
// kbench_add_kernel_test CMake function does so in a library compiled once per project).
//
//   <program> correctness [kbench options] [Catch2 options]   one Catch2 test per case and shape
//   <program> perf        [kbench options] [Google Benchmark options]
//   <program> list                                            the cases, their shapes and buffers
//
// Exit status: 0 passed; 1 failed (a wrong kernel, a broken test, a flagged timing, a HIP error); 2 bad
// usage; 77 skipped because no GPU is usable (unless --require-gpu / KBENCH_REQUIRE_GPU=1, which makes
// that a failure). --json <path> writes every result (json_report.hpp documents the schema).
#pragma once

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

// Catch2 2.x or 3.x. The build says which (KBENCH_CATCH2_MAJOR, set by kbench.cmake); without it, the
// headers found decide.
#if !defined(KBENCH_CATCH2_MAJOR)
#if __has_include(<catch2/catch_session.hpp>)
#define KBENCH_CATCH2_MAJOR 3
#else
#define KBENCH_CATCH2_MAJOR 2
#endif
#endif
#if KBENCH_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/interfaces/catch_interfaces_testcase.hpp>
#include <catch2/internal/catch_test_registry.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "json_report.hpp"
#include "options.hpp"
#include "runner.hpp"
#include "version.hpp"

namespace kbench {
namespace detail {

inline constexpr int exit_skipped = 77;

// Everything this program run found; the exit status, the summary and the JSON file come from it.
inline run_record& journal() {
  static run_record run;
  return run;
}

inline std::string test_name(const case_registration& reg, const kbench::shape& s) {
  return s.dims().empty() ? reg.name() : reg.name() + "/" + s.to_string();
}

inline std::string compiler_description() {
  std::string c;
#if defined(__clang__)
  c = "clang " __clang_version__;
#elif defined(__GNUC__)
  c = "gcc " __VERSION__;
#endif
#if defined(__CUDACC_VER_MAJOR__)
  c = fmt::format("nvcc {}.{}.{}, host {}", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__, c);
#endif
  return c;
}

// Records the case as skipped when no GPU is usable; the GPU is probed here, inside the test.
inline const gpu_info* gpu_or_skip(const run_options& options, case_record& record) {
  const gpu_info& g = gpu(options.device);
  journal().device = g;
  if (g.usable) return &g;
  record.verdict = "skipped";
  record.message = g.reason;
  return nullptr;
}

// Records the wall time of a case's test, however it ends.
class wall_timer {
 public:
  explicit wall_timer(case_record& record) : record_(record), start_(std::chrono::steady_clock::now()) {}
  ~wall_timer() { record_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  wall_timer(const wall_timer&) = delete;
  wall_timer& operator=(const wall_timer&) = delete;

 private:
  case_record& record_;
  std::chrono::steady_clock::time_point start_;
};

// A case's declaration at a shape, instantiated on the host only (no device memory, no GPU needed).
inline std::unique_ptr<kernel_case> declare_on_host(const case_registration& reg, const kbench::shape& s) {
  auto declared = std::make_unique<kernel_case>(reg.name(), s);
  reg.function()(*declared);
  return declared;
}

// Elements in all buffers of a case at a shape, from its declaration.
inline double declared_elements(const case_registration& reg, const kbench::shape& s) {
  double total = 0.0;
  const auto declared = declare_on_host(reg, s);  // held: a range-for would not keep the temporary alive
  for (const auto& b : declared->buffers()) total += static_cast<double>(b->size);
  return total;
}

// True (and recorded) when --max-elements leaves this shape out.
inline bool filtered_out(const case_registration& reg, const kbench::shape& s, const run_options& options,
                         case_record& record) {
  if (options.max_elements <= 0) return false;
  const double elements = declared_elements(reg, s);
  if (elements <= options.max_elements) return false;
  record.verdict = "filtered";
  record.message = fmt::format("{:.0f} elements, more than --max-elements {:.0f}", elements, options.max_elements);
  return true;
}

inline case_record& new_record(const case_registration& reg, const kbench::shape& s) {
  case_record& r = journal().cases.emplace_back();
  r.case_name = reg.name();
  r.shape = s;
  return r;
}

// One Catch2 test: every seed of one case at one shape.
class correctness_test : public Catch::ITestInvoker {
 public:
  correctness_test(const case_registration& reg, kbench::shape s, const run_options& options)
      : reg_(reg), shape_(std::move(s)), options_(options) {}

  void invoke() const override {
    case_record& record = new_record(reg_, shape_);
    const wall_timer wall(record);
    if (filtered_out(reg_, shape_, options_, record)) {
      WARN("not run: " << record.message);
      return;
    }
    if (gpu_or_skip(options_, record) == nullptr) {
#if KBENCH_CATCH2_MAJOR >= 3
      SKIP("skipped: " << record.message);
#else
      WARN("skipped: " << record.message);
#endif
      return;
    }
    try {
      detail::case_instance instance(reg_, shape_);
      bool first = true;
      for (std::uint64_t seed : seeds_for_run(options_)) {
        const seed_result& r = record.checks.emplace_back(instance.check(seed, first));
        first = false;
        const std::string report = format_seed_result(reg_.name(), shape_, r);
        std::fputs(report.c_str(), stdout);
        std::fflush(stdout);
        INFO(report);
        CHECK(r.passed());
      }
    } catch (const std::exception& e) {
      record.verdict = "error";
      record.message = e.what();
      throw;
    }
    const bool passed = std::all_of(record.checks.begin(), record.checks.end(), [](const seed_result& r) { return r.passed(); });
    record.verdict = passed ? "pass" : "fail";
  }

 private:
  const case_registration& reg_;
  kbench::shape shape_;
  const run_options& options_;
};

inline void register_correctness_tests(const run_options& options) {
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : reg.shapes()) {
      auto* invoker = new correctness_test(reg, s, options);  // owned by Catch2's registry
#if KBENCH_CATCH2_MAJOR >= 3
      Catch::AutoReg(Catch::Detail::unique_ptr<Catch::ITestInvoker>(invoker),
                     Catch::SourceLineInfo(reg.file(), static_cast<std::size_t>(reg.line())), Catch::StringRef(),
                     Catch::NameAndTags{test_name(reg, s), "[kbench][correctness]"});
#else
      Catch::AutoReg(invoker, Catch::SourceLineInfo(reg.file(), static_cast<std::size_t>(reg.line())),
                     Catch::StringRef(), Catch::NameAndTags{test_name(reg, s), "[kbench][correctness]"});
#endif
    }
  }
}

inline std::vector<char*> argv_for(const char* program, std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(program)};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// The exit status from the journal: failures first, then skips.
inline int finish(const char* program, const run_options& options, int framework_status) {
  const run_record& run = journal();
  if (!options.json_path.empty()) write_json(run, options.json_path, program);
  int failed = 0, skipped = 0;
  std::string reason;
  for (const case_record& c : run.cases) {
    failed += c.verdict == "fail" || c.verdict == "error";
    if (c.verdict == "skipped") ++skipped, reason = c.message;
  }
  if (failed > 0 || framework_status != 0) return 1;
  if (skipped > 0) {
    if (options.require_gpu) {
      fmt::print("kbench: {} (KBENCH_REQUIRE_GPU is set, so this fails)\n", reason);
      return 1;
    }
    fmt::print("kbench: skipped {} {}: {}\n", skipped, options.mode == run_mode::perf ? "benchmark(s)" : "test(s)", reason);
    return exit_skipped;
  }
  return 0;
}

inline int run_correctness(const char* program, run_options& options) {
  register_correctness_tests(options);
  std::vector<char*> argv = argv_for(program, options.passthrough);
  Catch::Session session;
  const int parse_status = session.applyCommandLine(static_cast<int>(argv.size() - 1), argv.data());
  if (parse_status != 0) return 2;
  return finish(program, options, session.run());
}

inline void fail_benchmark(benchmark::State& state, case_record& record, const std::string& why) {
  record.verdict = "fail";
  if (record.message.empty()) record.message = why;
  state.SkipWithError(why.c_str());
}

inline void perf_benchmark(benchmark::State& state, const case_registration& reg, const kbench::shape& s,
                           const run_options& options) {
  case_record& record = new_record(reg, s);
  if (filtered_out(reg, s, options, record)) {
    state.SkipWithError(("not run: " + record.message).c_str());
    return;
  }
  const gpu_info* g = gpu_or_skip(options, record);
  if (g == nullptr) {
    state.SkipWithError(("skipped: " + record.message).c_str());
    return;
  }
  const std::string name = test_name(reg, s);
  try {
    // Once per program, and not part of any case's wall time.
    const device_ceilings& ceilings = measured_ceilings();
    run_record& run = journal();
    run.copy = ceilings.copy;
    run.timer_floor = ceilings.floor;
    run.ceilings_seconds = ceilings.seconds;
    const wall_timer wall(record);
    detail::case_instance instance(reg, s);
    perf_outcome outcome;
    for (auto _ : state) {
      outcome = run_perf_procedure(instance, options, *g, seeds_for_run(options));
      state.SetIterationTime(outcome.timing ? outcome.timing->optimized.median : 0.0);
    }
    record.checks.push_back(outcome.before);
    if (outcome.after) record.checks.push_back(*outcome.after);
    record.timing = outcome.timing;
    for (const seed_result* r : {&outcome.before, outcome.after ? &*outcome.after : nullptr}) {
      if (r && !r->passed()) std::fputs(format_seed_result(reg.name(), s, *r).c_str(), stdout);
    }
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
        state.counters["copy_fraction"] = t.work.bytes / t.optimized.median / ceilings.copy.bytes_per_second;
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
    const std::string failure = outcome.failure();
    if (!failure.empty()) return fail_benchmark(state, record, failure);
    record.verdict = "pass";
  } catch (const std::exception& e) {
    record.verdict = "error";
    record.message = e.what();
    fmt::print("FAIL {}: {}\n", name, e.what());
    state.SkipWithError(e.what());
  }
}

inline int run_perf(const char* program, run_options& options) {
  std::vector<char*> argv = argv_for(program, options.passthrough);
  int argc = static_cast<int>(argv.size() - 1);
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data())) return 2;
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : reg.shapes()) {
      // One iteration holds kbench's whole adaptive measurement; its time is the optimized median.
      benchmark::RegisterBenchmark(test_name(reg, s).c_str(),
                                   [&reg, s, &options](benchmark::State& state) { perf_benchmark(state, reg, s, options); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const run_record& run = journal();
  if (run.copy) {
    const gpu_info& g = run.device;
    fmt::print("\nkbench perf on {} ({}, {} compute units); warm-up {} launches and {:g} s; at least {} samples\n",
               g.name, g.arch, g.multiprocessors, options.warmup, options.warmup_time, options.iterations);
    fmt::print("once per program: opening the device took {}, measuring the copy bandwidth and timer floor {}\n",
               format_duration(g.open_seconds), format_duration(run.ceilings_seconds));
    fmt::print("device-to-device copy of {} MiB: {} (read + write), {}; reading alone {}\n", run.copy->buffer_bytes >> 20,
               format_rate(2.0 * static_cast<double>(run.copy->buffer_bytes), run.copy->seconds.median, "B"),
               format_stats(run.copy->seconds), format_rate(run.copy->read_bytes_per_second, 1.0, "B"));
    if (run.timer_floor) {
      fmt::print("timer floor: an event pair alone {}, an empty kernel {} (one launch per event pair), {} per launch "
                 "in a graph of 100, {} from launch to idle device on the host\n",
                 format_duration(run.timer_floor->events_only), format_duration(run.timer_floor->empty_kernel),
                 format_duration(run.timer_floor->empty_kernel_batch),
                 format_duration(run.timer_floor->empty_launch_wall));
    }
    for (const case_record& c : run.cases) {
      const std::string name = c.shape.dims().empty() ? c.case_name : c.case_name + "/" + c.shape.to_string();
      if (c.timing) fmt::print("{}", format_timing(name, *c.timing, run.copy->bytes_per_second));
      if (c.verdict != "pass" && c.verdict != "skipped") fmt::print("FAIL {}: {}\n", name, c.message);
    }
  }
  return finish(program, options, 0);
}

// Lists every case and shape, instantiating each declaration on the host (no GPU needed), so a broken
// declaration is an error here too.
inline int run_list() {
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : reg.shapes()) {
      const auto declared = declare_on_host(reg, s);
      declared->validate();
      std::string buffers;
      for (const auto& b : declared->buffers()) {
        const char* role = b->role == buffer_role::input ? "in" : b->role == buffer_role::output ? "out" : "inout";
        buffers += fmt::format("{}{} {} {}", buffers.empty() ? "" : ", ", role, b->name, describe_array(b->type, b->extents));
      }
      fmt::print("{}: {}\n", test_name(reg, s), buffers);
    }
  }
  return 0;
}

// Names registered twice make reports ambiguous.
inline void check_registry() {
  if (registered_cases().empty()) throw usage_error("no case is registered in this program (KBENCH_REGISTER)");
  std::set<std::string> names;
  for (const case_registration& reg : registered_cases()) {
    if (!names.insert(reg.name()).second) throw usage_error("case '" + reg.name() + "' is registered twice");
  }
}

}  // namespace detail

// main() of a kbench program; see the top of this file.
inline int run_main(int argc, char** argv) {
  try {
    run_options options = parse_options(argc, argv);
    detail::check_registry();
    run_record& run = detail::journal();
    run.kbench_version = version;
    run.compiler = detail::compiler_description();
    run.warmup = options.warmup;
    run.iterations = options.iterations;
    switch (options.mode) {
      case run_mode::correctness: run.mode = "correctness"; return detail::run_correctness(argv[0], options);
      case run_mode::perf: run.mode = "perf"; return detail::run_perf(argv[0], options);
      case run_mode::list: return detail::run_list();
    }
  } catch (const usage_error& e) {
    std::fprintf(stderr, "kbench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbench: %s\n", e.what());
    return 1;
  }
  return 1;
}

}  // namespace kbench

int main(int argc, char** argv) { return kbench::run_main(argc, argv); }
