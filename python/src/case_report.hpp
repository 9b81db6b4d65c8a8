// python/src/case_report.hpp: one case's record as the console shows it, and the reasons it failed, for a
// Python caller. The text is reports/report.hpp's and census_report.hpp's, in the order a kbench program
// prints them (catch2_adapter.hpp: each check; benchmark_adapter.hpp: the timing, the census; then the
// closing line of a case that did not pass), so that a Python test and a C++ program say the same things.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include <kbench/reports/census_report.hpp>
#include <kbench/reports/report.hpp>
#include <kbench/results/outcome.hpp>
#include <kbench/results/results.hpp>

namespace kbench::python {

[[nodiscard]] inline std::string case_report(const case_record& c) {
  std::string out;
  for (const seed_result& check : c.checks) out += format_seed_result(c.case_name, c.shape, check);
  const std::string label = case_label(c.case_name, c.shape);
  if (c.timing) out += format_timing(label, *c.timing, c.stage_seconds);
  if (c.census) out += format_census(label, *c.census);
  if (c.verdict == case_verdict::skipped) out += "skipped: " + c.message + "\n";
  return out + format_case_outcome(c);
}

// Why the case did not pass, one line each: its message, every failing finding of its checks, timing and
// census, and each output that failed its comparison. Empty for a pass (and for a skip: not a failure).
[[nodiscard]] inline std::vector<std::string> failure_reasons(const case_record& c) {
  std::vector<std::string> reasons;
  if (c.verdict == case_verdict::pass || c.verdict == case_verdict::skipped) return reasons;
  if (!c.message.empty()) reasons.push_back(c.message);
  auto add = [&reasons](const std::vector<finding>& found) {
    for (const std::string& text : texts(found)) reasons.push_back(text);
  };
  for (const seed_result& check : c.checks) {
    add(check.problems);
    for (const output_result& o : check.outputs) {
      if (o.result.passed) continue;
      const std::string why = o.result.reasons.empty() ? "differs from the reference" : o.result.reasons.front();
      reasons.push_back(fmt::format("output '{}' (seed {:#x}): {}", o.name, check.seed, why));
    }
  }
  if (c.timing) add(c.timing->findings);
  if (c.census) add(c.census->findings);
  return reasons;
}

}  // namespace kbench::python
