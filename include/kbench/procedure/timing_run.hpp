// kbench/procedure/timing_run.hpp: one timing run of a case that has just passed a correctness run, in
// named steps (run() lists them in order):
//
//   warm_up               launches of both kernels on the checked inputs, by count, then until the SM clock is up
//                         (for at most --warmup-time; that long where the clock cannot be read)
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
// place. In cold mode the reference's outputs are not poisoned before it runs (the flush evicts them, and a
// poison of large outputs would cost as much as the launch): nothing reads them before the reference writes
// them, and when the optimized kernel goes first they hold another input set's values, which a kernel that
// copies them gets wrong. When the reference goes first, its outputs are poisoned once it has run (every copy
// its launches wrote; in-place values restored), before the optimized side runs: nothing right is left to
// copy, and a check of the sample runs the reference again (timed_checks.hpp).
//
// Each step returns what it measured and found; run() puts the measurements together once, at the end,
// and judge.hpp decides what they mean.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

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
#include "timed_census.hpp"
#include "timed_checks.hpp"
#include "timed_input_sets.hpp"
#include "timed_samples.hpp"
#include "timing_steps.hpp"

namespace kbench {
namespace detail {

// Holds the case's layout, devices, buffers and launcher, its comparator and its host computation (the
// audit's host reference); owns the timed input sets and the other GPUs' flushes for the length of the run.
class timing_run {
 public:
  timing_run(const case_layout& layout, case_devices& devices, case_buffers& buffers, case_launcher& launcher,
             output_comparator& comparator, host_computation& host, const run_options& options, const gpu_info& g,
             const device_ceilings& ceilings)
      : layout_(layout), devices_(devices), buffers_(buffers), launcher_(launcher), comparator_(comparator),
        host_(host), options_(options), gpu_(g), ceilings_(ceilings), spin_(devices.stream()),
        gate_(spin_.cycles_per_second()), with_reference_(layout.has_device_reference()),
        samples_(devices.stream(), g, options, with_reference_), flushes_(devices) {}

  [[nodiscard]] timing_measurements run() {
    timing_steps steps;
    stage_times& stages = steps.stages;
    timed_step(stages, "warm-up", [&] { warm_up(layout_, devices_, buffers_, options_, samples_); });
    steps.setup = timed_step(stages, "set-up", [&] {
      choose_mode();
      return prepare_mode(draw_input_sets());
    });
    steps.sampled = timed_step(stages, "sampling", [&] { return sample_until_stopped(); });
    steps.optimized_samples = samples_.optimized();
    steps.reference_samples = samples_.reference();
    steps.audit = timed_step(stages, "audit", [&] { return audit_timed_memory(); });
    steps.statistics = summarize_samples(samples_.optimized(), samples_.reference(), steps.sampled.idle_waits, with_reference_);
    steps.latency = timed_step(stages, "latency", [&] { return measure_latency(steps.setup, steps.statistics.optimized.median); });
    // Work the timed stream did not see shows on the host's clock (unseen_work.hpp).
    steps.unseen = timed_step(stages, "unseen work", [&] {
      return measure_unseen_work(devices_, gated_, [&] { sets_->prepare_outputs(side::optimized, 1); }, [&] { sets_->launch(side::optimized, 0); });
    });
    steps.kept_in_cache = check_persisting_cache(devices_, launcher_);
    steps.checks = checks_->summary();
    checks_.reset();  // before the input sets it checks
    sets_.reset();
    return assemble_measurements(std::move(steps), layout_.declaration(), options_);
  }

 private:
  [[nodiscard]] hipStream_t stream() const { return devices_.stream(); }
  [[nodiscard]] std::size_t flush() const { return flush_bytes(options_, gpu_.l2_bytes); }

  void choose_mode() { mode_ = plan_mode(options_, pilot_median(layout_, buffers_, flushes_, spin_, stream())); }

  [[nodiscard]] timing_setup draw_input_sets() {
    timing_setup setup;
    setup.mode = mode_.mode;
    setup.set_bytes = timed_input_sets::bytes_per_set(layout_);
    std::size_t free_bytes = 0, total_bytes = 0;
    KBENCH_HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
    // Half of what is free: the sets, and at most as much again (positional inputs' values placed once).
    setup.sets = plan_input_sets(options_, setup.set_bytes, flush(), free_bytes / 2, mode_);
    const input_set_plan& plan = setup.sets;
    per_sample_ = plan.launches_per_sample;
    // Batch mode's output copies (timing_plan.hpp), in what the sets, positional values and copies leave.
    const std::size_t sets_bytes = 4 * static_cast<std::size_t>(plan.sets) * setup.set_bytes;
    const std::size_t left = free_bytes > sets_bytes ? (free_bytes - sets_bytes) / 2 : 0;
    output_copies_ = timed_input_sets::plan_copies(layout_, per_sample_, gpu_.l2_bytes, left);
    sets_.emplace(layout_, devices_, buffers_, launcher_, plan.sets, output_copies_);  // drawn before each sample, from the first on
    checks_.emplace(layout_, devices_, buffers_, comparator_, host_, per_sample_, output_copies_);
    return setup;
  }

  [[nodiscard]] timing_setup prepare_mode(timing_setup setup) {
    switch (mode_.mode) {
      case timing_mode::cold:
        flush_.emplace(flush(), std::max(gpu_.multiprocessors, 1));
        setup.method = sampling_method(mode_.mode, flush_->bytes());
        break;
      case timing_mode::hot: setup.method = sampling_method(mode_.mode, 0); break;
      default: {
        captured_graphs captured = graphs_.capture(stream(), *sets_, with_reference_, per_sample_);
        setup.method = std::move(captured.method);
        setup.reference_graph_operations = captured.reference_operations;
        setup.optimized_graph_operations = captured.optimized_operations;
        setup.found = std::move(captured.found);
        break;
      }
    }
    setup.method += input_sets_method(setup.sets, setup.set_bytes);
    append(setup.found, compare_timed_with_checked(devices_, buffers_, *sets_, per_sample_));  // timed_census.hpp
    return setup;
  }

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

  // Reference and optimized back to back, in the order drawn for this sample (`optimized_first`: always
  // without a device reference), so that clock and thermal drift hit both; both queued behind the gate
  // before either starts, but the first side's untimed work, which the device does while the host queues the
  // rest. Returns both sides' timed seconds; the device's wait after the sample goes to `sampled`, and so
  // does the note when the gate opened by itself.
  double sample(sampled_run& sampled, bool optimized_first) {
    ++draws_;
    prepare_side(optimized_first ? side::optimized : side::reference, true);
    {
      std::optional<launch_gate::held> held;
      if (gated_) held.emplace(gate_, stream());
      if (optimized_first) run_side(side::optimized, optimized_events_, !with_reference_);
      if (with_reference_) {
        if (optimized_first) prepare_side(side::reference, false);
        run_side(side::reference, reference_events_, optimized_first);
      }
      if (!optimized_first) {
        sets_->prepare_outputs(side::reference, per_sample_);  // nothing right to copy (the header says more)
        prepare_side(side::optimized, false);
        run_side(side::optimized, optimized_events_, true);
      }
    }
    optimized_events_.wait();
    if (with_reference_) reference_events_.wait();
    sampled.idle_waits.push_back(device_idle_wait());
    sets_->fingerprint_after_launches();  // the last side's, once the device is idle (the wait times it alone)
    const double reference = with_reference_ ? reference_events_.seconds() : 0.0;
    samples_.add(optimized_events_.seconds() / per_sample_, reference / per_sample_);
    if (gated_ && gate_.timed_out()) {
      gated_ = false;
      sampled.found.push_back({finding_kind::note, gate_timed_out_note});
    }
    return optimized_events_.seconds() + reference;
  }

  // One side of a sample. prepare_side, untimed: its input sets written (drawn anew for the first side;
  // without a flush, the same values again for the second, so that it too reads inputs just written: on the
  // H200 worth up to 6% to the second of two latency-bound kernels), its outputs prepared (poison, or the
  // drawn values in place; not the reference's in cold mode, whose flush evicts them). run_side: its launches
  // timed, then (but the last side's) its inputs' fingerprints.
  void prepare_side(side target, bool first) {
    if (first || !flush_) {
      devices_.fork();  // the other GPUs' sets are written after the launches before
      sets_->redraw(static_cast<std::uint64_t>(draws_));
    }
    if (target == side::reference && flush_) {
      sets_->restore_in_place(side::reference, per_sample_);
    } else {
      sets_->prepare_outputs(target, per_sample_);
    }
  }
  void run_side(side target, event_pair& events, bool last) {
    timed(target, events);
    if (!flush_ && !last) {
      devices_.fork();
      sets_->fingerprint_after_launches();
    }
  }

  // Samples until the stop rule says so; after each, launches drawn at random are checked (the last
  // sample's always: the rule decides only after a sample ran).
  [[nodiscard]] sampled_run sample_until_stopped() {
    sampled_run sampled;
    stop_rule rule(options_);
    const auto start = std::chrono::steady_clock::now();
    bool stop = false;
    while (!stop) {
      const bool optimized_first = checks_->optimized_first() || !with_reference_;
      const double timed_seconds = sample(sampled, optimized_first);
      stop = rule.should_stop(samples_.optimized(), samples_.reference(), host_seconds_since(start), samples_.taken());
      append(sampled.found, checks_->after_sample(*sets_, timed_seconds, stop, !optimized_first));
    }
    sampled.summary = samples_.finish(rule);
    return sampled;
  }

  // What the timed launches did to memory besides their outputs (timed_audit.hpp).
  [[nodiscard]] std::vector<finding> audit_timed_memory() {
    devices_.synchronize_devices();
    return check_timed_memory(buffers_, *sets_, with_reference_);
  }

  // Cold launches of the optimized kernel, alternately on fresh inputs and on the inputs of the launch
  // just before: the latency (one cold launch less the event-pair floor; cold mode's samples are such
  // launches already: `sampled_median` is theirs), and whether the kernel is faster on inputs it has seen.
  [[nodiscard]] latency_figures measure_latency(const timing_setup& setup, double sampled_median) {
    latency_figures l;
    const cache_flush cold(flush(), std::max(gpu_.multiprocessors, 1));
    std::vector<double> fresh, seen;
    launch_gate* const gate = gated_ ? &gate_ : nullptr;  // queued as the samples are: host work untimed
    auto launch = [&] { sets_->launch(side::optimized, 0); };
    auto single = [&](std::vector<double>& into) {
      sets_->prepare_outputs(side::optimized, 1);
      into.push_back(gated_event_time(gate, stream(), optimized_events_, [&] { flushes_.before_timed(&cold); }, launch));
      append(l.found, checks_->after_single(*sets_, into.back(),
                                            &into == &fresh ? "a latency launch" : "a seen-inputs launch"));
    };
    for (int i = 0; i < seen_pairs; ++i) {
      sets_->redraw(static_cast<std::uint64_t>(++draws_));  // every set drawn anew
      single(fresh);
      single(seen);
      sets_->fingerprint_after_launches();  // keeps the sums paired (the audit has checked them already)
    }
    // Hot: inputs just drawn (so in the caches as far as they fit, and never seen by a launch), each launch
    // queued behind a spin.
    std::vector<double> hot;
    for (int i = 0; i < seen_pairs; ++i) {
      sets_->redraw(static_cast<std::uint64_t>(++draws_));
      sets_->prepare_outputs(side::optimized, 1);
      flushes_.before_timed(nullptr);
      hot.push_back(gated_event_time(gate, stream(), optimized_events_, [&] { spin_.enqueue(stream(), 20e-6); }, launch));
      append(l.found, checks_->after_single(*sets_, hot.back(), "a hot latency launch"));
      sets_->fingerprint_after_launches();
    }
    l.hot_latency = std::max(summarize(hot).median - ceilings_.floor.events_only, 0.0);
    l.fresh_launch = summarize(fresh).median;
    l.seen_launch = summarize(seen).median;
    l.single_launch = setup.mode == timing_mode::cold && per_sample_ == 1 ? sampled_median : l.fresh_launch;
    l.latency = std::max(l.single_launch - ceilings_.floor.events_only, 0.0);
    return l;
  }

  static constexpr int seen_pairs = 9;  // fresh and seen cold launches, alternately

  const case_layout& layout_;
  case_devices& devices_;
  case_buffers& buffers_;
  case_launcher& launcher_;
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
  mode_plan mode_;
  int per_sample_ = 1;
  int output_copies_ = 1;  // of the outputs, written in turn by the launches of a sample
  int draws_ = 0;
  event_pair reference_events_, optimized_events_;
  std::optional<cache_flush> flush_;
  batch_graphs graphs_;
};

}  // namespace detail
}  // namespace kbench
