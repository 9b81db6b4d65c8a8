// kbench/decisions/baseline.hpp: a perf run against an earlier one (`kbench-compare OLD.json NEW.json`): which cases
// got slower or faster, by how much and how surely, which fail now, whose test changed (the declaration's
// or the kernels' digest), and whose reference's time moved (a failure unless the change is intended).
// Both runs are "kbench-results/1" documents (json_report.hpp; load_results in results_document.hpp reads
// one from a file); what the comparison finds, and its forms, are in baseline_report.hpp. HIP-free; opt-in
// (it pulls in nlohmann/json).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/error.hpp"
#include "../results/results_document.hpp"
#include "../results/statistics.hpp"
#include "baseline_report.hpp"

namespace kbench {

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

// What matches a case across runs: its name, its dims and its parameters, whatever their order.
inline std::string match_key(const nlohmann::ordered_json& c) {
  std::vector<std::string> dims;
  for (const auto& [name, size] : c.at("shape").items()) dims.push_back(name + "=" + size.dump());
  if (c.contains("parameters")) {
    for (const auto& [name, value] : c.at("parameters").items()) {
      dims.push_back(name + "=" + exact_decimal(value.get<double>()));
    }
  }
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

// A digest a case carries at c[key][field] (absent in documents of an older kbench, and where nothing was
// seen: a correctness run has no census).
inline std::optional<std::string> digest_in(const nlohmann::ordered_json& c, const char* key, const char* field) {
  const auto outer = c.find(key);
  if (outer == c.end() || !outer->is_object()) return std::nullopt;
  const auto inner = outer->find(field);
  if (inner == outer->end() || !inner->is_string()) return std::nullopt;
  return inner->get<std::string>();
}

inline bool digests_differ(const nlohmann::ordered_json& before, const nlohmann::ordered_json& now, const char* key,
                           const char* field) {
  const std::optional<std::string> a = digest_in(before, key, field), b = digest_in(now, key, field);
  return a && b && *a != *b;
}

// Whether the test itself changed between the runs: its declaration, or the kernels a side launches.
inline void note_test_changes(const nlohmann::ordered_json& before, const nlohmann::ordered_json& now, baseline_case& c) {
  c.declaration_changed = digests_differ(before, now, "declaration", "digest");
  c.reference_kernels_changed = digests_differ(before, now, "kernels_digest", "reference");
  c.optimized_kernels_changed = digests_differ(before, now, "kernels_digest", "optimized");
  if (c.declaration_changed) {
    c.notes.push_back("the declaration changed (buffers, tolerances, shapes, work, requirements or allowances)");
  }
  if (c.reference_kernels_changed) c.notes.push_back("the reference's kernels changed (its census differs)");
  if (c.optimized_kernels_changed) c.notes.push_back("the optimized kernels changed (their census differs)");
}

// A reference whose time moved beyond the threshold either way: the speedup is measured against another
// reference than the baseline's (a reference made slower buys a speedup), so it fails unless the run says
// the change is intended.
inline void judge_reference(const baseline_options& options, baseline_case& c) {
  if (!c.reference) return;
  c.reference_change = judge_ratio(*c.reference, options.threshold);
  if (c.reference_change == time_change::same) return;
  c.reference_fails = !options.intended_change;
  c.notes.push_back(fmt::format("the reference's time moved ({:.3f}x){}", c.reference->ratio,
                                options.intended_change ? ": an intended change (--intended-change)"
                                                        : ": the speedup is against another reference; a failure "
                                                          "unless --intended-change"));
}

// The median SM clock of a side's samples in a case's timing (absent in documents of an older kbench, and
// where the clock was not read).
inline std::optional<double> median_clock(const nlohmann::ordered_json& timing, const char* side) {
  const auto clocks = timing.find("clocks");
  if (clocks == timing.end() || !clocks->is_object()) return std::nullopt;
  const auto stats = clocks->find(side);
  if (stats == clocks->end() || !stats->is_object()) return std::nullopt;
  const std::optional<double> median = number_at(*stats, "median");
  return median && *median > 0 ? median : std::nullopt;
}

// Runs whose optimized kernel ran at SM clocks more than this apart (relative) say so: a time moves with
// the clock where a kernel is bound by its own arithmetic or latency.
inline constexpr double clock_tolerance = 0.02;

inline void note_clocks(const nlohmann::ordered_json& before, const nlohmann::ordered_json& now, baseline_case& c) {
  const std::optional<double> a = median_clock(before, "optimized"), b = median_clock(now, "optimized");
  if (!a || !b) return;
  const double ratio = *b / *a;
  if (std::fabs(ratio - 1.0) <= clock_tolerance) return;
  std::string note = fmt::format("the optimized kernel ran at another SM clock: {:.0f} MHz in the baseline, {:.0f} MHz "
                                 "now ({:.3f}x)",
                                 *a / 1e6, *b / 1e6, ratio);
  if (c.optimized) {
    note += fmt::format("; in cycles its time moved {:.3f}x (a kernel bound by its arithmetic or latency keeps its "
                        "cycles when the clock moves; a memory-bound one keeps its seconds)",
                        c.optimized->ratio * ratio);
  }
  c.notes.push_back(note);
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
  note_test_changes(before, now, c);
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
  judge_reference(options, c);
  if (!c.optimized) return c;
  c.change = judge_ratio(*c.optimized, options.threshold);
  if (c.baseline_mode != c.current_mode) {
    c.notes.push_back(fmt::format("timed {} in the baseline and {} now: the medians measure different things",
                                  c.baseline_mode, c.current_mode));
  }
  if (!c.optimized->ci) c.notes.push_back("a file has no raw samples: judged on the medians alone");
  note_clocks(t0, t1, c);
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

// A current run that ended early fails the comparison; a baseline that did is a warning, and so is one
// written before the results carried declarations, against a run that carries them (no test change can
// be seen).
inline void note_completeness(const nlohmann::ordered_json& baseline, const nlohmann::ordered_json& current,
                              baseline_report& report) {
  auto reason = [](const nlohmann::ordered_json& doc) -> std::optional<std::string> {
    if (!doc.contains("complete") || doc["complete"] != false) return std::nullopt;
    const auto why = doc.find("incomplete_reason");
    return why != doc.end() && why->is_string() ? why->get<std::string>() : std::string("no reason given");
  };
  report.current_incomplete = reason(current);
  if (const std::optional<std::string> why = reason(baseline)) report.warnings.push_back("the baseline run is incomplete: " + *why);
  auto declared = [](const nlohmann::ordered_json& cases) {
    return std::any_of(cases.begin(), cases.end(), [](const nlohmann::ordered_json& c) { return c.contains("declaration"); });
  };
  if (declared(cases_of(current, "current")) && !declared(cases_of(baseline, "baseline"))) {
    report.warnings.push_back("the baseline carries no declarations (an older kbench): a changed test cannot be seen");
  }
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
  // The driver's clock setting, where both runs read it (older documents have none).
  const json lock_before = field(baseline, "/clock_setting/locked"), lock_now = field(current, "/clock_setting/locked");
  const json at_before = field(baseline, "/clock_setting/locked_hz"), at_now = field(current, "/clock_setting/locked_hz");
  if (lock_before.is_boolean() && lock_now.is_boolean() && (lock_before != lock_now || at_before != at_now)) {
    auto setting = [](const json& locked, const json& at) {
      if (!locked.get<bool>()) return std::string("not locked");
      return at.is_number() ? fmt::format("locked at {:.0f} MHz", at.get<double>() / 1e6) : std::string("locked");
    };
    report.warnings.push_back(fmt::format("the SM clock setting differs: baseline {}, current {}",
                                          setting(lock_before, at_before), setting(lock_now, at_now)));
  }
  detail::note_completeness(baseline, current, report);

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

}  // namespace kbench
