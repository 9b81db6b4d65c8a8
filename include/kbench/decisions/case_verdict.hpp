// kbench/decisions/case_verdict.hpp: the one place a case's verdict is decided, from how far its test went
// and what its mode's work returned (program/case_lifecycle.hpp calls it once per case and shape, then
// puts the case's record together). HIP-free and unit-tested.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "../results/outcome.hpp"
#include "../results/results.hpp"

namespace kbench {

// How far a case's test went: its mode's work ran, or the case was left out by a filter, could not run
// (no usable GPU, fewer GPUs than it spans), or an exception ended it.
enum class case_ending { ran, filtered, skipped, error };

// What a mode's work on an opened case returned, as its steps returned it: the correctness runs of each
// seed (correctness, a shape near a declared one, and the census's check), the perf procedure's outcome
// (perf), the census (census).
struct case_work {
  std::vector<seed_result> checks;
  std::optional<perf_outcome> perf;
  std::optional<case_census> census;
};

// A case's verdict, and the line that says why when it was not run or failed outside a comparison.
struct case_decision {
  case_verdict verdict = case_verdict::error;
  std::string message;
};

// The verdict of one case at one shape in `mode`. `near`: a shape near a declared one, which is left out
// (filtered, not skipped) when it cannot run, so that a neighbour spanning more GPUs than there are does
// not make the run read as skipped. `reason`: why it was not run, or the error that ended it.
[[nodiscard]] inline case_decision decide_case(run_mode mode, bool near, case_ending ending, const std::string& reason,
                                               const case_work& work) {
  switch (ending) {
    case case_ending::filtered: return {case_verdict::filtered, reason};
    case case_ending::skipped: return {near ? case_verdict::filtered : case_verdict::skipped, reason};
    case case_ending::error: return {case_verdict::error, reason};
    case case_ending::ran: break;
  }
  if (mode == run_mode::perf) {
    if (!work.perf) return {case_verdict::error, "the perf procedure returned nothing"};
    const std::string failure = work.perf->failure();
    return failure.empty() ? case_decision{case_verdict::pass, {}} : case_decision{case_verdict::fail, failure};
  }
  if (work.checks.empty()) return {case_verdict::error, "no correctness run was made"};
  const bool checks_passed = std::all_of(work.checks.begin(), work.checks.end(), [](const seed_result& r) { return r.passed(); });
  if (mode == run_mode::census) {
    if (!checks_passed) {
      return {case_verdict::fail, "refusing to take the census of a kernel that is not correct (report above)"};
    }
    if (!work.census) return {case_verdict::error, "the census was not taken"};
    for (const finding& f : work.census->findings) {
      if (f.fails()) return {case_verdict::fail, f.text};
    }
    return {case_verdict::pass, {}};
  }
  return {checks_passed ? case_verdict::pass : case_verdict::fail, {}};
}

}  // namespace kbench
