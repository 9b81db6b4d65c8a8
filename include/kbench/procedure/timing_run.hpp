// kbench/procedure/timing_run.hpp: one timing run of a case that has just passed a correctness run, in
// named steps (run() lists them in order):
//
//   warm_up               launches of both kernels on the checked inputs, by count and by time (clocks ramp up)
//   choose_mode           a pilot of hot samples decides the automatic mode and the batch size
//   draw_input_sets       the input sets of the timed launches: in batch mode one per launch of a sample
//   prepare_mode          cold mode's cache flush, batch mode's graphs
//   sample_until_stopped  before every sample, every input set is drawn anew (untimed), so no timed launch
//                         reads inputs an earlier launch has seen; then reference and optimized back to back,
//                         each between its own event pair, until the stop rule says so (stop_rule.hpp)
//   audit_last_sample     one more sample, on inputs fresh from the generator and poisoned outputs, the
//                         optimized kernel first, checked against the reference on the same inputs (in-place
//                         buffers too, in every mode); then the guards, the checked inputs and the
//                         fingerprints of every input set (timed_audit.hpp)
//   summarize_samples     statistics of both kernels and the speedup's interval
//   measure_latency       cold launches on fresh inputs (latency: one cold launch less the event-pair floor)
//                         and on the inputs of the launch before (a kernel faster on those reuses results)
//   measure_unseen_work   one launch on an idle device timed on the host's clock
//
// The run measures; judge.hpp decides what the measurements mean.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../decisions/judge.hpp"
#include "../decisions/run_options.hpp"
#include "../decisions/stop_rule.hpp"
#include "../decisions/timing_plan.hpp"
#include "../engines/measure.hpp"
#include "../engines/timing.hpp"
#include "../results/results.hpp"
#include "../results/statistics.hpp"
#include "case_buffers.hpp"
#include "case_device_tools.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"
#include "timed_audit.hpp"
#include "timed_input_sets.hpp"

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

// Holds the case's buffers, its comparator and its host computation (the audit's host reference); owns
// the timed input sets and the other GPUs' flushes for the length of the run.
class timing_run {
 public:
  timing_run(case_buffers& buffers, output_comparator& comparator, host_computation& host, const run_options& options,
             const gpu_info& g, const device_ceilings& ceilings)
      : buffers_(buffers), comparator_(comparator), host_(host), options_(options), gpu_(g), ceilings_(ceilings),
        spin_(buffers.stream()), with_reference_(buffers.has_device_reference()), flushes_(buffers.devices()) {
    t_.warmup = options.warmup;
    t_.work = buffers.declaration().work;
    t_.expectations = buffers.declaration().expectations;
    t_.precision_target = options.precision;
  }

  [[nodiscard]] timing_result run() {
    stage("warm-up", [&] { warm_up(); });
    stage("set-up", [&] {
      choose_mode();
      draw_input_sets();
      prepare_mode();
    });
    stage("sampling", [&] { sample_until_stopped(); });
    stage("audit", [&] { audit_last_sample(); });
    summarize_samples();
    stage("latency", [&] { measure_latency(); });
    stage("unseen work", [&] { measure_unseen_work(); });
    sets_.reset();
    judge_timing(t_, {gpu_.l2_bytes, ceilings_.copy, ceilings_.floor});
    return t_;
  }

 private:
  [[nodiscard]] hipStream_t stream() const { return buffers_.stream(); }
  [[nodiscard]] std::size_t flush() const { return flush_bytes(options_, gpu_.l2_bytes); }

  void warm_up() {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < options_.warmup || host_seconds_since(start) < options_.warmup_time; ++i) {
      buffers_.restore_in_place(side::reference);
      buffers_.restore_in_place(side::optimized);
      if (with_reference_) buffers_.launch(side::reference);
      buffers_.launch(side::optimized);
      buffers_.synchronize();
    }
  }

  void choose_mode() {
    auto hot_start = [&] {
      buffers_.restore_in_place(side::optimized);
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
    sets_.emplace(buffers_, plan.sets);  // drawn before each sample, from the first on
  }

  void prepare_mode() {
    switch (mode_.mode) {
      case timing_mode::cold:
        flush_.emplace(flush(), std::max(gpu_.multiprocessors, 1));
        t_.method = fmt::format("cold: a {} MiB read evicts the caches before each launch; one launch per event pair; "
                                "reference and optimized interleaved",
                                flush_->bytes() >> 20);
        break;
      case timing_mode::hot:
        t_.method = "hot: no cache flush; one launch per event pair, queued behind a 20 us spin kernel; reference and "
                    "optimized interleaved";
        break;
      default: capture_batches(); break;
    }
    t_.method += input_sets_method(t_);
  }

  // Draws every timed input set anew (and restores the in-place working copies from them): rearranged
  // for an ordinary sample, from the generator for the audit and the seen-inputs check.
  void redraw(bool fresh = false) {
    sets_->redraw(static_cast<std::uint64_t>(++draws_), fresh);
    sets_->restore_working(side::reference, per_sample_);
    sets_->restore_working(side::optimized, per_sample_);
  }

  // Batch mode: per_sample_ launches of each side captured in a graph, launch i on input set i + 1; when
  // a side cannot be captured, both are launched on the stream instead, and a note says why.
  void capture_batches() {
    try {
      if (with_reference_) {
        reference_graph_.emplace(stream(), [&](int i) { sets_->launch(side::reference, i); }, per_sample_);
        t_.reference_graph_operations = static_cast<long long>(reference_graph_->nodes());
      }
      optimized_graph_.emplace(stream(), [&](int i) { sets_->launch(side::optimized, i); }, per_sample_);
      t_.optimized_graph_operations = static_cast<long long>(optimized_graph_->nodes());
      t_.method = fmt::format("batch: a graph of {} launches per event pair, time per launch; hot caches; reference "
                              "and optimized interleaved",
                              per_sample_);
    } catch (const error& e) {
      reference_graph_.reset();
      optimized_graph_.reset();
      t_.reference_graph_operations = t_.optimized_graph_operations = -1;
      t_.method = fmt::format("batch: {} launches on the stream per event pair, time per launch; hot caches; reference "
                              "and optimized interleaved",
                              per_sample_);
      t_.findings.push_back({finding_kind::note, fmt::format("the launches could not be captured in a graph ({}); "
                                                             "batched on the stream",
                                                             e.what())});
    }
  }

  // The launches of one side in one sample, between that side's events, queued behind the flush (of
  // every device of the case) or a spin so that the launch overhead is not timed.
  void timed(side target, event_pair& events) {
    flushes_.before_timed(flush_ ? &*flush_ : nullptr);
    if (!flush_) spin_.enqueue(stream(), 20e-6);
    const std::optional<launch_graph>& graph = target == side::optimized ? optimized_graph_ : reference_graph_;
    events.record_around(stream(), [&] {
      if (graph) {
        graph->launch(stream());
      } else {
        for (int i = 0; i < per_sample_; ++i) sets_->launch(target, i);
      }
    });
  }

  // Fresh inputs, then reference and optimized back to back, so that clock and thermal drift hit both;
  // the fingerprints of the inputs are taken once the device is idle again (never while timed).
  void sample(bool optimized_first) {
    redraw(optimized_first);
    if (optimized_first) timed(side::optimized, optimized_events_);
    if (with_reference_) timed(side::reference, reference_events_);
    if (!optimized_first) timed(side::optimized, optimized_events_);
    optimized_events_.wait();
    if (with_reference_) reference_events_.wait();
    waits_.push_back(device_idle_wait());
    sets_->fingerprint_after_launches();
    if (with_reference_) reference_s_.push_back(reference_events_.seconds() / per_sample_);
    optimized_s_.push_back(optimized_events_.seconds() / per_sample_);
  }

  void sample_until_stopped() {
    stop_rule rule(options_);
    const auto start = std::chrono::steady_clock::now();
    do {
      sample(false);
    } while (!rule.should_stop(optimized_s_, reference_s_, host_seconds_since(start)));
    t_.precise = rule.precise();
    t_.optimized_precision = rule.optimized_precision();
    t_.reference_precision = rule.reference_precision();
  }

  // A kernel that skips work once it has warmed up, or only while it is timed, leaves poison or another
  // input set's values behind; the optimized kernel goes first, so the reference's outputs it could copy
  // are poison too.
  void audit_last_sample() {
    buffers_.poison_outputs();
    sample(true);
    audit_timed_launches(buffers_, comparator_, host_, *sets_, with_reference_, per_sample_ - 1, t_.findings);
  }

  void summarize_samples() {
    t_.optimized = summarize(optimized_s_);
    t_.optimized_samples = optimized_s_;
    t_.reference_samples = reference_s_;
    t_.idle_wait = summarize(waits_).median;
    if (with_reference_) {
      t_.reference = summarize(reference_s_);
      t_.speedup = t_.reference->median / t_.optimized.median;
      t_.speedup_interval = ratio_of_medians_interval(reference_s_, optimized_s_);
    }
  }

  // Cold launches of the optimized kernel, alternately on fresh inputs and on the inputs of the launch
  // just before: the latency (one cold launch less the event-pair floor; cold mode's samples are such
  // launches already), and whether the kernel is faster on inputs it has seen.
  void measure_latency() {
    const cache_flush cold(flush(), std::max(gpu_.multiprocessors, 1));
    std::vector<double> fresh, seen;
    auto single = [&](std::vector<double>& into) {
      sets_->restore_working(side::optimized, 1);
      flushes_.before_timed(&cold);
      into.push_back(optimized_events_.time(stream(), [&] { sets_->launch(side::optimized, 0); }));
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
      flushes_.before_timed(nullptr);
      spin_.enqueue(stream(), 20e-6);
      hot.push_back(optimized_events_.time(stream(), [&] { sets_->launch(side::optimized, 0); }));
      sets_->fingerprint_after_launches();
    }
    t_.hot_latency = std::max(summarize(hot).median - ceilings_.floor.events_only, 0.0);
    t_.fresh_launch = summarize(fresh).median;
    t_.seen_launch = summarize(seen).median;
    t_.single_launch = mode_.mode == timing_mode::cold && per_sample_ == 1 ? t_.optimized.median : t_.fresh_launch;
    t_.latency = std::max(t_.single_launch - ceilings_.floor.events_only, 0.0);
  }

  // Work the timed stream did not see (another stream, or started after the launch returned) keeps the
  // device busy on the host's clock.
  void measure_unseen_work() {
    t_.launch_wall = launch_wall_time([&] { sets_->restore_working(side::optimized, 1); },
                                      [&] { sets_->launch(side::optimized, 0); });
  }

  // Host time of one step of the run, for the report of where a run's wall time goes.
  template <class Step>
  void stage(const char* name, Step&& step) {
    t_.stage_seconds.push_back({name, host_seconds(step)});
  }

  static constexpr int seen_pairs = 9;  // fresh and seen cold launches, alternately

  case_buffers& buffers_;
  output_comparator& comparator_;
  host_computation& host_;
  const run_options& options_;
  const gpu_info& gpu_;
  const device_ceilings& ceilings_;
  const spinner spin_;
  const bool with_reference_;
  device_flushes flushes_;
  std::optional<timed_input_sets> sets_;
  timing_result t_;
  mode_plan mode_;
  int per_sample_ = 1;
  int draws_ = 0;
  event_pair reference_events_, optimized_events_;
  std::optional<cache_flush> flush_;
  std::optional<launch_graph> reference_graph_, optimized_graph_;
  std::vector<double> reference_s_, optimized_s_, waits_;
};

}  // namespace detail
}  // namespace kbench
