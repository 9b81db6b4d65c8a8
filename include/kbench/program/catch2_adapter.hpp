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
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/interfaces/catch_interfaces_testcase.hpp>
#include <catch2/internal/catch_test_registry.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "case_lifecycle.hpp"

namespace kbench {
namespace detail {

// Every seed's correctness run of one case at one shape, each printed and checked by Catch2.
class correctness_mode : public case_mode {
 public:
  explicit correctness_mode(const run_options& options) : options_(options) {}

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
  void run(case_run& instance, const gpu_info&, case_record& record) override {
    bool first = true;
    for (std::uint64_t seed : seeds_for_run(options_)) {
      const seed_result& r = record.checks.emplace_back(instance.check(seed, first));
      first = false;
      const std::string report = format_seed_result(record.case_name, record.shape, r);
      std::fputs(report.c_str(), stdout);
      std::fflush(stdout);
      INFO(report);
      CHECK(r.passed());
    }
    const bool passed = std::all_of(record.checks.begin(), record.checks.end(), [](const seed_result& r) { return r.passed(); });
    record.verdict = passed ? case_verdict::pass : case_verdict::fail;
  }
  // Catch2 reports it, and fails the test.
  void failed(const std::exception&, const case_record&) override { throw; }

 private:
  const run_options& options_;
};

// One Catch2 test: one case at one shape.
class correctness_test : public Catch::ITestInvoker {
 public:
  correctness_test(const case_registration& reg, kbench::shape s, const run_options& options)
      : reg_(reg), shape_(std::move(s)), options_(options) {}

  void invoke() const override {
    correctness_mode mode(options_);
    run_case(reg_, shape_, options_, mode);
  }

 private:
  const case_registration& reg_;
  kbench::shape shape_;
  const run_options& options_;
};

inline void register_correctness_tests(const run_options& options) {
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : run_shapes(reg, options)) {
      auto* invoker = new correctness_test(reg, s, options);  // owned by Catch2's registry
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
// decides that case from the journal (77, or 1 under --require-gpu). Only when the journal agrees, every
// case having recorded a skip: a 4 that means anything else still fails. Not --allow-running-no-tests,
// which also turns a run whose test names matched nothing (2) into 0.
inline int catch2_failure_status(int status) {
#if KBENCH_CATCH2_MAJOR >= 3
  constexpr int every_test_case_skipped = 4;
  const auto& cases = journal().cases;
  const bool all_skipped = !cases.empty() && std::all_of(cases.begin(), cases.end(), [](const case_record& c) {
    return c.verdict == case_verdict::skipped;
  });
  if (status == every_test_case_skipped && all_skipped) return 0;
#endif
  return status;
}

int run_correctness(const char* program, run_options& options) {
  register_correctness_tests(options);
  progress().begin(count_tests(options), !options.passthrough.empty());
  std::vector<char*> argv = argv_for(program, options.passthrough);
  Catch::Session session;
  const int parse_status = session.applyCommandLine(static_cast<int>(argv.size() - 1), argv.data());
  if (parse_status != 0) return 2;
  return finish(program, options, catch2_failure_status(session.run()));
}

}  // namespace detail
}  // namespace kbench
