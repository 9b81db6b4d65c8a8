// kbench/decisions/baseline.hpp: a perf run against an earlier one (`kbench-compare OLD.json NEW.json`): which cases
// got slower or faster, by how much and how surely, which fail now, whose test changed (the declaration's
// or the kernels' digest), and whose reference's time moved (a failure unless the change is intended).
// Both runs are run records (results.hpp), each perhaps read from its "kbench-results/1" document (load_results in
// results_document.hpp reads one from a file); what the comparison finds, and its forms, are in
// baseline_report.hpp; baseline_reporter compares a program's run when it ends. HIP-free; opt-in (it pulls in
// nlohmann/json).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/declaration_digest.hpp"
#include "../contract/error.hpp"
#include "../results/case_digest.hpp"
#include "../reports/report.hpp"
#include "../reports/reporter.hpp"
#include "../results/results.hpp"
#include "../reports/results_document.hpp"
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

// One kernel's median and its raw samples that are finite; absent when it was not timed (a host reference).
struct timed_side {
  std::optional<double> median;
  std::vector<double> samples;
};

inline timed_side timed_side_of(const sample_stats& stats, const std::vector<double>& samples) {
  timed_side s{stats.median, {}};
  for (double v : samples) {
    if (std::isfinite(v)) s.samples.push_back(v);
  }
  return s;
}

inline std::optional<timed_side> reference_side_of(const timing_result& t) {
  if (!t.reference) return std::nullopt;
  return timed_side_of(*t.reference, t.reference_samples);
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
inline std::string match_key(const case_record& c) {
  std::vector<std::string> dims;
  for (const auto& [name, size] : c.shape.dims()) dims.push_back(name + "=" + std::to_string(size));
  for (const auto& [name, value] : c.shape.parameters()) dims.push_back(name + "=" + exact_decimal(value));
  std::sort(dims.begin(), dims.end());
  std::string key = c.case_name;
  for (const std::string& d : dims) key += "\n" + d;
  return key;
}

// The digests a case carries (none in documents of an older kbench, nor where nothing was seen: a correctness
// run has no census): its declaration's, and each side's kernels'.
inline std::optional<std::string> declaration_digest(const case_record& c) {
  if (c.declaration.empty()) return std::nullopt;
  return digest_of_lines(c.declaration);
}

inline std::optional<std::string> kernels_digest_of(const run_record& run, const case_record& c, bool reference) {
  if (!run.kernels_digests_carried || !c.census) return std::nullopt;
  return reference ? kernels_digest(c.census->reference) : kernels_digest(c.census->optimized);
}

inline bool digests_differ(const std::optional<std::string>& a, const std::optional<std::string>& b) {
  return a && b && *a != *b;
}

// Whether the test itself changed between the runs: its declaration, or the kernels a side launches.
inline void note_test_changes(const run_record& baseline, const case_record& before, const run_record& current,
                              const case_record& now, baseline_case& c) {
  c.declaration_changed = digests_differ(declaration_digest(before), declaration_digest(now));
  c.reference_kernels_changed =
      digests_differ(kernels_digest_of(baseline, before, true), kernels_digest_of(current, now, true));
  c.optimized_kernels_changed =
      digests_differ(kernels_digest_of(baseline, before, false), kernels_digest_of(current, now, false));
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

// The median SM clock of the optimized kernel's samples (absent in documents of an older kbench, and where the
// clock was not read).
inline std::optional<double> median_clock(const timing_result& t) {
  if (!t.clocks.optimized || !(t.clocks.optimized->median > 0)) return std::nullopt;
  return t.clocks.optimized->median;
}

// Runs whose optimized kernel ran at SM clocks more than this apart (relative) say so: a time moves with
// the clock where a kernel is bound by its own arithmetic or latency.
inline constexpr double clock_tolerance = 0.02;

inline void note_clocks(const timing_result& before, const timing_result& now, baseline_case& c) {
  const std::optional<double> a = median_clock(before), b = median_clock(now);
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

inline baseline_case compare_case(const run_record& baseline, const case_record& before, const run_record& current,
                                  const case_record& now, const baseline_options& options) {
  baseline_case c;
  c.case_name = now.case_name;
  c.shape = now.shape;
  c.label = case_label(now.case_name, now.shape);
  c.baseline_verdict = std::string(to_string(before.verdict));
  c.current_verdict = std::string(to_string(now.verdict));
  const bool passed_before = before.verdict == case_verdict::pass;
  c.now_fails = passed_before && (now.verdict == case_verdict::fail || now.verdict == case_verdict::error);
  if (passed_before && (now.verdict == case_verdict::skipped || now.verdict == case_verdict::filtered)) {
    c.notes.push_back(fmt::format("passed in the baseline, {} now", c.current_verdict));
  }
  note_test_changes(baseline, before, current, now, c);
  if (!before.timing || !now.timing) return c;
  const timing_result& t0 = *before.timing;
  const timing_result& t1 = *now.timing;
  c.baseline_mode = std::string(to_string(t0.mode));
  c.current_mode = std::string(to_string(t1.mode));
  const timed_side optimized_before = timed_side_of(t0.optimized, t0.optimized_samples);
  const timed_side optimized_now = timed_side_of(t1.optimized, t1.optimized_samples);
  c.baseline_median = optimized_before.median;
  c.current_median = optimized_now.median;
  c.optimized = ratio_between(optimized_before, optimized_now, options.resamples);
  c.reference = ratio_between(reference_side_of(t0), reference_side_of(t1), options.resamples);
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
inline void note_completeness(const run_record& baseline, const run_record& current, baseline_report& report) {
  auto reason = [](const run_record& run) -> std::optional<std::string> {
    if (run.complete) return std::nullopt;
    return run.incomplete_reason.value_or("no reason given");
  };
  report.current_incomplete = reason(current);
  if (const std::optional<std::string> why = reason(baseline)) report.warnings.push_back("the baseline run is incomplete: " + *why);
  auto declared = [](const run_record& run) { return run.declarations_carried && !run.cases.empty(); };
  if (declared(current) && !declared(baseline)) {
    report.warnings.push_back("the baseline carries no declarations (an older kbench): a changed test cannot be seen");
  }
}

// The runs differ in device, compiler or kbench version, or in the driver's clock setting where both read it
// (older documents have none): warnings.
inline void note_run_differences(const run_record& baseline, const run_record& current, baseline_report& report) {
  using json = nlohmann::ordered_json;  // the values as the documents write them: "NVIDIA H200", quoted
  for (const auto& [what, a, b] : {std::tuple{"device", &baseline.device.name, &current.device.name},
                                   std::tuple{"compiler", &baseline.compiler, &current.compiler},
                                   std::tuple{"kbench version", &baseline.kbench_version, &current.kbench_version}}) {
    if (*a != *b) report.warnings.push_back(fmt::format("{} differs: baseline {}, current {}", what, json(*a).dump(), json(*b).dump()));
  }
  const std::optional<clock_control>& before = baseline.clock_setting;
  const std::optional<clock_control>& now = current.clock_setting;
  if (!before || !now || !before->locked || !now->locked) return;
  auto locked_at = [](const clock_control& c) { return c.locked_hz > 0 ? std::optional<double>(c.locked_hz) : std::nullopt; };
  if (*before->locked == *now->locked && locked_at(*before) == locked_at(*now)) return;
  auto setting = [&](const clock_control& c) {
    if (!*c.locked) return std::string("not locked");
    const std::optional<double> at = locked_at(c);
    return at && std::isfinite(*at) ? fmt::format("locked at {:.0f} MHz", *at / 1e6) : std::string("locked");
  };
  report.warnings.push_back(fmt::format("the SM clock setting differs: baseline {}, current {}", setting(*before), setting(*now)));
}

}  // namespace detail

// Matches the cases of `current` with those of `baseline` by name and shape and compares their times (see
// baseline_case); lists the cases only one run has, and warns when the device, compiler or kbench version
// differ.
[[nodiscard]] inline baseline_report compare_with_baseline(const run_record& baseline, const run_record& current,
                                                           const baseline_options& options = {}) {
  if (!(std::isfinite(options.threshold) && options.threshold >= 0.0)) {
    throw usage_error(fmt::format("the baseline threshold must be 0 or more, not {}", options.threshold));
  }
  if (options.resamples < 1) throw usage_error("the baseline comparison needs at least one bootstrap resample");
  baseline_report report;
  report.options = options;
  detail::note_run_differences(baseline, current, report);
  detail::note_completeness(baseline, current, report);

  const std::deque<case_record>& before = baseline.cases;
  std::map<std::string, std::size_t> index_before;
  for (std::size_t i = 0; i < before.size(); ++i) index_before.emplace(detail::match_key(before[i]), i);
  std::vector<bool> matched(before.size(), false);
  double log_sum = 0.0;
  std::size_t ratios = 0;
  for (const case_record& now : current.cases) {
    const auto found = index_before.find(detail::match_key(now));
    if (found == index_before.end()) {
      report.added.push_back(case_label(now.case_name, now.shape));
      continue;
    }
    matched[found->second] = true;
    baseline_case c = detail::compare_case(baseline, before[found->second], current, now, options);
    if (c.optimized && c.optimized->ratio > 0 && std::isfinite(c.optimized->ratio)) {
      log_sum += std::log(c.optimized->ratio);
      ++ratios;
    }
    report.cases.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (!matched[i]) report.missing.push_back(case_label(before[i].case_name, before[i].shape));
  }
  if (ratios > 0) report.geomean_ratio = std::exp(log_sum / static_cast<double>(ratios));
  return report;
}

// A perf run against an earlier one's file (load_results), when the run ends (--baseline): the comparison,
// printed to `out`, and whether it found a regression. A run of another mode is not compared.
class baseline_reporter : public reporter {
 public:
  baseline_reporter(std::string path, const baseline_options& options, std::FILE* out = stdout)
      : path_(std::move(path)), options_(options), out_(out) {}
  void run_ended(const run_record& run) override {
    if (run.mode != run_mode::perf) return;
    const baseline_report report = compare_with_baseline(load_results(path_), run, options_);
    fmt::print(out_, "\nagainst the baseline {}:\n{}", path_, format_baseline(report));
    regressed_ = report.regressed();
  }
  [[nodiscard]] bool regressed() const { return regressed_; }

 private:
  std::string path_;
  baseline_options options_;
  std::FILE* out_;
  bool regressed_ = false;
};

}  // namespace kbench
