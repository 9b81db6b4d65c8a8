// kbench/reports/report.hpp: the text kbench prints, formatted with fmt. HIP-free, so the unit tests compare it
// with approved baselines on any machine.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "../contract/dtype.hpp"
#include "../contract/shape.hpp"
#include "../results/comparison_result.hpp"
#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "../results/statistics.hpp"

namespace kbench {

// "fp16 [37 x 1531]"
[[nodiscard]] inline std::string describe_array(dtype type, const std::vector<std::size_t>& extents) {
  std::string dims;
  for (std::size_t e : extents) dims += fmt::format("{}{}", dims.empty() ? "" : " x ", e);
  return fmt::format("{} [{}]", info(type).name, dims);
}

namespace detail {

inline std::string format_value(double v, bool never_written) {
  if (never_written) return "<unwritten>";
  return fmt::format("{:.6g}", v);
}

inline std::string format_error(double v) { return std::isfinite(v) ? fmt::format("{:.3e}", v) : fmt::format("{}", v); }

}  // namespace detail

// How far apart the outputs are in units of the output dtype, and what the policy allows where they are
// furthest apart: "ulps: 98.91% equal, 1.07% 1 apart, 0.02% 2 apart, 0% more (worst 3); worst abs error
// 4.883e-04 where the policy allows 1.001e-03".
[[nodiscard]] inline std::string format_precision(const comparison& r, dtype type) {
  const std::size_t more = r.finite_pairs - std::min(r.finite_pairs, r.ulps_equal + r.ulps_one + r.ulps_two);
  const char* unit = info(type).is_float ? "ulps" : "differences";
  std::string allowed = std::isinf(r.allowed_at_max_abs)
                            ? std::string("no abs bound there")
                            : fmt::format("the policy allows {}", detail::format_error(r.allowed_at_max_abs));
  return fmt::format("{}: {} equal, {} 1 apart, {} 2 apart, {} more (worst {}); worst abs error {} where {}", unit,
                     detail::percent(r.ulps_equal, r.finite_pairs), detail::percent(r.ulps_one, r.finite_pairs),
                     detail::percent(r.ulps_two, r.finite_pairs), detail::percent(more, r.finite_pairs), r.max_ulps,
                     detail::format_error(r.max_abs_error), allowed);
}

// What max_mismatch let through, audited: "slack: 12 mismatches let through, the worst 1.59x the element
// rules at (3, 7) (bound 10x), 0 beyond it, 0 clustered places", then the densest clusters, one a line.
[[nodiscard]] inline std::string format_slack(const slack_audit& s, const std::vector<std::size_t>& extents) {
  const std::string bound = std::isinf(s.bound) ? "no bound" : fmt::format("bound {}x", s.bound);
  std::string out = fmt::format("    slack: {} mismatches let through, the worst {:.3g}x the element rules at {} ({}), "
                                "{} beyond it, {} clustered places\n",
                                s.let_through, s.worst_multiple, format_index(s.worst_index, extents), bound,
                                s.beyond_bound, s.clustered_places);
  for (const mismatch_cluster& c : s.clusters) {
    out += fmt::format("      cluster: {} of {} elements mismatch in {} (first at {}; at random, {} or more: < {:g})\n",
                       c.mismatches, c.elements, c.where, format_index(c.first_index, extents), c.threshold,
                       s.false_alarm);
  }
  return out;
}

// One comparison: a single line when it passed; on failure the reasons, every metric and a table of the
// first mismatches.
[[nodiscard]] inline std::string format_comparison(std::string_view output_name, const comparison& r, dtype type,
                                                   const std::vector<std::size_t>& extents) {
  const std::string header = fmt::format("output '{}' ({})", output_name, describe_array(type, extents));
  const std::string metrics =
      fmt::format("max abs error {} at {}, max rel error {} at {}, mismatches {} of {} ({}), cosine {:.6f}, "
                  "relative L2 {}",
                  detail::format_error(r.max_abs_error), format_index(r.max_abs_index, extents),
                  detail::format_error(r.max_rel_error), format_index(r.max_rel_index, extents), r.mismatches,
                  r.size, detail::percent(r.mismatches, r.size), r.cosine_similarity,
                  detail::format_error(r.relative_l2_error));
  if (r.passed) {
    return fmt::format("  {}: PASS under {}\n    {}\n    {}\n{}", header, r.applied.description, metrics,
                       format_precision(r, type), r.slack ? format_slack(*r.slack, extents) : std::string());
  }

  std::string out = fmt::format("  {}: MISMATCH under {}\n", header,
                                r.applied.description.empty() ? "(no tolerance)" : r.applied.description);
  for (const std::string& reason : r.reasons) out += fmt::format("    - {}\n", reason);
  if (r.size == 0) return out;
  out += fmt::format("    {}\n    {}\n", metrics, format_precision(r, type));
  if (r.slack) out += format_slack(*r.slack, extents);
  if (!r.first_mismatches.empty()) {
    out += fmt::format("    first mismatches:\n    {:>18} {:>14} {:>14} {:>11} {:>11}\n", "index", "actual", "expected",
                       "abs error", "rel error");
    for (const mismatch& m : r.first_mismatches) {
      out += fmt::format("    {:>18} {:>14} {:>14} {:>11} {:>11}\n", format_index(m.index, extents),
                         detail::format_value(m.actual, m.never_written), detail::format_value(m.expected, false),
                         detail::format_error(m.abs_error), detail::format_error(m.rel_error));
    }
  }
  return out;
}

// "612.3 us" / "1.204 ms" / "3.1 s"
[[nodiscard]] inline std::string format_duration(double seconds) {
  const double a = std::fabs(seconds);
  if (a < 1e-3) return fmt::format("{:.2f} us", seconds * 1e6);
  if (a < 1.0) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

// Throughput of `work` units per launch at `seconds` per launch, scaled to a readable unit.
[[nodiscard]] inline std::string format_rate(double per_launch, double seconds, std::string_view unit) {
  const double rate = per_launch / seconds;
  if (rate >= 1e12) return fmt::format("{:.2f} T{}/s", rate / 1e12, unit);
  if (rate >= 1e9) return fmt::format("{:.1f} G{}/s", rate / 1e9, unit);
  if (rate >= 1e6) return fmt::format("{:.1f} M{}/s", rate / 1e6, unit);
  return fmt::format("{:.1f} {}/s", rate, unit);
}

// "median 612.30 us (p10 610.10 us, p90 615.00 us, min .., max .., cv 0.31%, n=100)"
[[nodiscard]] inline std::string format_stats(const sample_stats& s) {
  return fmt::format("median {} (p10 {}, p90 {}, min {}, max {}, mean {}, stddev {}, cv {:.2f}%, n={})",
                     format_duration(s.median), format_duration(s.p10), format_duration(s.p90),
                     format_duration(s.min), format_duration(s.max), format_duration(s.mean),
                     format_duration(s.stddev), 100.0 * s.coefficient_of_variation(), s.count);
}

// What one sample's figure is, in words a reader comparing with a profiler needs: batch figures are per
// launch of launches back to back (which overlap), cold and hot ones are one launch each.
[[nodiscard]] inline std::string sample_unit(const timing_result& t) {
  switch (t.mode) {
    case timing_mode::batch:
      return fmt::format("per launch, back to back ({} launches per sample, which may overlap)", t.launches_per_sample);
    case timing_mode::hot: return "one hot launch each";
    default: return "one cold launch each";
  }
}

namespace detail {

// "4.10 TB/s (97.1% of copy)": a bandwidth, and its share of the copy bandwidth when that is known.
inline std::string format_bandwidth(const work_rates& r) {
  const std::string share = r.fraction_of_copy ? fmt::format(" ({:.1f}% of copy)", 100.0 * *r.fraction_of_copy) : "";
  return format_rate(r.bytes_per_second, 1.0, "B") + share;
}

// "  roofline   memory-bound: 1 FLOP/B (ridge 14.8), attainable 4.33 TFLOP/s; the least time the memory
// ceiling allows 123.96 us: optimized at 94.1% of the roofline, reference 68.9%", then the ceilings; empty
// for a case that declares neither bytes nor flops.
inline std::string format_roofline(const roofline& r) {
  if (r.bound.empty() && r.floor_seconds <= 0) return {};
  std::string out = "  roofline   " + (r.bound.empty() ? std::string("unclassified") : r.bound + "-bound");
  if (r.intensity > 0) {
    out += fmt::format(": {:.3g} FLOP/B", r.intensity);
    if (r.peak_flops_per_second > 0 && r.memory_bytes_per_second > 0) {
      out += fmt::format(" (ridge {:.3g}), attainable {}", r.peak_flops_per_second / r.memory_bytes_per_second,
                         format_rate(r.attainable_flops_per_second, 1.0, "FLOP"));
    }
  }
  if (r.optimized_share > 0) {
    out += fmt::format("; the least time the {} ceiling allows {}: optimized at {:.1f}% of the roofline", r.binding,
                       format_duration(r.floor_seconds), 100 * r.optimized_share);
    if (r.reference_share) out += fmt::format(", reference {:.1f}%", 100 * *r.reference_share);
  } else {
    out += "; the working set may be served from cache: no measured ceiling gives its least time";
  }
  out += "\n";
  std::string ceilings;
  if (r.memory_bytes_per_second > 0) ceilings = "memory " + format_rate(r.memory_bytes_per_second, 1.0, "B");
  if (r.peak_flops_per_second > 0) {
    ceilings += (ceilings.empty() ? "" : ", ") + format_rate(r.peak_flops_per_second, 1.0, "FLOP") + " (" + r.peak_how + ")";
  } else if (!r.peak_how.empty()) {
    ceilings += (ceilings.empty() ? "" : ", ") + r.peak_how;
  }
  if (!ceilings.empty()) out += "             ceilings: " + ceilings + "\n";
  return out;
}

// The throughput lines of a timing: bandwidth, compute, tokens and links, those the case declares work for.
inline std::string format_throughput(const timing_result& t) {
  const work_rates& o = t.throughput.optimized;
  const work_rates* r = t.throughput.reference ? &*t.throughput.reference : nullptr;
  std::string out;
  if (t.work.bytes > 0) {
    out += fmt::format("  bandwidth  {} optimized{}\n", format_bandwidth(o),
                       r ? ", " + format_bandwidth(*r) + " reference" : std::string());
  }
  if (t.work.flops > 0) {
    out += fmt::format("  compute    {} optimized{}\n", format_rate(o.flops_per_second, 1.0, "FLOP"),
                       r ? ", " + format_rate(r->flops_per_second, 1.0, "FLOP") + " reference" : std::string());
  }
  out += format_roofline(t.roofline);
  if (t.work.tokens > 0) out += fmt::format("  tokens     {}\n", format_rate(o.tokens_per_second, 1.0, "token"));
  if (t.work.link_bytes > 0) {
    out += fmt::format("  links      {} optimized between the GPUs{}\n", format_rate(o.link_bytes_per_second, 1.0, "B"),
                       r ? ", " + format_rate(r->link_bytes_per_second, 1.0, "B") + " reference" : std::string());
  }
  return out;
}

// "  wall       1.234 s on the host: first check 50.00 ms, sampling ..."; empty without stages.
inline std::string format_stages(const stage_times& stages) {
  if (stages.empty()) return {};
  double wall = 0.0;
  std::string parts;
  for (const auto& [stage, seconds] : stages) {
    wall += seconds;
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", stage, format_duration(seconds));
  }
  return fmt::format("  wall       {} on the host: {}\n", format_duration(wall), parts);
}

// "checked    37 of 412 timed launches ...": how many timed launches were checked, and what that catches.
[[nodiscard]] inline std::string format_checks(const launch_checks& c) {
  if (c.timed == 0) return {};
  std::string out = fmt::format("  checked    {} of {} timed launches against the reference on the same inputs, each "
                                "chosen at random after its sample ran",
                                c.checked, c.timed);
  if (c.checked > 0) {
    out += fmt::format(" (a kernel wrong on {:.3g}% of its launches or more is found with 99% probability)",
                       100 * c.smallest_share_caught);
  }
  if (!c.limit.empty()) out += "; " + c.limit;
  return out + "\n";
}
// "  saved      47.26 us per call (95% interval 46.90 us to 47.60 us); 94.52 us per layer at 2 calls": the time
// saved over the device reference, and per layer or per token where the case declares its calls; empty
// without a device reference.
[[nodiscard]] inline std::string format_time_saved(const timing_result& t) {
  if (!t.saved) return {};
  const saved_seconds& call = t.saved->per_call;
  std::string out = fmt::format("  saved      {} per call", format_duration(call.seconds));
  if (std::isfinite(call.ci.low) && std::isfinite(call.ci.high)) {
    out += fmt::format(" (95% interval {} to {})", format_duration(call.ci.low), format_duration(call.ci.high));
  }
  auto scaled = [&out](const std::optional<saved_seconds>& s, const char* per, double calls, const char* separator) {
    if (s) out += fmt::format("{}{} per {} at {:g} call{}", separator, format_duration(s->seconds), per, calls, calls == 1 ? "" : "s");
  };
  scaled(t.saved->per_layer, "layer", t.work.calls_per_layer, "; ");
  scaled(t.saved->per_token, "token", t.work.calls_per_token, t.saved->per_layer ? ", " : "; ");
  return out + "\n";
}

// "optimized 1980 MHz median (1965 to 1980 MHz), reference ..."; the line of a timing's clocks.
[[nodiscard]] inline std::string format_clocks(const sample_clocks& c) {
  if (!c.measured) return c.unmeasured.empty() ? "" : fmt::format("  clock      not read: {}\n", c.unmeasured);
  auto side = [](const char* name, const std::optional<sample_stats>& s) {
    if (!s) return fmt::format("{} not read", name);
    return fmt::format("{} {:.0f} MHz median ({:.0f} to {:.0f})", name, s->median / 1e6, s->min / 1e6, s->max / 1e6);
  };
  std::string out = "  clock      " + side("optimized", c.optimized);
  if (!c.reference_hz.empty()) out += ", " + side("reference", c.reference);
  out += fmt::format(" of {:.0f} MHz highest", c.highest_hz / 1e6);
  if (std::isfinite(c.speedup_in_cycles)) out += fmt::format("; speedup in cycles {:.3f}x", c.speedup_in_cycles);
  return out + "\n";
}

// "not locked (NVML: ...)": the driver's clock setting in words.
[[nodiscard]] inline std::string format_clock_setting(const clock_control& c) {
  if (!c.locked) return "unknown (" + c.detail + ")";
  if (!*c.locked) return fmt::format("not locked ({}: {})", c.source, c.detail);
  const std::string at = c.locked_hz > 0 ? fmt::format(" at {:.0f} MHz", c.locked_hz / 1e6) : "";
  return fmt::format("locked{} ({}: {})", at, c.source, c.detail);
}
}  // namespace detail

// The timing of one case at one shape: statistics of both kernels, speedup with its interval and verdict,
// throughput (t.throughput, against the copy bandwidth when it was known), the method, the host seconds
// of each step of the perf procedure (`stages`), and the timing's own flags and notes.
[[nodiscard]] inline std::string format_timing(const std::string& name, const timing_result& t,
                                               const stage_times& stages) {
  std::string out = fmt::format("{}\n  method     {}\n  samples    {}\n", name, t.method, sample_unit(t));
  out += fmt::format("  optimized  {}, median known to +-{:.2f}%\n", format_stats(t.optimized), 100 * t.optimized_precision);
  if (t.reference) {
    out += fmt::format("  reference  {}, median known to +-{:.2f}%\n", format_stats(*t.reference),
                       100 * t.reference_precision);
    out += fmt::format("  speedup    {:.3f}x (95% interval {:.3f} to {:.3f}): {}\n", t.speedup, t.speedup_interval.low,
                       t.speedup_interval.high, to_string(t.verdict));
    out += detail::format_time_saved(t);
  } else {
    out += "  reference  a host function (not timed)\n";
  }
  out += fmt::format("  latency    {} cold, {} hot (one launch, less the event-pair floor: what a profiler reports)\n",
                     format_duration(t.latency), format_duration(t.hot_latency));
  out += detail::format_clocks(t.clocks);
  out += detail::format_checks(t.checks);
  out += detail::format_throughput(t) + detail::format_stages(stages);
  for (const std::string& f : texts(t.findings)) out += fmt::format("  ! {}\n", f);
  for (const std::string& n : texts(t.findings, false)) out += fmt::format("  note: {}\n", n);
  return out;
}

// "rmsnorm/rows=37/cols=1531": a case at a shape, as tests and reports name it.
[[nodiscard]] inline std::string case_label(const std::string& case_name, const kbench::shape& s) {
  return s.to_string().empty() ? case_name : case_name + "/" + s.to_string();
}

// "PASS rmsnorm [rows=37/cols=1531] seed=0x..." and, for each output, its metrics or its failure report.
[[nodiscard]] inline std::string format_seed_result(const std::string& case_name, const kbench::shape& s,
                                                    const seed_result& r) {
  std::string out = fmt::format("{} {} [{}] seed={:#x}\n", r.passed() ? "PASS" : "FAIL", case_name, s.to_string(), r.seed);
  for (const finding& p : r.problems) out += fmt::format("  {} {}\n", p.fails() ? "!" : "note:", p.text);
  if (r.edge_runs > 0) {
    out += fmt::format("  values at the edges: {} run{} (inputs at other magnitudes, signed zeros and subnormals, "
                       "exact ties)\n", r.edge_runs, r.edge_runs > 1 ? "s" : "");
  }
  if (r.spike_runs > 0) {
    out += fmt::format("  every input element matters: {} run{} (spikes in each input, another family)\n", r.spike_runs,
                       r.spike_runs > 1 ? "s" : "");
  }
  if (const auto& h = r.host_reference; h && h->input_bytes >= 64 * 1048576.0) {  // where it matters
    out += fmt::format("  host reference: inputs ({:.3g} MiB) to the host in {}, the function took {}\n",
                       h->input_bytes / 1048576.0, format_duration(h->transfer_seconds), format_duration(h->compute_seconds));
  }
  for (const output_result& o : r.outputs) {
    out += format_comparison(o.name, o.result, o.type, o.extents);
    if (o.oracle) {
      out += fmt::format("    against the oracle (fp64 on the host): not the correctly rounded value in {:.3g}% of the "
                         "reference's elements (worst {} apart) and {:.3g}% of the optimized kernel's (worst {}), at "
                         "most {:.3g}% allowed\n",
                         100 * o.oracle->reference_inexact, o.oracle->reference_max_ulps, 100 * o.oracle->optimized_inexact,
                         o.oracle->optimized_max_ulps, 100 * o.oracle->allowed_inexact);
    }
  }
  return out;
}

// The header of a perf run's report: the device, the warm-up and sample counts, what was measured once
// per program (the copy bandwidth, the timer floor, the arithmetic peaks) and what that took.
[[nodiscard]] inline std::string format_perf_header(const run_record& run) {
  const gpu_info& g = run.device;
  std::string out = fmt::format("\nkbench perf on {} ({}, {} compute units); warm-up {} launches, then until the clock "
                                "is up (at most {:g} s); at least {} samples\n",
                                g.name, g.arch, g.multiprocessors, run.warmup, run.warmup_time, run.iterations);
  if (!run.optimized_build) {
    out += "warning: this program was built without optimization (no CMAKE_BUILD_TYPE, or Debug): its timings do "
           "not show what the kernels do in a release build; configure with -DCMAKE_BUILD_TYPE=Release\n";
  }
  if (run.quick) {
    out += "first checks: --quick, each a later seed's (the comparison, its guards and poison): the probe of the "
           "tolerance, the reruns under load, the oracle, the misalignments and the edges are a correctness run's\n";
  }
  out += fmt::format("once per program: opening the device took {}, measuring the copy bandwidth, timer floor and "
                     "arithmetic peaks {}\n",
                     format_duration(g.open_seconds), format_duration(run.ceilings_seconds));
  if (run.copy) {
    out += fmt::format("device-to-device copy of {} MiB: {} (read + write), {}; reading alone {}\n",
                       run.copy->buffer_bytes >> 20,
                       format_rate(2.0 * static_cast<double>(run.copy->buffer_bytes), run.copy->seconds.median, "B"),
                       format_stats(run.copy->seconds), format_rate(run.copy->read_bytes_per_second, 1.0, "B"));
  }
  if (run.timer_floor) {
    out += fmt::format("timer floor: an event pair alone {}, an empty kernel {} (one launch per event pair), {} per "
                       "launch in a graph of 100, {} from launch to idle device on the host\n",
                       format_duration(run.timer_floor->events_only), format_duration(run.timer_floor->empty_kernel),
                       format_duration(run.timer_floor->empty_kernel_batch),
                       format_duration(run.timer_floor->empty_launch_wall));
  }
  if (!run.compute_peaks.empty()) {
    std::string peaks;
    for (const compute_peak& p : run.compute_peaks) {
      peaks += fmt::format("{}{} {} ({})", peaks.empty() ? "" : ", ", info(p.type).name,
                           format_rate(p.flops_per_second, 1.0, "FLOP"), p.how);
    }
    out += "arithmetic peaks on the vector units: " + peaks + "\n";
  }
  if (run.clock_setting) out += "SM clock setting: " + detail::format_clock_setting(*run.clock_setting) + "\n";
  return out;
}

// One line for a case that did not pass: "FAIL name: why", "FILTERED name: why"; empty for a pass or a skip
// (skips are summed up once, with their reason, by the program's closing line).
[[nodiscard]] inline std::string format_case_outcome(const case_record& c) {
  const std::string name = case_label(c.case_name, c.shape);
  switch (c.verdict) {
    case case_verdict::pass:
    case case_verdict::skipped: return {};
    case case_verdict::filtered: return fmt::format("FILTERED {}: {}\n", name, c.message);
    case case_verdict::fail:
    case case_verdict::error: return fmt::format("FAIL {}: {}\n", name, c.message);
  }
  return {};
}

}  // namespace kbench
