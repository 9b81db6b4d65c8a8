// kbench/decisions/baseline.hpp: a perf run against an earlier one (`kbench-compare OLD.json NEW.json`): which cases
// got slower or faster, by how much and how surely, and which fail now. Both runs are "kbench-results/1"
// documents (json_report.hpp). HIP-free; opt-in (it pulls in nlohmann/json).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/error.hpp"
#include "../results/json_report.hpp"
#include "../results/report.hpp"
#include "../results/results_document.hpp"
#include "../results/statistics.hpp"

namespace kbench {

// Reads a perf run's results. A file that is missing, not JSON, of another schema, a correctness run, or
// without well-formed cases is a usage error naming the file.
[[nodiscard]] inline nlohmann::ordered_json load_results(const std::string& path) {
  using json = nlohmann::ordered_json;
  auto problem = [&](const std::string& what) { return usage_error("'" + path + "' " + what); };
  std::ifstream file(path);
  if (!file) throw problem("cannot be opened (no such file, or not readable)");
  json doc;
  try {
    doc = json::parse(file);
  } catch (const json::parse_error& e) {
    throw problem(std::string("is not JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("schema")) throw problem("is not a kbench results file: it has no \"schema\"");
  if (doc["schema"] != "kbench-results/1") {
    throw problem("has schema " + doc["schema"].dump() + "; kbench reads \"kbench-results/1\"");
  }
  if (!doc.contains("mode") || doc["mode"] != "perf") {
    throw problem("is not a perf run (mode " + (doc.contains("mode") ? doc["mode"].dump() : "absent") +
                  "): it has no timings to compare");
  }
  if (!doc.contains("cases") || !doc["cases"].is_array()) throw problem("has no \"cases\" array");
  std::size_t index = 0;
  for (const json& c : doc["cases"]) {
    const bool well_formed =
        c.is_object() && c.contains("case") && c["case"].is_string() && c.contains("shape") && c["shape"].is_object() &&
        std::all_of(c["shape"].begin(), c["shape"].end(), [](const json& size) { return size.is_number_integer(); }) &&
        c.contains("verdict") && c["verdict"].is_string() && c.contains("timing") &&
        (c["timing"].is_null() || c["timing"].is_object());
    if (!well_formed) {
      throw problem(fmt::format("has a malformed case (number {}): each needs \"case\", \"shape\" {{dim: size}}, "
                                "\"verdict\" and \"timing\"",
                                index));
    }
    ++index;
  }
  return doc;
}

struct baseline_options {
  double threshold = 0.05;  // the relative slowdown that counts as a regression: 5% slower or more
  int resamples = 2000;     // bootstrap resamples of each ratio's interval
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
  nlohmann::ordered_json shape;  // {dim: size}, as the current run wrote it
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
  bool now_fails = false;  // passed in the baseline, fails or errs now
  std::vector<std::string> notes;
  [[nodiscard]] bool regressed() const { return now_fails || change == time_change::slower; }
};

struct baseline_report {
  baseline_options options;
  std::vector<baseline_case> cases;     // in both runs, in the current run's order
  std::vector<std::string> added;       // labels only in the current run
  std::vector<std::string> missing;     // labels only in the baseline: a warning, not a regression
  std::vector<std::string> warnings;    // the runs differ in device, compiler or kbench version
  std::optional<double> geomean_ratio;  // of the optimized ratios, over the cases timed in both runs

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
  [[nodiscard]] bool regressed() const {
    return std::any_of(cases.begin(), cases.end(), [](const baseline_case& x) { return x.regressed(); });
  }
};

namespace detail {

// The median of `v`, reordering it: the middle value, or the mean of the two middle ones (as summarize()).
inline double median_in_place(std::vector<double>& v) {
  const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), middle, v.end());
  if (v.size() % 2 == 1) return *middle;
  return (*std::max_element(v.begin(), middle) + *middle) / 2.0;
}

// 95% interval of median(numerator) / median(denominator) for independent samples (two runs taken apart,
// so nothing pairs them, unlike statistics.hpp's ratio_of_medians_interval): a percentile bootstrap that
// resamples each set on its own. Seeded, so the same samples always give the same interval.
[[nodiscard]] inline interval ratio_of_medians_interval_unpaired(const std::vector<double>& numerator,
                                                                 const std::vector<double>& denominator,
                                                                 int resamples = 2000,
                                                                 std::uint64_t seed = 0x6b62656e6368ull) {
  if (numerator.empty() || denominator.empty() || resamples < 1) {
    throw usage_error("an unpaired ratio interval needs samples on both sides and at least one resample");
  }
  std::mt19937_64 rng(seed);
  std::vector<double> a(numerator.size()), b(denominator.size()), ratios(static_cast<std::size_t>(resamples));
  auto resampled_median = [&rng](const std::vector<double>& from, std::vector<double>& into) {
    std::uniform_int_distribution<std::size_t> pick(0, from.size() - 1);
    for (double& x : into) x = from[pick(rng)];
    return median_in_place(into);
  };
  for (double& ratio : ratios) {
    const double top = resampled_median(numerator, a);  // two statements: the draws' order is fixed
    ratio = top / resampled_median(denominator, b);
  }
  std::sort(ratios.begin(), ratios.end());
  return {quantile_of_sorted(ratios, 0.025), quantile_of_sorted(ratios, 0.975)};
}

// One kernel's median and raw samples in a case's "timing"; absent when it was not timed (a host reference).
struct timed_side {
  std::optional<double> median;
  std::vector<double> samples;
};

inline std::optional<timed_side> timed_side_of(const nlohmann::ordered_json& timing, const char* side) {
  const auto stats = timing.find(side);
  if (stats == timing.end() || stats->is_null()) return std::nullopt;
  timed_side s{number_at(*stats, "median"), {}};
  const auto samples = timing.find("samples");
  if (samples != timing.end() && samples->is_object() && samples->contains(side) && (*samples)[side].is_array()) {
    for (const auto& x : (*samples)[side]) {
      const std::optional<double> v = number_in(x);
      if (v && std::isfinite(*v)) s.samples.push_back(*v);
    }
  }
  return s;
}

inline std::optional<time_ratio> ratio_between(const std::optional<timed_side>& before,
                                               const std::optional<timed_side>& now, int resamples) {
  if (!before || !now || !before->median || !now->median || !(*before->median > 0) || !std::isfinite(*now->median)) {
    return std::nullopt;
  }
  time_ratio r{*now->median / *before->median, std::nullopt};
  if (!before->samples.empty() && !now->samples.empty()) {
    r.ci = ratio_of_medians_interval_unpaired(now->samples, before->samples, resamples);
  }
  return r;
}

inline time_change judge_ratio(const time_ratio& r, double threshold) {
  const interval ci = r.ci.value_or(interval{r.ratio, r.ratio});
  if (ci.low > 1.0 + threshold) return time_change::slower;
  if (ci.high < 1.0 / (1.0 + threshold)) return time_change::faster;
  return time_change::same;
}

// What matches a case across runs: its name and its dims whatever their order.
inline std::string match_key(const nlohmann::ordered_json& c) {
  std::vector<std::string> dims;
  for (const auto& [name, size] : c.at("shape").items()) dims.push_back(name + "=" + size.dump());
  std::sort(dims.begin(), dims.end());
  std::string key = c.at("case").get<std::string>();
  for (const std::string& d : dims) key += "\n" + d;
  return key;
}

inline const nlohmann::ordered_json& cases_of(const nlohmann::ordered_json& doc, const char* which) {
  if (!doc.is_object() || !doc.contains("cases") || !doc["cases"].is_array()) {
    throw usage_error(std::string("the ") + which + " run has no \"cases\" array");
  }
  return doc["cases"];
}

inline std::string format_ratio(const std::optional<time_ratio>& r) {
  if (!r) return "-";
  if (!r->ci) return fmt::format("{:.3f} (no samples)", r->ratio);
  return fmt::format("{:.3f} ({:.3f} to {:.3f})", r->ratio, r->ci->low, r->ci->high);
}

inline std::string format_seconds(const std::optional<double>& s) { return s ? format_duration(*s) : "-"; }

inline std::string verdict_text(const baseline_case& c) {
  return c.now_fails ? "now fails (" + c.current_verdict + ")" : std::string(to_string(c.change));
}

inline baseline_case compare_case(const nlohmann::ordered_json& before, const nlohmann::ordered_json& now,
                                  const baseline_options& options) {
  baseline_case c;
  c.case_name = now.at("case").get<std::string>();
  c.shape = now.at("shape");
  c.label = case_label_of(now);
  c.baseline_verdict = before.at("verdict").get<std::string>();
  c.current_verdict = now.at("verdict").get<std::string>();
  const bool passed_before = c.baseline_verdict == "pass";
  c.now_fails = passed_before && (c.current_verdict == "fail" || c.current_verdict == "error");
  if (passed_before && (c.current_verdict == "skipped" || c.current_verdict == "filtered")) {
    c.notes.push_back(fmt::format("passed in the baseline, {} now", c.current_verdict));
  }
  const auto& t0 = before.at("timing");
  const auto& t1 = now.at("timing");
  if (!t0.is_object() || !t1.is_object()) return c;
  c.baseline_mode = t0.at("mode").get<std::string>();
  c.current_mode = t1.at("mode").get<std::string>();
  const std::optional<timed_side> optimized_before = timed_side_of(t0, "optimized");
  const std::optional<timed_side> optimized_now = timed_side_of(t1, "optimized");
  if (optimized_before) c.baseline_median = optimized_before->median;
  if (optimized_now) c.current_median = optimized_now->median;
  c.optimized = ratio_between(optimized_before, optimized_now, options.resamples);
  c.reference = ratio_between(timed_side_of(t0, "reference"), timed_side_of(t1, "reference"), options.resamples);
  if (!c.optimized) return c;
  c.change = judge_ratio(*c.optimized, options.threshold);
  if (c.baseline_mode != c.current_mode) {
    c.notes.push_back(fmt::format("timed {} in the baseline and {} now: the medians measure different things",
                                  c.baseline_mode, c.current_mode));
  }
  if (!c.optimized->ci) c.notes.push_back("a file has no raw samples: judged on the medians alone");
  if (c.change != time_change::same && c.reference && judge_ratio(*c.reference, options.threshold) == c.change) {
    const interval a = c.optimized->ci.value_or(interval{c.optimized->ratio, c.optimized->ratio});
    const interval b = c.reference->ci.value_or(interval{c.reference->ratio, c.reference->ratio});
    if (a.low <= b.high && b.low <= a.high) {
      c.notes.push_back(fmt::format("the reference moved as much ({:.3f}x): the machine or its setup changed, "
                                    "not only the kernel",
                                    c.reference->ratio));
    }
  }
  return c;
}

}  // namespace detail

// Matches the cases of `current` with those of `baseline` by name and shape and compares their times (see
// baseline_case); lists the cases only one run has, and warns when the device, compiler or kbench version
// differ.
[[nodiscard]] inline baseline_report compare_with_baseline(const nlohmann::ordered_json& baseline,
                                                           const nlohmann::ordered_json& current,
                                                           const baseline_options& options = {}) {
  using json = nlohmann::ordered_json;
  if (!(std::isfinite(options.threshold) && options.threshold >= 0.0)) {
    throw usage_error(fmt::format("the baseline threshold must be 0 or more, not {}", options.threshold));
  }
  if (options.resamples < 1) throw usage_error("the baseline comparison needs at least one bootstrap resample");
  baseline_report report;
  report.options = options;
  const json& before = detail::cases_of(baseline, "baseline");
  const json& now = detail::cases_of(current, "current");

  auto field = [](const json& doc, const char* pointer) {
    const json::json_pointer p(pointer);
    return doc.contains(p) ? doc.at(p) : json();
  };
  for (const auto& [what, pointer] : {std::pair{"device", "/device/name"}, std::pair{"compiler", "/compiler"},
                                      std::pair{"kbench version", "/kbench_version"}}) {
    const json a = field(baseline, pointer), b = field(current, pointer);
    if (a != b) report.warnings.push_back(fmt::format("{} differs: baseline {}, current {}", what, a.dump(), b.dump()));
  }

  std::map<std::string, std::size_t> index_before;
  for (std::size_t i = 0; i < before.size(); ++i) index_before.emplace(detail::match_key(before[i]), i);
  std::vector<bool> matched(before.size(), false);
  double log_sum = 0.0;
  std::size_t ratios = 0;
  for (std::size_t i = 0; i < now.size(); ++i) {
    try {
      const auto found = index_before.find(detail::match_key(now[i]));
      if (found == index_before.end()) {
        report.added.push_back(detail::case_label_of(now[i]));
        continue;
      }
      matched[found->second] = true;
      baseline_case c = detail::compare_case(before[found->second], now[i], options);
      if (c.optimized && c.optimized->ratio > 0 && std::isfinite(c.optimized->ratio)) {
        log_sum += std::log(c.optimized->ratio);
        ++ratios;
      }
      report.cases.push_back(std::move(c));
    } catch (const json::exception& e) {
      throw usage_error(fmt::format("case number {} of the current run: {}", i, e.what()));
    }
  }
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (!matched[i]) report.missing.push_back(detail::case_label_of(before[i]));
  }
  if (ratios > 0) report.geomean_ratio = std::exp(log_sum / static_cast<double>(ratios));
  return report;
}

namespace detail {

inline std::string baseline_summary(const baseline_report& r) {
  return fmt::format("baseline: {} same, {} faster, {} slower, {} now failing", r.count(time_change::same),
                     r.count(time_change::faster), r.count(time_change::slower), r.now_failing());
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
  json cases = json::array();
  for (const baseline_case& c : r.cases) {
    cases.push_back({{"case", c.case_name},
                     {"shape", c.shape},
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
                     {"now_fails", c.now_fails},
                     {"regressed", c.regressed()},
                     {"notes", c.notes}});
  }
  return {{"schema", "kbench-baseline/1"},
          {"threshold", detail::number(r.options.threshold)},
          {"resamples", r.options.resamples},
          {"regressed", r.regressed()},
          {"counts",
           {{"same", r.count(time_change::same)}, {"faster", r.count(time_change::faster)},
            {"slower", r.count(time_change::slower)}, {"now_failing", r.now_failing()}}},
          {"geomean_ratio", detail::optional_number(r.geomean_ratio)},
          {"cases", cases},
          {"added", r.added},
          {"missing", r.missing},
          {"warnings", r.warnings}};
}

}  // namespace kbench
