// kbench/procedure/timing_run.hpp: one timing run of a case that has just passed a correctness run, in
// named steps (run() lists them in order):
//
//   warm_up               launches of both kernels on the checked inputs, by count and by time (clocks ramp up)
//   choose_mode           a pilot of hot samples decides the automatic mode and the batch size
//   draw_input_sets       the input sets of the timed launches: in batch mode one per launch of a sample, and
//                         where memory allows outputs of its own for each launch
//   prepare_mode          cold mode's cache flush, batch mode's graphs
//   sample_until_stopped  reference and optimized back to back in an order drawn per sample, both queued
//                         behind a gate (launch_gate.hpp) before either starts, each between its own event
//                         pair and, outside it, two clock stamps that give the SM clock over the side; samples
//                         that ran throttled are set aside (timed_samples.hpp), and sampling goes on until
//                         the stop rule says so (stop_rule.hpp). Before each side (untimed) its
//                         input sets are written (drawn anew for the first, the same values again for the
//                         second) and its outputs prepared, so no timed launch reads inputs an earlier launch
//                         has seen or can tell whether it will be checked; after each sample, launches drawn
//                         at random are checked against the reference's on the same inputs, the last
//                         sample's always (timed_checks.hpp)
//   audit_timed_memory    the guards, the checked inputs, the fingerprints of every input set, and memory a
//                         kernel kept in L2 through the cache flush (timed_audit.hpp)
//   summarize_samples     statistics of both kernels and the speedup's interval, in seconds and in cycles
//   measure_latency       cold launches on fresh inputs (latency: one cold launch less the event-pair floor)
//                         and on the inputs of the launch before (a kernel faster on those reuses results)
//   unseen work           one launch on an idle device timed on the host's clock
//
// Every launch of the optimized kernel starts from outputs prepared alike: poison, or the drawn values in
// place. In cold mode the reference's outputs are not poisoned while timed (the flush evicts them, and a
// poison of large outputs would cost as much as the launch): nothing reads them before the reference writes
// them, and when the optimized kernel goes first they hold another input set's values, which a kernel that
// copies them gets wrong.
//
// The run measures; judge.hpp decides what the measurements mean.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../decisions/judge.hpp"
#include "../decisions/run_options.hpp"
#include "../decisions/stop_rule.hpp"
#include "../decisions/timing_plan.hpp"
#include "../engines/launch_gate.hpp"
#include "../engines/measure.hpp"
#include "../engines/timing.hpp"
#include "../results/results.hpp"
#include "../results/statistics.hpp"
#include "batch_graphs.hpp"
#include "case_buffers.hpp"
#include "case_device_tools.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"
#include "timed_audit.hpp"
#include "timed_checks.hpp"
#include "timed_input_sets.hpp"
#include "timed_samples.hpp"

namespace kbench {
namespace detail {

[[nodiscard]] inline double host_seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The end of every timing method's description: how the timed launches' inputs are drawn.
[[nodiscard]] inline std::string input_sets_method(const timing_result& t) {
  return fmt::format("; before each sample, {} input set{} of {:.4g} MiB drawn anew (untimed){}", t.input_sets,
                     t.input_sets > 1 ? "s" : "", t.input_set_bytes / 1048576.0,
                     t.launches_per_sample > 1 ? ", one per launch" : "");
}

// Statistics of both kernels and the speedup's interval, from a run's samples.
inline void summarize_samples(timing_result& t, const std::vector<double>& optimized, const std::vector<double>& reference,
                              const std::vector<double>& idle_waits, bool with_reference) {
  t.optimized = summarize(optimized);
  t.optimized_samples = optimized;
  t.reference_samples = reference;
  t.idle_wait = summarize(idle_waits).median;
  if (with_reference) {
    t.reference = summarize(reference);
    t.speedup = t.reference->median / t.optimized.median;
    t.speedup_interval = ratio_of_medians_interval(reference, optimized);
  }
}

// Host time of one step of the run, for the report of where a run's wall time goes.
template <class Step>
void timed_stage(stage_times& stages, const char* name, Step&& step) {
  stages.push_back({name, host_seconds(step)});
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

// Input set 0's outputs of the optimized kernel as every launch of it starts: poison, or the drawn values
// in place.
inline void prepare_set_zero(case_buffers& buffers) {
  for (std::size_t k = 0; k < buffers.output_count(); ++k) {
    if (!buffers.in_place(k)) buffers.poison_output(side::optimized, k);
  }
  buffers.restore_in_place(side::optimized);
}

inline constexpr const char* gate_timed_out_note =
    "a launch function waited for the device while a sample was being enqueued: from then on each side is "
    "queued behind a 20 us spin only, so a launch cost longer than that is timed";

// Holds the case's buffers, its comparator and its host computation (the audit's host reference); owns
// the timed input sets and the other GPUs' flushes for the length of the run.
class timing_run {
 public:
  timing_run(case_buffers& buffers, output_comparator& comparator, host_computation& host, const run_options& options,
             const gpu_info& g, const device_ceilings& ceilings)
      : buffers_(buffers), comparator_(comparator), host_(host), options_(options), gpu_(g), ceilings_(ceilings),
        spin_(buffers.stream()), gate_(spin_.cycles_per_second()),
        with_reference_(buffers.has_device_reference()), samples_(buffers.stream(), g, options, with_reference_),
        flushes_(buffers.devices()) {
    t_.warmup = options.warmup;
    t_.work = buffers.declaration().work;
    t_.expectations = buffers.declaration().expectations;
    t_.precision_target = options.precision;
  }

  [[nodiscard]] timing_result run() {
    timed_stage(t_.stage_seconds, "warm-up", [&] { warm_up(); });
    timed_stage(t_.stage_seconds, "set-up", [&] {
      choose_mode();
      draw_input_sets();
      prepare_mode();
    });
    timed_stage(t_.stage_seconds, "sampling", [&] { sample_until_stopped(); });
    timed_stage(t_.stage_seconds, "audit", [&] { audit_timed_memory(); });
    summarize_samples(t_, samples_.optimized(), samples_.reference(), waits_, with_reference_);
    timed_stage(t_.stage_seconds, "latency", [&] { measure_latency(); });
    // Work the timed stream did not see (another stream, or started after the launch returned) keeps the
    // device busy on the host's clock.
    timed_stage(t_.stage_seconds, "unseen work", [&] {
      t_.launch_wall = launch_wall_time([&] { sets_->prepare_outputs(side::optimized, 1); },
                                        [&] { sets_->launch(side::optimized, 0); });
    });
    check_persisting_cache(buffers_, t_.findings);
    t_.checks = checks_->summary();
    checks_.reset();
    sets_.reset();
    judge_timing(t_, {gpu_.l2_bytes, ceilings_.copy, ceilings_.floor, ceilings_.compute});
    return t_;
  }

 private:
  [[nodiscard]] hipStream_t stream() const { return buffers_.stream(); }
  [[nodiscard]] std::size_t flush() const { return flush_bytes(options_, gpu_.l2_bytes); }

  void warm_up() {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < options_.warmup || host_seconds_since(start) < options_.warmup_time; ++i) {
      buffers_.restore_in_place(side::reference);
      prepare_set_zero(buffers_);
      if (with_reference_) buffers_.launch(side::reference);
      buffers_.launch(side::optimized);
      buffers_.synchronize();
    }
  }

  void choose_mode() {
    auto hot_start = [&] {
      prepare_set_zero(buffers_);
      flushes_.before_timed(nullptr);
      spin_.enqueue(stream(), 20e-6);
    };
    const auto pilot = event_pair_samples(stream(), 5, 0, hot_start, [&] { buffers_.launch(side::optimized); });
    mode_ = plan_mode(options_, summarize(pilot).median);
  }

  void draw_input_sets() {
    const std::size_t set_bytes = timed_input_sets::bytes_per_set(buffers_);
    t_.input_set_bytes = static_cast<double>(set_bytes);
    std::size_t free_bytes = 0, total_bytes = 0;
    KBENCH_HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
    // Each set twice over: the sets, and the values their cheap redraws rearrange.
    const input_set_plan plan = plan_input_sets(options_, set_bytes, flush(), free_bytes / 2, mode_);
    t_.input_sets = plan.sets;
    t_.input_sets_wanted = plan.wanted;
    t_.mode = mode_.mode;
    t_.launches_per_sample = per_sample_ = plan.launches_per_sample;
    // Batch mode's output copies (timing_plan.hpp), in what the sets, their sources and copies leave.
    const std::size_t sets_bytes = 4 * static_cast<std::size_t>(plan.sets) * set_bytes;
    const std::size_t left = free_bytes > sets_bytes ? (free_bytes - sets_bytes) / 2 : 0;
    output_copies_ = timed_input_sets::plan_copies(buffers_, per_sample_, gpu_.l2_bytes, left);
    sets_.emplace(buffers_, plan.sets, output_copies_);  // drawn before each sample, from the first on
    checks_.emplace(buffers_, comparator_, host_, per_sample_, output_copies_);
  }

  void prepare_mode() {
    switch (mode_.mode) {
      case timing_mode::cold:
        flush_.emplace(flush(), std::max(gpu_.multiprocessors, 1));
        t_.method = sampling_method(mode_.mode, flush_->bytes());
        break;
      case timing_mode::hot: t_.method = sampling_method(mode_.mode, 0); break;
      default: graphs_.capture(stream(), *sets_, with_reference_, per_sample_, t_); break;
    }
    t_.method += input_sets_method(t_);
  }

  // Every timed input set drawn anew for the latency launches (fresh: from the generator).
  void redraw(bool fresh = false) { sets_->redraw(static_cast<std::uint64_t>(++draws_), fresh); }

  // The launches of one side in one sample, between that side's events, queued behind the flush (of
  // every device of the case) or a spin so that the launch overhead is not timed; clock stamps around all.
  void timed(side target, event_pair& events) {
    samples_.stamp_around(target, stream(), [&] {
      flushes_.before_timed(flush_ ? &*flush_ : nullptr);
      if (!flush_) spin_.enqueue(stream(), 20e-6);
      const std::optional<launch_graph>& graph = graphs_.of(target);
      events.record_around(stream(), [&] {
        if (graph) {
          graph->launch(stream());
        } else {
          for (int i = 0; i < per_sample_; ++i) sets_->launch(target, i);
        }
      });
    });
  }

  // Reference and optimized back to back, in an order drawn for this sample, so that clock and thermal
  // drift hit both; both queued behind the gate before either starts. Returns both sides' timed seconds.
  double sample() {
    ++draws_;
    const bool optimized_first = checks_->optimized_first() || !with_reference_;
    {
      std::optional<launch_gate::held> held;
      if (gated_) held.emplace(gate_, stream());
      if (optimized_first) time_side(side::optimized, optimized_events_, true, !with_reference_);
      if (with_reference_) time_side(side::reference, reference_events_, !optimized_first, optimized_first);
      if (!optimized_first) time_side(side::optimized, optimized_events_, false, true);
    }
    optimized_events_.wait();
    if (with_reference_) reference_events_.wait();
    waits_.push_back(device_idle_wait());
    sets_->fingerprint_after_launches();  // the last side's, once the device is idle (the wait times it alone)
    const double reference = with_reference_ ? reference_events_.seconds() : 0.0;
    samples_.add(optimized_events_.seconds() / per_sample_, reference / per_sample_);
    if (gated_ && gate_.timed_out()) {
      gated_ = false;
      t_.findings.push_back({finding_kind::note, gate_timed_out_note});
    }
    return optimized_events_.seconds() + reference;
  }

  // One side of a sample, all untimed but its launches: its input sets written (drawn anew for the first
  // side; without a flush, the same values written again for the second, so that it too reads inputs just
  // written, not ones the other side just read: on the H200 worth up to 6% to the second of two latency-
  // bound kernels), its outputs prepared (poison, or the drawn values in place; not the reference's in cold
  // mode, whose flush evicts them), its launches timed, then (but the last side's) its inputs' fingerprints.
  void time_side(side target, event_pair& events, bool first, bool last) {
    const bool rewrite = !flush_;
    if (first || rewrite) {
      buffers_.devices().fork();  // the other GPUs' sets are written after the launches before
      sets_->redraw(static_cast<std::uint64_t>(draws_), false);
    }
    if (target == side::reference && flush_) {
      sets_->restore_in_place(side::reference, per_sample_);
    } else {
      sets_->prepare_outputs(target, per_sample_);
    }
    timed(target, events);
    if (rewrite && !last) {
      buffers_.devices().fork();
      sets_->fingerprint_after_launches();
    }
  }

  // Samples until the stop rule says so; after each, launches drawn at random are checked (the last
  // sample's always: the rule decides only after a sample ran).
  void sample_until_stopped() {
    stop_rule rule(options_);
    const auto start = std::chrono::steady_clock::now();
    bool stop = false;
    while (!stop) {
      const double timed_seconds = sample();
      stop = rule.should_stop(samples_.optimized(), samples_.reference(), host_seconds_since(start), samples_.taken());
      checks_->after_sample(*sets_, timed_seconds, stop, t_.findings);
    }
    samples_.finish(rule, t_);
  }

  // What the timed launches did to memory besides their outputs (timed_audit.hpp).
  void audit_timed_memory() {
    buffers_.synchronize_devices();
    check_timed_memory(buffers_, *sets_, with_reference_, t_.findings);
  }

  // Cold launches of the optimized kernel, alternately on fresh inputs and on the inputs of the launch
  // just before: the latency (one cold launch less the event-pair floor; cold mode's samples are such
  // launches already), and whether the kernel is faster on inputs it has seen.
  void measure_latency() {
    const cache_flush cold(flush(), std::max(gpu_.multiprocessors, 1));
    std::vector<double> fresh, seen;
    auto single = [&](std::vector<double>& into) {
      sets_->prepare_outputs(side::optimized, 1);
      flushes_.before_timed(&cold);
      into.push_back(optimized_events_.time(stream(), [&] { sets_->launch(side::optimized, 0); }));
      checks_->after_single(*sets_, into.back(), &into == &fresh ? "a latency launch" : "a seen-inputs launch", t_.findings);
    };
    for (int i = 0; i < seen_pairs; ++i) {
      redraw(true);
      single(fresh);
      single(seen);
      sets_->fingerprint_after_launches();  // keeps the sums paired (the audit has checked them already)
    }
    // Hot: inputs just drawn (so in the caches as far as they fit, and never seen by a launch), each launch
    // queued behind a spin.
    std::vector<double> hot;
    for (int i = 0; i < seen_pairs; ++i) {
      redraw();
      sets_->prepare_outputs(side::optimized, 1);
      flushes_.before_timed(nullptr);
      spin_.enqueue(stream(), 20e-6);
      hot.push_back(optimized_events_.time(stream(), [&] { sets_->launch(side::optimized, 0); }));
      checks_->after_single(*sets_, hot.back(), "a hot latency launch", t_.findings);
      sets_->fingerprint_after_launches();
    }
    t_.hot_latency = std::max(summarize(hot).median - ceilings_.floor.events_only, 0.0);
    t_.fresh_launch = summarize(fresh).median;
    t_.seen_launch = summarize(seen).median;
    t_.single_launch = mode_.mode == timing_mode::cold && per_sample_ == 1 ? t_.optimized.median : t_.fresh_launch;
    t_.latency = std::max(t_.single_launch - ceilings_.floor.events_only, 0.0);
  }

  static constexpr int seen_pairs = 9;  // fresh and seen cold launches, alternately

  case_buffers& buffers_;
  output_comparator& comparator_;
  host_computation& host_;
  const run_options& options_;
  const gpu_info& gpu_;
  const device_ceilings& ceilings_;
  const spinner spin_;
  launch_gate gate_;
  bool gated_ = true;  // until a gate opened by itself
  const bool with_reference_;
  timed_samples samples_;
  device_flushes flushes_;
  std::optional<timed_input_sets> sets_;
  std::optional<timed_checks> checks_;
  timing_result t_;
  mode_plan mode_;
  int per_sample_ = 1;
  int output_copies_ = 1;  // of the outputs, written in turn by the launches of a sample
  int draws_ = 0;
  event_pair reference_events_, optimized_events_;
  std::optional<cache_flush> flush_;
  batch_graphs graphs_;
  std::vector<double> waits_;
};

}  // namespace detail
}  // namespace kbench
