// kbench/program/case_lifecycle.hpp: the life of one case at one shape, the same in every mode of a program
// (correctness, perf, census): its declaration looked up, the filters, the GPU, the case opened on its GPUs,
// the mode's work, an exception taken as the case's error; then its verdict, decided once
// (decisions/case_verdict.hpp), and its record, put together once and only read afterwards: handed to the
// run's results, to the writers told of each case as it ends (a supervising parent's), and to the mode to
// report. Each mode says only what differs: its
// work, and how it reports a case that did not run, a case that ended, and an error. A supervising parent
// also learns when an error left the device unusable. HIP-free; compiled once per program.
#pragma once

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "../decisions/case_verdict.hpp"
#include "program.hpp"

namespace kbench {
namespace detail {

// What one mode does with a case; run_case_at_shape() calls it.
class case_mode {
 public:
  virtual ~case_mode() = default;
  // The GPU is usable; called before the case's wall time starts (once-per-program work goes here).
  virtual void prepare(const gpu_info& g) { (void)g; }
  // The mode's work on the opened case (`started`: its record as it started, which names it).
  virtual case_work run(opened_case& instance, const gpu_info& g, const case_record& started) = 0;
  // The case was filtered out or skipped (record.verdict says which, record.message why).
  virtual void not_run(const case_record& record) { (void)record; }
  // The case's work ended, and `record` holds its verdict.
  virtual void finished(const case_record& record) { (void)record; }
  // An exception ended the case, recorded already as its error; a mode may report it, or rethrow it.
  virtual void failed(const std::exception_ptr& e, const case_record& record) { (void)e, (void)record; }
};

// The record of a case as it starts: what a supervising parent records if the process ends during it.
[[nodiscard]] inline case_record started_record(const case_registration& reg, const kbench::shape& s,
                                                const std::optional<kbench::shape>& near) {
  case_record r;
  r.case_name = reg.name();
  r.shape = s;
  r.near_shape = near;
  return r;
}

// After a case's error, on a GPU that was opened: when its devices can no longer be used, a supervised
// program ends as its next case starts, and the parent runs the tests after this one in a new process
// (supervisor.hpp), so that one fault does not fail every case after it.
inline void check_devices_after_error(const program_run& run, const case_record& record) {
  completion_channel& channel = child_channel();
  if (!channel.supervised() || !run.results.device.usable) return;
  const std::string fault = device_fault(record.devices.empty() ? std::vector<int>{run.results.device.device} : record.devices);
  if (!fault.empty()) channel.device_lost(case_label(record.case_name, record.shape) + "'s error left its device unusable: " + fault);
}

// The case's record, put together once its verdict is decided.
[[nodiscard]] inline case_record assemble_record(case_record started, case_work work, case_decision decision,
                                                 double wall_seconds) {
  case_record r = std::move(started);
  r.verdict = decision.verdict;
  r.message = std::move(decision.message);
  if (work.perf) {
    perf_outcome& outcome = *work.perf;
    r.checks.push_back(std::move(outcome.before));
    if (outcome.after) r.checks.push_back(std::move(*outcome.after));
    r.timing = std::move(outcome.timing);
    r.census = std::move(outcome.census);
    r.stage_seconds = std::move(outcome.stage_seconds);
  } else {
    r.checks = std::move(work.checks);
    r.census = std::move(work.census);
  }
  r.wall_seconds = wall_seconds;
  return r;
}

// One case at one shape in `mode` (`near`: the declared shape that `s` is near, when it is one of the shapes
// around it). The case's wall time runs from opening the case to its end: the device's opening and the
// once-per-program measurements are reported on their own. Returns the case's record, which the run's
// results hold too.
inline const case_record& run_case_at_shape(program_run& run, const case_registration& reg, const kbench::shape& s,
                                            const run_options& options, case_mode& mode,
                                            const std::optional<kbench::shape>& near = std::nullopt) {
  case_record started = started_record(reg, s, near);
  if (!near) run.progress.starting(case_label(reg.name(), s));
  if (child_channel().supervised()) child_channel().starting(case_label(reg.name(), s), case_json_line(started), near.has_value());
  case_ending ending = case_ending::ran;
  std::string reason;
  case_work work;
  std::exception_ptr error;
  std::optional<std::chrono::steady_clock::time_point> opened;
  try {
    started.declaration = run.declarations.of(reg, s).lines;
    reason = filtered_because(run, reg, s, options);
    const gpu_info* g = nullptr;
    if (!reason.empty()) {
      ending = case_ending::filtered;
    } else if ((g = usable_gpu(run, options, reason)) == nullptr) {
      ending = case_ending::skipped;
    } else {
      mode.prepare(*g);
      opened = std::chrono::steady_clock::now();
      std::unique_ptr<opened_case> instance;
      try {
        instance = std::make_unique<opened_case>(reg, s, options);
      } catch (const skipped_case& e) {
        ending = case_ending::skipped;
        reason = e.what();
      }
      if (instance) {
        started.devices = instance->devices();
        started.devices_shared = instance->devices_shared();
        started.peer_access = instance->peer_access();
        work = mode.run(*instance, *g, started);
      }
    }
  } catch (const std::exception& e) {
    ending = case_ending::error;
    reason = e.what();
    error = std::current_exception();
  } catch (...) {
    ending = case_ending::error;
    reason = "an exception that is no std::exception";
    error = std::current_exception();
  }
  const double wall =
      opened ? std::chrono::duration<double>(std::chrono::steady_clock::now() - *opened).count() : 0.0;
  const case_decision decision = decide_case(options.mode, near.has_value(), ending, reason, work);
  const case_record& record =
      run.results.cases.emplace_back(assemble_record(std::move(started), std::move(work), decision, wall));
  if (error) check_devices_after_error(run, record);
  run.case_writers.case_ended(record);  // a supervising parent's record (program.hpp)
  if (error) {
    mode.failed(error, record);
  } else if (ending == case_ending::ran) {
    mode.finished(record);
  } else {
    mode.not_run(record);
  }
  return record;
}

}  // namespace detail
}  // namespace kbench
