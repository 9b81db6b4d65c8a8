// kbench/main.hpp: the main() of a kbench test program. Include it in exactly one translation unit (the
// kbench_add_kernel_test CMake function does so in a library compiled once per project).
//
//   <program> correctness [kbench options] [Catch2 options]   one Catch2 test per case and shape
//   <program> perf        [kbench options] [Google Benchmark options]
//   <program> list                                            the registered cases and shapes
//
// Exit status: 0 passed; 1 failed (a wrong kernel, a broken test, a HIP error); 2 bad usage; 77 skipped
// because no GPU is usable (unless --require-gpu / KBENCH_REQUIRE_GPU=1, which makes that a failure).
#pragma once

#include <cstdio>
#include <exception>
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

#include "options.hpp"
#include "runner.hpp"

namespace kbench {
namespace detail {

inline constexpr int exit_skipped = 77;

struct run_tally {
  int skipped = 0;
  int failed = 0;
  std::string skip_reason;
};

inline run_tally& tally() {
  static run_tally t;
  return t;
}

inline std::string test_name(const case_registration& reg, const kbench::shape& s) {
  return s.dims().empty() ? reg.name() : reg.name() + "/" + s.to_string();
}

// The GPU, or the reason to skip (recorded for the exit status).
inline const gpu_info* gpu_or_skip(const run_options& options) {
  const gpu_info& g = gpu(options.device);
  if (g.usable) return &g;
  ++tally().skipped;
  tally().skip_reason = g.reason;
  return nullptr;
}

// One Catch2 test: every seed of one case at one shape.
class correctness_test : public Catch::ITestInvoker {
 public:
  correctness_test(const case_registration& reg, kbench::shape s, const run_options& options)
      : reg_(reg), shape_(std::move(s)), options_(options) {}

  void invoke() const override {
    if (gpu_or_skip(options_) == nullptr) {
#if KBENCH_CATCH2_MAJOR >= 3
      SKIP("skipped: " << tally().skip_reason);
#else
      WARN("skipped: " << tally().skip_reason);
#endif
      return;
    }
    detail::case_instance instance(reg_, shape_);
    bool first = true;
    for (std::uint64_t seed : seeds_for_run(options_)) {
      const seed_result r = instance.check(seed, first);
      first = false;
      const std::string report = format_seed_result(reg_.name(), shape_, r);
      std::fputs(report.c_str(), stdout);
      std::fflush(stdout);
      INFO(report);
      CHECK(r.passed());
    }
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

inline int run_correctness(const char* program, run_options& options) {
  register_correctness_tests(options);
  std::vector<char*> argv = argv_for(program, options.passthrough);
  Catch::Session session;
  const int parse_status = session.applyCommandLine(static_cast<int>(argv.size() - 1), argv.data());
  if (parse_status != 0) return 2;
  const int failed = session.run();
  if (failed != 0) return 1;
  if (tally().skipped > 0) {
    if (options.require_gpu) {
      fmt::print("kbench: {} (KBENCH_REQUIRE_GPU is set, so this fails)\n", tally().skip_reason);
      return 1;
    }
    fmt::print("kbench: skipped {} test(s): {}\n", tally().skipped, tally().skip_reason);
    return exit_skipped;
  }
  return 0;
}

struct perf_row {
  std::string name;
  timing_result timing;
};

inline void perf_benchmark(benchmark::State& state, const case_registration& reg, const kbench::shape& s,
                           const run_options& options, std::vector<perf_row>& rows) {
  if (gpu_or_skip(options) == nullptr) {
    state.SkipWithError(("skipped: " + tally().skip_reason).c_str());
    return;
  }
  const std::string name = test_name(reg, s);
  try {
    detail::case_instance instance(reg, s);
    // Shown correct first, in this process, with a fresh seed; a wrong kernel is never timed.
    const std::vector<std::uint64_t> seeds = seeds_for_run(options);
    const seed_result before = instance.check(seeds.front(), true);
    if (!before.passed()) {
      std::fputs(format_seed_result(reg.name(), s, before).c_str(), stdout);
      ++tally().failed;
      state.SkipWithError("refusing to time a kernel that is not correct (report above)");
      return;
    }
    instance.warm_up(options.warmup);
    std::vector<detail::case_instance::sample_pair> samples;
    samples.reserve(static_cast<std::size_t>(state.max_iterations));
    for (auto _ : state) {
      samples.push_back(instance.sample());
      state.SetIterationTime(samples.back().optimized);
    }
    const timing_result t = instance.summarize_samples(samples, options.warmup);
    // A kernel right only while warmed up or until its inputs change fails now.
    const seed_result after = instance.check(seeds.size() > 1 ? seeds[1] : seeds.front() ^ 0x9E3779B97F4A7C15ull, false);
    if (!after.passed()) {
      std::fputs(format_seed_result(reg.name(), s, after).c_str(), stdout);
      ++tally().failed;
      state.SkipWithError("the optimized kernel was correct before timing and wrong after it");
      return;
    }
    state.counters["median_us"] = t.optimized.median * 1e6;
    state.counters["p10_us"] = t.optimized.p10 * 1e6;
    state.counters["p90_us"] = t.optimized.p90 * 1e6;
    if (t.reference) {
      state.counters["ref_median_us"] = t.reference->median * 1e6;
      state.counters["speedup"] = t.speedup;
    }
    if (t.work.bytes > 0) state.counters["GB/s"] = t.work.bytes / t.optimized.median / 1e9;
    if (t.work.flops > 0) state.counters["TFLOP/s"] = t.work.flops / t.optimized.median / 1e12;
    if (t.work.tokens > 0) state.counters["tokens/s"] = t.work.tokens / t.optimized.median;
    rows.push_back({name, t});
  } catch (const std::exception& e) {
    ++tally().failed;
    fmt::print("FAIL {}: {}\n", name, e.what());
    state.SkipWithError(e.what());
  }
}

inline std::string format_perf_row(const perf_row& row, double copy_bytes_per_second) {
  const timing_result& t = row.timing;
  std::string out = fmt::format("{}\n  optimized  {}\n", row.name, format_stats(t.optimized));
  if (t.reference) {
    out += fmt::format("  reference  {}\n  speedup    {:.3f}x (reference median / optimized median)\n",
                       format_stats(*t.reference), t.speedup);
  } else {
    out += "  reference  host function (not timed)\n";
  }
  if (t.work.bytes > 0) {
    auto fraction = [&](double seconds) { return 100.0 * t.work.bytes / seconds / copy_bytes_per_second; };
    out += fmt::format("  bandwidth  {} optimized ({:.1f}% of copy)", format_rate(t.work.bytes, t.optimized.median, "B"),
                       fraction(t.optimized.median));
    if (t.reference) {
      out += fmt::format(", {} reference ({:.1f}% of copy)", format_rate(t.work.bytes, t.reference->median, "B"),
                         fraction(t.reference->median));
    }
    out += "\n";
  }
  if (t.work.flops > 0) out += fmt::format("  compute    {}\n", format_rate(t.work.flops, t.optimized.median, "FLOP"));
  if (t.work.tokens > 0) out += fmt::format("  tokens     {}\n", format_rate(t.work.tokens, t.optimized.median, "token"));
  return out;
}

inline int run_perf(const char* program, run_options& options) {
  std::vector<char*> argv = argv_for(program, options.passthrough);
  int argc = static_cast<int>(argv.size() - 1);
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data())) return 2;
  std::vector<perf_row> rows;
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : reg.shapes()) {
      benchmark::RegisterBenchmark(test_name(reg, s).c_str(),
                                   [&reg, s, &options, &rows](benchmark::State& state) {
                                     perf_benchmark(state, reg, s, options, rows);
                                   })
          ->UseManualTime()
          ->Iterations(options.iterations)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!rows.empty()) {
    const gpu_info& g = gpu(options.device);
    const copy_bandwidth copy = measure_copy_bandwidth();
    fmt::print("\nkbench perf on {} ({}, {} compute units), {} warm-up and {} timed launches each, interleaved\n",
               g.name, g.arch, g.multiprocessors, options.warmup, options.iterations);
    fmt::print("device-to-device copy of {} MiB: {} (read + write), {}\n", copy.buffer_bytes >> 20,
               format_rate(2.0 * static_cast<double>(copy.buffer_bytes), copy.seconds.median, "B"),
               format_stats(copy.seconds));
    for (const perf_row& row : rows) fmt::print("{}", format_perf_row(row, copy.bytes_per_second));
  }
  if (tally().failed > 0) return 1;
  if (tally().skipped > 0) {
    if (options.require_gpu) {
      fmt::print("kbench: {} (KBENCH_REQUIRE_GPU is set, so this fails)\n", tally().skip_reason);
      return 1;
    }
    fmt::print("kbench: skipped {} benchmark(s): {}\n", tally().skipped, tally().skip_reason);
    return exit_skipped;
  }
  return 0;
}

inline int run_list() {
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : reg.shapes()) fmt::print("{}\n", test_name(reg, s));
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
    switch (options.mode) {
      case run_mode::correctness: return detail::run_correctness(argv[0], options);
      case run_mode::perf: return detail::run_perf(argv[0], options);
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
