// kbench/procedure/timing_steps.hpp: what each step of a timing run (timing_run.hpp) returns, and the one
// function that puts those results together into the run's measurements; the descriptions of the
// sampling methods. The steps measure; nothing here decides what a measurement means (decisions/judge.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../contract/case_layout.hpp"
#include "../contract/declared_case.hpp"
#include "../decisions/run_options.hpp"
#include "../decisions/timing_plan.hpp"
#include "../engines/launch_gate.hpp"
#include "../engines/measure.hpp"
#include "../engines/timing.hpp"
#include "../results/results.hpp"
#include "../results/statistics.hpp"
#include "case_buffers.hpp"
#include "case_device_tools.hpp"
#include "case_devices.hpp"
#include "timed_samples.hpp"
#include "unseen_work.hpp"

namespace kbench {
namespace detail {

// The end of every timing method's description: how the timed launches' inputs are drawn.
[[nodiscard]] inline std::string input_sets_method(const input_set_plan& plan, std::size_t set_bytes) {
  return fmt::format("; before each sample, {} input set{} of {:.4g} MiB drawn anew (untimed){}", plan.sets,
                     plan.sets > 1 ? "s" : "", static_cast<double>(set_bytes) / 1048576.0,
                     plan.launches_per_sample > 1 ? ", one per launch" : "");
}

// One step of the run, its host time added to `stages` (the report of where a run's wall time goes); returns
// what the step returned.
template <class Step>
auto timed_step(stage_times& stages, const char* name, Step&& step) {
  using result = decltype(step());
  if constexpr (std::is_void_v<result>) {
    stages.push_back({name, host_seconds(step)});
  } else {
    std::optional<result> r;
    stages.push_back({name, host_seconds([&] { r.emplace(step()); })});
    return std::move(*r);
  }
}

// How cold and hot mode take their samples (batch_graphs.hpp says batch mode's).
[[nodiscard]] inline std::string sampling_method(timing_mode mode, std::size_t flush_bytes) {
  if (mode == timing_mode::cold) {
    return fmt::format("cold: a {} MiB read evicts the caches before each launch; one launch per event pair; "
                       "reference and optimized interleaved, in an order drawn per sample",
                       flush_bytes >> 20);
  }
  return "hot: no cache flush; one launch per event pair, queued behind a 20 us spin kernel; reference and "
         "optimized interleaved, in an order drawn per sample";
}

// The first input set's outputs of the optimized kernel as every launch of it starts: poison, or the drawn
// values in place.
inline void prepare_first_set_outputs(const case_layout& layout, case_buffers& buffers) {
  for (std::size_t k = 0; k < layout.output_count(); ++k) {
    if (!layout.in_place(k)) buffers.poison_output(side::optimized, k);
  }
  buffers.restore_in_place(side::optimized);
}

[[nodiscard]] inline double host_seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The median of the pilot's five hot launches of the optimized side on the first input set, each queued behind
// a spin, no flush (hot): the automatic mode is chosen from it.
[[nodiscard]] inline double pilot_median(const case_layout& layout, case_buffers& buffers, device_flushes& flushes,
                                         const spinner& spin, hipStream_t stream) {
  auto hot_start = [&] {
    prepare_first_set_outputs(layout, buffers);
    flushes.before_timed(nullptr);
    spin.enqueue(stream, 20e-6);
  };
  return summarize(event_pair_samples(stream, 5, 0, hot_start, [&] { buffers.launch(side::optimized); })).median;
}

// The share of the device's highest SM clock at which the warm-up takes the clock to have ramped up.
inline constexpr double warm_clock_share = 0.95;

// The warm-up: both sides on the first input set, each pair of launches waited for, at least
// `options.warmup` times, then until the SM clock over a pair reached warm_clock_share of the device's highest
// or `options.warmup_time` seconds have passed, whichever comes first (where the clock cannot be read, the
// time): a device still busy from the first check is warm after the count, one that idled ramps its clock up
// first.
inline void warm_up(const case_layout& layout, const case_devices& devices, case_buffers& buffers,
                    const run_options& options, timed_samples& clocks) {
  const auto start = std::chrono::steady_clock::now();
  bool warm = false;
  for (int i = 0; i < options.warmup || (!warm && host_seconds_since(start) < options.warmup_time); ++i) {
    buffers.restore_in_place(side::reference);
    prepare_first_set_outputs(layout, buffers);
    warm = clocks.clock_reached(warm_clock_share, devices.stream(), [&] {
      if (layout.has_device_reference()) buffers.launch(side::reference);
      buffers.launch(side::optimized);
    });
    devices.synchronize();  // every device's part of the launches
  }
}

inline constexpr const char* gate_timed_out_note =
    "a launch function waited for the device while a sample was being enqueued: from then on each side is "
    "queued behind a 20 us spin only, so a launch cost longer than that is timed";

// What each step of a timing run returns; run() assembles them into one timing_measurements.
struct timing_setup {       // choose_mode, draw_input_sets, prepare_mode
  timing_mode mode = timing_mode::cold;
  input_set_plan sets;
  std::size_t set_bytes = 0;
  std::string method;
  long long reference_graph_operations = -1;
  long long optimized_graph_operations = -1;
  std::vector<finding> found;  // a note when batch mode's launches could not be captured
};
struct sampled_run {        // sample_until_stopped
  sampling_summary summary;
  std::vector<double> idle_waits;
  std::vector<finding> found;  // the checked launches', and the note when the gate opened by itself
};
struct sample_statistics {  // summarize_samples
  sample_stats optimized;
  std::optional<sample_stats> reference;
  double speedup = std::numeric_limits<double>::quiet_NaN();
  interval speedup_interval;
  double idle_wait = 0.0;
};
struct latency_figures {    // measure_latency
  double single_launch = 0.0, fresh_launch = 0.0, seen_launch = 0.0, latency = 0.0, hot_latency = 0.0;
  std::vector<finding> found;  // the checked latency launches'
};

// Statistics of both kernels and the speedup's interval, from a run's samples.
[[nodiscard]] inline sample_statistics summarize_samples(const std::vector<double>& optimized,
                                                         const std::vector<double>& reference,
                                                         const std::vector<double>& idle_waits, bool with_reference) {
  sample_statistics s;
  s.optimized = summarize(optimized);
  s.idle_wait = summarize(idle_waits).median;
  if (with_reference) {
    s.reference = summarize(reference);
    s.speedup = s.reference->median / s.optimized.median;
    s.speedup_interval = ratio_of_medians_interval(reference, optimized);
  }
  return s;
}

// What every step of one timing run returned, in the order they ran.
struct timing_steps {
  stage_times stages;
  timing_setup setup;
  sampled_run sampled;
  std::vector<double> optimized_samples, reference_samples;  // kept, seconds per launch
  std::vector<finding> audit;
  sample_statistics statistics;
  latency_figures latency;
  unseen_work_figures unseen;
  std::vector<finding> kept_in_cache;  // check_persisting_cache's
  launch_checks checks;
};

// One launch between `events`, behind what `before` enqueues (a flush, a spin), queued behind `gate` where
// given, as the samples are: the launch function's host work (a Python side's interpreter) is not timed.
template <class Before, class Launch>
double gated_event_time(launch_gate* gate, hipStream_t stream, event_pair& events, Before&& before, Launch&& launch) {
  {
    std::optional<launch_gate::held> held;
    if (gate) held.emplace(*gate, stream);
    before();
    events.record_around(stream, std::forward<Launch>(launch));
  }
  events.wait();
  return events.seconds();
}

// The measurements of a timing run, put together once from what its steps returned; `declared`: the case's
// declaration, whose work and expectations the judgement reads beside them.
[[nodiscard]] inline timing_measurements assemble_measurements(timing_steps steps, const declared_case& declared,
                                                               const run_options& options) {
  timing_measurements m;
  m.mode = steps.setup.mode;
  m.method = std::move(steps.setup.method);
  m.launches_per_sample = steps.setup.sets.launches_per_sample;
  m.warmup = options.warmup;
  m.input_sets = steps.setup.sets.sets;
  m.input_sets_wanted = steps.setup.sets.wanted;
  m.input_set_bytes = static_cast<double>(steps.setup.set_bytes);
  m.optimized = steps.statistics.optimized;
  m.reference = steps.statistics.reference;
  m.optimized_samples = std::move(steps.optimized_samples);
  m.reference_samples = std::move(steps.reference_samples);
  m.precision_target = options.precision;
  m.optimized_precision = steps.sampled.summary.optimized_precision;
  m.reference_precision = steps.sampled.summary.reference_precision;
  m.precise = steps.sampled.summary.precise;
  m.speedup = steps.statistics.speedup;
  m.speedup_interval = steps.statistics.speedup_interval;
  m.idle_wait = steps.statistics.idle_wait;
  m.single_launch = steps.latency.single_launch;
  m.fresh_launch = steps.latency.fresh_launch;
  m.seen_launch = steps.latency.seen_launch;
  m.latency = steps.latency.latency;
  m.hot_latency = steps.latency.hot_latency;
  m.launch_wall = steps.unseen.launch_wall;
  m.launch_call = steps.unseen.launch_call;
  m.saturated_call = steps.unseen.saturated_call;
  m.saturation = steps.unseen.saturation;
  m.reference_graph_operations = steps.setup.reference_graph_operations;
  m.optimized_graph_operations = steps.setup.optimized_graph_operations;
  m.work = declared.work;
  m.expectations = declared.expectations;
  m.checks = steps.checks;
  m.clocks = std::move(steps.sampled.summary.clocks);
  // In the order they were found.
  for (const std::vector<finding>* found : {&steps.setup.found, &steps.sampled.found, &steps.sampled.summary.found,
                                            &steps.audit, &steps.latency.found, &steps.kept_in_cache}) {
    append(m.found, *found);
  }
  m.stage_seconds = std::move(steps.stages);
  return m;
}

}  // namespace detail
}  // namespace kbench
