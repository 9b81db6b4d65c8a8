// kbench/decisions/judge.hpp: the judging of a timing, as plain functions over plain results: the speedup's
// verdict, and the findings that make a perf test fail (work the timed stream did not see, implausible
// speedups and bandwidths, unmet requirements) or that are worth a note. HIP-free: the timing run
// (procedure/timing_run.hpp) only measures; everything it concludes is decided here, from its
// measurements (never changed), and unit-tested.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../results/outcome.hpp"
#include "../reports/report.hpp"
#include "../results/results.hpp"
#include "../results/roofline.hpp"
#include "../results/statistics.hpp"
#include "../results/throughput.hpp"
#include "../results/time_saved.hpp"

namespace kbench {

// Significant, and larger than the 1% that separate runs and builds move a median.
[[nodiscard]] inline speedup_verdict judge_speedup(const interval& speedup) {
  if (speedup.low > 1.01) return speedup_verdict::faster;
  if (speedup.high < 0.99) return speedup_verdict::slower;
  return speedup_verdict::no_significant_difference;
}

// What a timing is judged against: the device's L2 (what a cold working set must exceed to be read
// from memory), its copy and read bandwidth, and the timer's floor.
struct judging_context {
  double l2_bytes = 0.0;
  copy_bandwidth copy;
  timer_floor floor;
  std::vector<compute_peak> peaks;  // the arithmetic peaks (empty: none measured)
};

namespace detail {

// Whether the declared bytes must come from memory: cold caches and a working set beyond twice the L2. Only
// then does the memory bandwidth bound a launch (the roofline's memory ceiling, the bandwidth check).
inline bool served_from_memory(const timing_measurements& t, const judging_context& c) {
  return t.mode == timing_mode::cold && t.work.bytes > 2.0 * c.l2_bytes;
}

// Batch mode against launches alone. In batch mode only the last launches of a sample can be checked (those
// whose output copies no later launch writes: procedure/timed_checks.hpp), so a kernel that skips work in the
// others would pass every check and time as a fraction of itself. Its launches alone cannot hide it: each
// is checked, and timed behind a spin with hot caches (hot_latency). With what a launch costs taken out of
// both (the timer's floor: an empty kernel alone and in a graph, once per kernel a launch puts on the stream),
// a launch in a batch takes about what it takes alone: 0.64 to 1.1 times over the shipped cases on the H200,
// below only where launches in a graph overlap their overheads. Below 0.4 times, and 0.5 us apart, the batch
// did less work than its launches alone.
inline std::optional<finding> judge_batch_against_alone(const timing_measurements& t, const judging_context& c) {
  if (t.mode != timing_mode::batch || t.hot_latency <= 0 || c.floor.empty_kernel <= 0 || t.launches_per_sample < 1) {
    return std::nullopt;
  }
  const double kernels = t.optimized_graph_operations > 0
                             ? std::max(1.0, std::round(static_cast<double>(t.optimized_graph_operations) / t.launches_per_sample))
                             : 1.0;
  const double alone = t.hot_latency - kernels * (c.floor.empty_kernel - c.floor.events_only);
  const double batched = t.optimized.median - kernels * c.floor.empty_kernel_batch;
  if (alone <= 0 || batched >= 0.4 * alone || alone - batched <= 0.5e-6) return std::nullopt;
  return finding{finding_kind::unseen_work,
                 fmt::format("in a batch the optimized kernel takes {} a launch and alone {} (hot caches, the cost of "
                             "a launch taken out of both): the launches of a batch do less work than a launch alone, "
                             "as a kernel that skips the launches no check reaches would (only the last launches of "
                             "a batch can be checked)",
                             format_duration(std::max(batched, 0.0)), format_duration(alone))};
}

// Work outside the timed region: the device still busy after the timed events; work a launch leaves running
// after it returns, or waits for inside its call, on another stream (procedure/unseen_work.hpp); a graph that
// captured fewer operations than launches.
inline std::vector<finding> judge_unseen_work(const timing_measurements& t, const judging_context& c) {
  std::vector<finding> found;
  auto add = [&found](finding_kind kind, std::string text) { found.push_back({kind, std::move(text)}); };
  // Where the call was measured under the load (a side timed behind the launch gate), its host work is its
  // own: only what the device still does after it returns counts here, and a wait inside it shows below.
  // Elsewhere the whole call counts, as the device's time.
  const bool apart = t.saturation > 0 && t.launch_call > 0;
  const double busy = t.launch_wall - (apart ? t.launch_call : 0.0) - c.floor.empty_launch_wall;
  if (t.launch_wall > 0 && busy - 2 * t.single_launch > std::max(20e-6, t.single_launch)) {
    add(finding_kind::unseen_work,
        fmt::format("one launch keeps the device busy {}{} on the host's clock but {} on the timed stream: work ran on "
                    "another stream or after the launch returned, outside the timed region",
                    format_duration(busy), apart ? " after its call returns" : "", format_duration(t.single_launch)));
  }
  if (apart && t.saturated_call - t.launch_call > t.saturation / 2) {
    add(finding_kind::unseen_work,
        fmt::format("the launch function waits for the device inside its call: with every compute unit kept busy for {} "
                    "from another stream, one call took {} (on an idle device {}); the work it waits for runs before the "
                    "timed stream starts, outside the timed region",
                    format_duration(t.saturation), format_duration(t.saturated_call), format_duration(t.launch_call)));
  }
  for (const char* who : {"reference", "optimized"}) {
    const long long operations = who[0] == 'o' ? t.optimized_graph_operations : t.reference_graph_operations;
    if (operations < 0) continue;
    if (operations == 0) {
      add(finding_kind::unseen_work,
          fmt::format("the {} launch put no work on the stream kbench gave it: work on another stream is not timed", who));
    } else if (operations < t.launches_per_sample) {
      add(finding_kind::unseen_work,
          fmt::format("the {} launch put no work on the stream on some calls: {} launches captured {} operations, so "
                      "the timing would count skipped calls as fast ones",
                      who, t.launches_per_sample, operations));
    }
  }
  if (const std::optional<finding> skipped = judge_batch_against_alone(t, c)) found.push_back(*skipped);
  if (t.idle_wait > std::max(20e-6, 0.1 * t.optimized.median)) {
    add(finding_kind::unseen_work,
        fmt::format("the device stayed busy {} after the timed launches ended (median): work ran on another stream "
                    "or after the launch returned, outside the timed region",
                    format_duration(t.idle_wait)));
  }
  return found;
}

// A kernel that keeps results of earlier launches (keyed on its inputs, say) is faster on inputs it has
// seen. Every timed launch reads fresh inputs, so its timing is honest; it fails all the same, since on
// real inputs it does the work it skipped here. Cold launches both: the caches play no part.
// And however the timed input sets relate to each other, the timed launches themselves are set against
// launches on inputs drawn just before them, which no launch can have seen, in the same cache state (cold,
// one launch per event pair): a kernel that recognises an input in another arrangement is faster timed.
inline std::vector<finding> judge_memoization(const timing_measurements& t) {
  if (t.fresh_launch <= 0) return {};
  std::vector<finding> found;
  if (t.seen_launch > 0 && t.seen_launch < 0.8 * t.fresh_launch && t.fresh_launch - t.seen_launch > 1e-6) {
    found.push_back({finding_kind::memoization,
                     fmt::format("the optimized kernel takes {} on inputs an earlier launch has seen and {} on fresh "
                                 "ones (cold, medians): it reuses results of earlier launches; kbench timed fresh "
                                 "inputs only",
                                 format_duration(t.seen_launch), format_duration(t.fresh_launch))});
  }
  const double timed = t.optimized.median;
  if (t.mode == timing_mode::cold && t.launches_per_sample == 1 && timed > 0 && timed < 0.8 * t.fresh_launch &&
      t.fresh_launch - timed > 1e-6) {
    found.push_back({finding_kind::memoization,
                     fmt::format("the optimized kernel's timed launches take {} and its launches on inputs drawn just "
                                 "before them {} (cold, medians): timed, it is faster than on inputs no launch has "
                                 "seen, as a kernel that recognises its inputs would be",
                                 format_duration(timed), format_duration(t.fresh_launch))});
  }
  return found;
}

// A speedup above the case's plausible maximum, a rate of flops above the arithmetic's measured peak, a
// bandwidth above the device's with cold caches, and the case's own requirements when the whole interval
// falls short. Where the work model bounds the kernel by physics (the roofline gives the least time of the
// regime the case is in: not the arithmetic's, far below, for a memory-bound case the cache may serve),
// that bound replaces the fixed limit on the speedup, unless the case declared its own.
inline std::vector<finding> judge_plausibility(const timing_measurements& t, const throughput_figures& throughput,
                                               const roofline& physics_bound, const judging_context& c) {
  std::vector<finding> found;
  auto add = [&found](finding_kind kind, std::string text) { found.push_back({kind, std::move(text)}); };
  const perf_expectations& want = t.expectations;
  const double median = t.optimized.median;
  const bool physics = physics_bound.optimized_share > 0;
  if (t.reference && t.speedup > want.max_plausible_speedup && (!physics || want.speedup_limit_declared)) {
    add(finding_kind::implausible,
        fmt::format("implausible speedup {:.1f}x (above {:.0f}x): a broken reference or a kernel that skips work; a "
                    "case that means it says allow_speedup_up_to(){}",
                    t.speedup, want.max_plausible_speedup,
                    physics ? "" : " (or declares the work that bounds it: bytes_moved() beyond the L2, cold, or flops())"));
  }
  // Faster than the roofline allows, beyond the 5% that a measured ceiling and a median may each be off.
  const double peak = physics_bound.peak_flops_per_second;
  if (peak > 0 && throughput.optimized.flops_per_second > 1.05 * peak) {
    add(finding_kind::implausible,
        fmt::format("{} is above the device's measured peak for its arithmetic ({}, {}): flops() overstates the "
                    "work, the kernel skips it, or it runs on matrix units (say matrix_flops())",
                    format_rate(throughput.optimized.flops_per_second, 1.0, "FLOP"),
                    format_rate(physics_bound.peak_flops_per_second, 1.0, "FLOP"), physics_bound.peak_how));
  }
  const double copy = c.copy.bytes_per_second;
  if (t.work.bytes > 0 && copy > 0) {
    const double rate = throughput.optimized.bytes_per_second;
    if (rate > 1.05 * physics_bound.memory_bytes_per_second) {  // the faster of copying and reading
      const std::string what = fmt::format("{} is above the device's measured bandwidth ({} copying, {} reading)",
                                           format_rate(rate, 1.0, "B"), format_rate(copy, 1.0, "B"),
                                           format_rate(c.copy.read_bytes_per_second, 1.0, "B"));
      if (served_from_memory(t, c)) {
        add(finding_kind::implausible,
            what + " with cold caches and a working set larger than the L2: bytes_moved() overstates the work, or the "
                   "kernel skips it");
      } else {
        add(finding_kind::note, what + ": the working set is served from cache");
      }
    }
    if (want.required_bandwidth > 0) {
      // The whole interval short: even the fastest plausible median misses the requirement.
      const double best = t.work.bytes / (median * (1.0 - t.optimized_precision)) / copy;
      if (best < want.required_bandwidth) {
        add(finding_kind::requirement_missed,
            fmt::format("bandwidth {:.1f}% of copy is short of the required {:.1f}%",
                        100 * *throughput.optimized.fraction_of_copy,
                        100 * want.required_bandwidth));
      }
    }
  }
  if (want.required_speedup > 0 && t.reference && t.speedup_interval.high < want.required_speedup) {
    add(finding_kind::requirement_missed,
        fmt::format("speedup {:.3f}x (95% interval {:.3f} to {:.3f}) is short of the required {:.3f}x", t.speedup,
                    t.speedup_interval.low, t.speedup_interval.high, want.required_speedup));
  }
  return found;
}

// Notes on how the samples were taken.
inline std::vector<finding> judge_method(const timing_measurements& t) {
  std::vector<finding> found;
  auto add = [&found](finding_kind kind, std::string text) { found.push_back({kind, std::move(text)}); };
  if (t.input_sets < t.input_sets_wanted) {
    add(finding_kind::note,
        fmt::format("{} input set(s) drawn before each sample, not {}: {} sets of {:.4g} MiB, each held twice, would "
                    "take more than a quarter of the free device memory",
                    t.input_sets, t.input_sets_wanted, t.input_sets_wanted, t.input_set_bytes / 1048576.0));
  }
  if (!t.precise) {
    add(finding_kind::note,
        fmt::format("stopped before the medians were known to +-{:.2g}% (optimized +-{:.2g}%, reference +-{:.2g}%): "
                    "the time or sample limit came first",
                    100 * t.precision_target, 100 * t.optimized_precision, 100 * t.reference_precision));
  }
  return found;
}

}  // namespace detail

// The judgement of `t`: the throughput of its work against the copy bandwidth and the roofline, the time saved
// (once: every writer reads them), the speedup's verdict, and the findings: those the run met while measuring (the
// audit of the last sample, checked launches), then every one the measured facts support.
[[nodiscard]] inline timing_judgement judge_timing(const timing_measurements& t, const judging_context& c) {
  const std::optional<double> reference_median =
      t.reference ? std::optional<double>(t.reference->median) : std::nullopt;
  timing_judgement j;
  j.throughput = throughput_of(t.work, t.optimized.median, reference_median, c.copy.bytes_per_second);
  roofline_ceilings ceilings;
  ceilings.memory_bytes_per_second = std::max(c.copy.bytes_per_second, c.copy.read_bytes_per_second);
  ceilings.peak = peak_for(c.peaks, t.work.flop_type);
  ceilings.memory_binds = detail::served_from_memory(t, c);
  j.roofline = roofline_of(t.work, ceilings, t.optimized.median, reference_median);
  j.saved = time_saved_of(t.work, t.optimized.median, reference_median, t.optimized_samples, t.reference_samples);
  if (t.reference) j.verdict = judge_speedup(t.speedup_interval);
  j.findings = t.found;
  for (std::vector<finding> found : {detail::judge_unseen_work(t, c), detail::judge_memoization(t),
                                     detail::judge_plausibility(t, j.throughput, j.roofline, c), detail::judge_method(t)}) {
    j.findings.insert(j.findings.end(), found.begin(), found.end());
  }
  return j;
}

}  // namespace kbench
