// kbench/decisions/baseline_report.hpp: what comparing a perf run with an earlier one found (baseline.hpp
// compares), and its three forms: the text table `kbench-compare` prints, a Markdown table for a pull request
// or a CI summary, and a "kbench-baseline/1" JSON document (which tools/kbench-plot.py reads: it draws the
// intervals computed here rather than computing its own). HIP-free; opt-in (it pulls in nlohmann/json).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/shape.hpp"
#include "../reports/json_report.hpp"
#include "../reports/report.hpp"
#include "../results/statistics.hpp"
#include "../reports/table_report.hpp"

namespace kbench {

struct baseline_options {
  double threshold = 0.05;  // the relative slowdown that counts as a regression: 5% slower or more
  int resamples = 2000;     // bootstrap resamples of each ratio's interval
  // The test changed on purpose: a reference whose time moved beyond the threshold is noted, not a
  // regression (without it, a reference made slower would buy the optimized kernel its speedup).
  bool intended_change = false;
};

// How a case's time changed: its whole 95% interval beyond the threshold either way, or not.
enum class time_change { same, faster, slower, not_timed };

[[nodiscard]] constexpr std::string_view to_string(time_change c) {
  switch (c) {
    case time_change::same: return "same";
    case time_change::faster: return "faster";
    case time_change::slower: return "slower";
    case time_change::not_timed: return "not timed";
  }
  return "?";
}

// Current median / baseline median of one kernel's time: above 1 is slower.
struct time_ratio {
  double ratio = 0.0;
  std::optional<interval> ci;  // 95%, bootstrap; absent when a file lacks the raw samples
};

// One case at one shape, in both runs.
struct baseline_case {
  std::string case_name;
  kbench::shape shape;           // as the current run has it
  std::string label;             // "rmsnorm/rows=37/cols=1531"
  std::string baseline_verdict;  // "pass", "fail", ... (json_report.hpp)
  std::string current_verdict;
  std::string baseline_mode;  // "cold", "hot", "batch"; empty when not timed
  std::string current_mode;
  std::optional<double> baseline_median;  // the optimized kernel's, seconds per launch
  std::optional<double> current_median;
  std::optional<time_ratio> optimized;  // timed in both runs
  std::optional<time_ratio> reference;  // context: a device reference in both runs
  time_change change = time_change::not_timed;
  time_change reference_change = time_change::not_timed;  // the device reference's time, judged the same way
  bool now_fails = false;  // passed in the baseline, fails or errs now
  // The test itself differs from the baseline's (both runs carry digests, and they differ): its
  // declaration (contract/declaration_digest.hpp), or the kernels a side launches (results/case_digest.hpp).
  bool declaration_changed = false;
  bool reference_kernels_changed = false;
  bool optimized_kernels_changed = false;  // the optimizer's work: a note
  bool reference_fails = false;  // the reference's time moved beyond the threshold, not --intended-change
  std::vector<std::string> notes;
  [[nodiscard]] bool test_changed() const { return declaration_changed || reference_kernels_changed; }
  [[nodiscard]] bool regressed() const { return now_fails || change == time_change::slower || reference_fails; }
};

struct baseline_report {
  baseline_options options;
  std::vector<baseline_case> cases;     // in both runs, in the current run's order
  std::vector<std::string> added;       // labels only in the current run
  std::vector<std::string> missing;     // labels only in the baseline: a warning, not a regression
  std::vector<std::string> warnings;    // the runs differ in device, compiler or kbench version
  std::optional<double> geomean_ratio;  // of the optimized ratios, over the cases timed in both runs
  std::optional<std::string> current_incomplete;  // the current run ended early (its document says why): fails

  // Cases with this change among those that do not fail now (each case counts once).
  [[nodiscard]] std::size_t count(time_change c) const {
    return static_cast<std::size_t>(std::count_if(cases.begin(), cases.end(), [c](const baseline_case& x) {
      return !x.now_fails && x.change == c;
    }));
  }
  [[nodiscard]] std::size_t now_failing() const {
    return static_cast<std::size_t>(
        std::count_if(cases.begin(), cases.end(), [](const baseline_case& x) { return x.now_fails; }));
  }
  // The labels of the cases that `pick` picks, in order.
  template <class Pick>
  [[nodiscard]] std::vector<std::string> labels_if(Pick pick) const {
    std::vector<std::string> labels;
    for (const baseline_case& x : cases) {
      if (pick(x)) labels.push_back(x.label);
    }
    return labels;
  }
  [[nodiscard]] std::vector<std::string> changed_tests() const {
    return labels_if([](const baseline_case& x) { return x.test_changed(); });
  }
  [[nodiscard]] std::vector<std::string> reference_moved() const {
    return labels_if([](const baseline_case& x) { return x.reference_change == time_change::slower || x.reference_change == time_change::faster; });
  }
  [[nodiscard]] bool regressed() const {
    return current_incomplete.has_value() ||
           std::any_of(cases.begin(), cases.end(), [](const baseline_case& x) { return x.regressed(); });
  }
};

namespace detail {

inline std::string format_ratio(const std::optional<time_ratio>& r) {
  if (!r) return "-";
  if (!r->ci) return fmt::format("{:.3f} (no samples)", r->ratio);
  return fmt::format("{:.3f} ({:.3f} to {:.3f})", r->ratio, r->ci->low, r->ci->high);
}

inline std::string format_seconds(const std::optional<double>& s) { return s ? format_duration(*s) : "-"; }

inline std::string verdict_text(const baseline_case& c) {
  if (c.now_fails) return "now fails (" + c.current_verdict + ")";
  std::string text(to_string(c.change));
  if (c.reference_fails) text += fmt::format(", reference {}", to_string(c.reference_change));
  return text;
}

// The counts; a reference that moved and a test that changed only when there are some (the line stays
// as it was for a plain comparison).
inline std::string baseline_summary(const baseline_report& r) {
  std::string line = fmt::format("baseline: {} same, {} faster, {} slower, {} now failing", r.count(time_change::same),
                                 r.count(time_change::faster), r.count(time_change::slower), r.now_failing());
  if (const std::size_t moved = r.reference_moved().size(); moved > 0) {
    line += fmt::format(", {} reference{} moved{}", moved, moved == 1 ? "" : "s", r.options.intended_change ? " (intended)" : "");
  }
  if (const std::size_t changed = r.changed_tests().size(); changed > 0) line += fmt::format(", {} test{} changed", changed, changed == 1 ? "" : "s");
  return line + (r.current_incomplete ? ", the current run incomplete" : "");
}

// The lines after the table, shared by the text and the Markdown: geomean, added, missing, warnings.
inline std::vector<std::string> baseline_footer(const baseline_report& r) {
  std::vector<std::string> lines;
  if (r.geomean_ratio) {
    lines.push_back(fmt::format("geomean ratio {:.3f} over {} case(s) timed in both runs", *r.geomean_ratio,
                                std::count_if(r.cases.begin(), r.cases.end(),
                                              [](const baseline_case& c) { return c.optimized.has_value(); })));
  }
  auto join = [](const std::vector<std::string>& labels) {
    std::string s;
    for (const std::string& l : labels) s += (s.empty() ? "" : ", ") + l;
    return s;
  };
  if (r.current_incomplete) lines.push_back("the current run is incomplete, so it fails: " + *r.current_incomplete);
  if (const std::vector<std::string> changed = r.changed_tests(); !changed.empty()) {
    lines.push_back("test changed (its declaration or its reference's kernels differ from the baseline's): " + join(changed));
  }
  if (const std::vector<std::string> moved = r.reference_moved(); !moved.empty()) {
    lines.push_back(fmt::format("reference time moved beyond {:g}% ({}): {}", 100 * r.options.threshold,
                                r.options.intended_change ? "--intended-change: noted" : "a failure unless --intended-change",
                                join(moved)));
  }
  if (!r.added.empty()) lines.push_back("added (only in the current run): " + join(r.added));
  if (!r.missing.empty()) {
    lines.push_back("warning: missing (in the baseline, not in the current run): " + join(r.missing));
  }
  for (const std::string& w : r.warnings) lines.push_back("warning: " + w);
  return lines;
}

}  // namespace detail

// The comparison as a text table: per case the optimized kernel's median in both runs, their ratio with
// its 95% interval, the reference's ratio (context) and the verdict; then the geomean, the cases only one
// run has, the warnings, and one line of counts.
[[nodiscard]] inline std::string format_baseline(const baseline_report& r) {
  std::size_t width = 4;
  for (const baseline_case& c : r.cases) width = std::max(width, c.label.size());
  std::string out = fmt::format(
      "kbench baseline: current / baseline median time of the optimized kernel (above 1: slower), 95% interval; "
      "a change counts beyond {:g}%\n",
      100 * r.options.threshold);
  out += fmt::format("{:<{}}  {:>10}  {:>10}  {:<26}  {:<26}  {}\n", "case", width, "baseline", "current",
                     "ratio (95% interval)", "reference ratio", "verdict");
  for (const baseline_case& c : r.cases) {
    out += fmt::format("{:<{}}  {:>10}  {:>10}  {:<26}  {:<26}  {}\n", c.label, width,
                       detail::format_seconds(c.baseline_median), detail::format_seconds(c.current_median),
                       detail::format_ratio(c.optimized), detail::format_ratio(c.reference), detail::verdict_text(c));
    for (const std::string& n : c.notes) out += fmt::format("  note: {}\n", n);
  }
  for (const std::string& line : detail::baseline_footer(r)) out += line + "\n";
  return out + detail::baseline_summary(r) + "\n";
}

// The same as a Markdown table, for a pull request or a CI summary.
[[nodiscard]] inline std::string to_markdown(const baseline_report& r) {
  std::string out = fmt::format(
      "| case | baseline | current | ratio (95% interval) | reference ratio | verdict |\n"
      "| --- | ---: | ---: | ---: | ---: | --- |\n");
  for (const baseline_case& c : r.cases) {
    std::string verdict = detail::verdict_text(c);
    for (const std::string& n : c.notes) verdict += "; " + n;
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", detail::markdown_cell(c.label),
                       detail::format_seconds(c.baseline_median), detail::format_seconds(c.current_median),
                       detail::format_ratio(c.optimized), detail::format_ratio(c.reference),
                       detail::markdown_cell(verdict));
  }
  out += fmt::format("\nRatio: current / baseline median time of the optimized kernel (above 1: slower); a change "
                     "counts when its whole 95% interval is beyond {:g}%.\n\n",
                     100 * r.options.threshold);
  for (const std::string& line : detail::baseline_footer(r)) out += "- " + line + "\n";
  return out + "\n**" + detail::baseline_summary(r) + "**\n";
}

[[nodiscard]] inline nlohmann::ordered_json to_json(const baseline_report& r) {
  using json = nlohmann::ordered_json;
  auto ratio = [](const std::optional<time_ratio>& t) {
    return t ? detail::number(t->ratio) : json(nullptr);
  };
  auto ci = [](const std::optional<time_ratio>& t) {
    if (!t || !t->ci) return json(nullptr);
    return json{{"low", detail::number(t->ci->low)}, {"high", detail::number(t->ci->high)}};
  };
  auto dims_json = [](const kbench::shape& s) {  // {dim: size}, in the shape's order, as the results document has it
    json dims = json::object();
    for (const auto& [name, size] : s.dims()) dims[name] = size;
    return dims;
  };
  json cases = json::array();
  for (const baseline_case& c : r.cases) {
    cases.push_back({{"case", c.case_name},
                     {"shape", dims_json(c.shape)},
                     {"label", c.label},
                     {"baseline_verdict", c.baseline_verdict},
                     {"current_verdict", c.current_verdict},
                     {"baseline_mode", c.baseline_mode},
                     {"current_mode", c.current_mode},
                     {"baseline_median", detail::optional_number(c.baseline_median)},
                     {"current_median", detail::optional_number(c.current_median)},
                     {"ratio", ratio(c.optimized)},
                     {"ratio_interval", ci(c.optimized)},
                     {"reference_ratio", ratio(c.reference)},
                     {"reference_ratio_interval", ci(c.reference)},
                     {"verdict", std::string(to_string(c.change))},
                     {"reference_verdict", std::string(to_string(c.reference_change))},
                     {"reference_fails", c.reference_fails},
                     {"declaration_changed", c.declaration_changed},
                     {"reference_kernels_changed", c.reference_kernels_changed},
                     {"optimized_kernels_changed", c.optimized_kernels_changed},
                     {"now_fails", c.now_fails},
                     {"regressed", c.regressed()},
                     {"notes", c.notes}});
  }
  return {{"schema", "kbench-baseline/1"},
          {"threshold", detail::number(r.options.threshold)},
          {"resamples", r.options.resamples},
          {"intended_change", r.options.intended_change},
          {"regressed", r.regressed()},
          {"current_incomplete", r.current_incomplete ? json(*r.current_incomplete) : json(nullptr)},
          {"counts",
           {{"same", r.count(time_change::same)}, {"faster", r.count(time_change::faster)},
            {"slower", r.count(time_change::slower)}, {"now_failing", r.now_failing()}}},
          {"geomean_ratio", detail::optional_number(r.geomean_ratio)},
          {"cases", cases},
          {"changed_tests", r.changed_tests()},
          {"reference_moved", r.reference_moved()},
          {"added", r.added},
          {"missing", r.missing},
          {"warnings", r.warnings}};
}

}  // namespace kbench
