// kbench/program/catch2_adapter.hpp: `<program> correctness`: one Catch2 test per case and shape, each
// running every seed's correctness run and printing its report. HIP-free; compiled once per program.
#pragma once

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

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
#include <catch2/catch_config.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_case_info.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/interfaces/catch_interfaces_testcase.hpp>
#include <catch2/internal/catch_test_case_registry_impl.hpp>
#include <catch2/internal/catch_test_registry.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "case_lifecycle.hpp"

namespace kbench {
namespace detail {

// Every seed's correctness run of one case at one shape, each printed and checked by Catch2 as it ends;
// the first with the extended checks at any size where `extended_at_any_size` (program.hpp says which shape).
class correctness_mode : public case_mode {
 public:
  correctness_mode(const run_options& options, bool extended_at_any_size)
      : options_(options), any_size_(extended_at_any_size) {}

  case_work run(opened_case& instance, const gpu_info&, const case_record& started) override {
    case_work work;
    bool first = true;
    for (std::uint64_t seed : seeds_for_run(options_)) {
      const seed_result& r = work.checks.emplace_back(instance.check(seed, first, first && any_size_));
      first = false;
      const std::string report = format_seed_result(started.case_name, started.shape, r);
      std::fputs(report.c_str(), stdout);
      std::fflush(stdout);
      INFO(report);
      CHECK(r.passed());
    }
    return work;
  }
  void not_run(const case_record& record) override {
    if (record.verdict == case_verdict::filtered) {
      WARN("filtered: " << record.message);
      return;
    }
    // Skipped without a usable GPU, or with fewer GPUs than the case spans.
#if KBENCH_CATCH2_MAJOR >= 3
    SKIP("skipped: " << record.message);
#else
    WARN("skipped: " << record.message);
#endif
  }
  // Catch2 reports it, and fails the test.
  void failed(const std::exception_ptr& e, const case_record&) override { std::rethrow_exception(e); }

 private:
  const run_options& options_;
  bool any_size_;
};

// A shape near a declared one (decisions/nearby_shapes.hpp), checked once with the declared shape's first
// seed. It tests the kernel's indexing at another size, so it leaves out what that seed proved at the
// declared shape (that the tolerance can fail, the reruns under load, the oracle, the alignment). A failure
// names the shape and the option that runs it alone; the other neighbours still run.
class nearby_mode : public case_mode {
 public:
  nearby_mode(const kbench::shape& declared, std::uint64_t seed) : declared_(declared), seed_(seed) {}

  case_work run(opened_case& instance, const gpu_info&, const case_record&) override {
    case_work work;
    work.checks.push_back(instance.check(seed_, false));
    return work;
  }
  void finished(const case_record& record) override {
    if (record.verdict != case_verdict::pass) {
      return report(format_seed_result(record.case_name, record.shape, record.checks.front()), record.shape);
    }
    std::fputs(fmt::format("PASS {} [{}] near {} seed={:#x}\n", record.case_name, record.shape.to_string(),
                           declared_.to_string(), seed_).c_str(), stdout);
    std::fflush(stdout);
  }
  // A neighbour that spans more GPUs than there are (a dimension passed to devices()) is left out
  // (decide_case makes it filtered, not a skip of the run, which would read as 77): not_run reports nothing.
  void failed(const std::exception_ptr&, const case_record& record) override {
    report(fmt::format("FAIL {} [{}]: {}\n", record.case_name, record.shape.to_string(), record.message), record.shape);
  }

 private:
  void report(std::string text, const kbench::shape& s) const {
    text += fmt::format("  a shape near the declared {}; alone: correctness {} --seed {:#x}\n", declared_.to_string(),
                        shape_option(s), seed_);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    FAIL_CHECK(text);
  }

  kbench::shape declared_;
  std::uint64_t seed_;
};

// One Catch2 test: one case at one shape, then the shapes near it.
class correctness_test : public Catch::ITestInvoker {
 public:
  correctness_test(program_run& run, const case_registration& reg, kbench::shape s, const run_options& options)
      : run_(run), reg_(reg), shape_(std::move(s)), options_(options) {}

  // The neighbours run inside the declared shape's test: a user runs, filters and counts the shapes the
  // case declares, and a neighbour means something only beside its declared shape.
  void invoke() const override {
    correctness_mode mode(options_, options_.shapes.empty() && extended_at_any_size(run_, reg_, shape_));
    const case_record& record = run_case_at_shape(run_, reg_, shape_, options_, mode);
    if (record.checks.empty()) return;  // filtered, skipped: nor do its neighbours run
    const std::uint64_t first_seed = record.checks.front().seed;
    for (const kbench::shape& near : nearby_run_shapes(run_, reg_, shape_, options_)) {
      nearby_mode nearby(shape_, first_seed);
      (void)run_case_at_shape(run_, reg_, near, options_, nearby, shape_);
    }
  }

 private:
  program_run& run_;
  const case_registration& reg_;
  kbench::shape shape_;
  const run_options& options_;
};

inline void register_correctness_tests(program_run& run, const run_options& options) {
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : run_shapes(reg, options)) {
      auto* invoker = new correctness_test(run, reg, s, options);  // owned by Catch2's registry
#if KBENCH_CATCH2_MAJOR >= 3
      Catch::AutoReg(Catch::Detail::unique_ptr<Catch::ITestInvoker>(invoker),
                     Catch::SourceLineInfo(reg.file(), static_cast<std::size_t>(reg.line())), Catch::StringRef(),
                     Catch::NameAndTags{case_label(reg.name(), s), "[kbench][correctness]"});
#else
      Catch::AutoReg(invoker, Catch::SourceLineInfo(reg.file(), static_cast<std::size_t>(reg.line())),
                     Catch::StringRef(), Catch::NameAndTags{case_label(reg.name(), s), "[kbench][correctness]"});
#endif
    }
  }
}

// Catch2's exit status, less what is no failure. Catch2 3 returns 4 when every test case was skipped
// (SKIP, kbench's test without a GPU; Session::runInternal in catch_session.cpp, since 3.3): finish()
// decides that case from the run's results (77, or 1 under --require-gpu). Only when they agree, every
// case having recorded a skip: a 4 that means anything else still fails. Not --allow-running-no-tests,
// which also turns a run whose test names matched nothing (2) into 0.
inline int catch2_failure_status(const program_run& run, int status) {
#if KBENCH_CATCH2_MAJOR >= 3
  constexpr int every_test_case_skipped = 4;
  const auto& cases = run.results.cases;
  const bool all_skipped = !cases.empty() && std::all_of(cases.begin(), cases.end(), [](const case_record& c) {
    return c.verdict == case_verdict::skipped;
  });
  if (status == every_test_case_skipped && all_skipped) return 0;
#else
  (void)run;
#endif
  return status;
}

int run_correctness(program_run& run, const char* program, run_options& options) {
  if (options.quick) {
    std::puts("kbench: --quick: the extended checks are skipped (the shapes around the declared ones, the inputs at "
              "the edges of their values; of the misalignments, 8 bytes and the smallest offset only)");
  }
  register_correctness_tests(run, options);
  std::vector<char*> argv = argv_for(program, options.passthrough);
  Catch::Session session;
  const int parse_status = session.applyCommandLine(static_cast<int>(argv.size() - 1), argv.data());
  if (parse_status != 0) return 2;
  // The tests Catch2's filter leaves (the same call its runner makes).
  const Catch::Config& config = session.config();
  begin_tests(run, Catch::filterTests(Catch::getAllTestCasesSorted(config), config.testSpec(), config).size());
  return finish(run, program, options, catch2_failure_status(run, session.run()));
}

}  // namespace detail
}  // namespace kbench
