// kbench/program/case_lifecycle.hpp: the life of one case at one shape, the same in every mode of a program
// (correctness, perf, census): its record in the journal, the filters, the GPU, the case opened on its GPUs,
// the mode's work, and an exception recorded as the case's error. Each mode says only what differs: how it
// reports a case that does not run, what it prepares once the GPU is known, its work, and what else it does
// with an error. A supervising parent gets the record as the case ends, and learns when an error left the
// device unusable. HIP-free; compiled once per program.
#pragma once

#include <cstdio>
#include <exception>
#include <memory>
#include <optional>

#include "program.hpp"

namespace kbench {
namespace detail {

// What one mode does with a case; run_case() calls it.
class case_mode {
 public:
  virtual ~case_mode() = default;
  // The case was filtered out or skipped (record.verdict says which, record.message why; a mode may
  // change what it records).
  virtual void not_run(case_record& record) { (void)record; }
  // The GPU is usable; called before the case's wall time starts (once-per-program work goes here).
  virtual void prepare(const gpu_info& g) { (void)g; }
  // The mode's work on the opened case; it sets record.verdict.
  virtual void run(case_run& instance, const gpu_info& g, case_record& record) = 0;
  // An exception ended the case, recorded already as its error; a mode may report it, or rethrow it.
  virtual void failed(const std::exception& e, const case_record& record) { (void)e, (void)record; }
};

// Sends a case's record to a supervising parent as the case ends, however it ends (completion_channel.hpp).
class record_sender {
 public:
  explicit record_sender(const case_record& record) : record_(record) {}
  ~record_sender() {
    if (!child_channel().supervised()) return;
    try {
      child_channel().finished(case_json_line(record_));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kbench: the record of %s could not be sent to the supervising process: %s\n",
                   record_.case_name.c_str(), e.what());
    }
  }
  record_sender(const record_sender&) = delete;
  record_sender& operator=(const record_sender&) = delete;

 private:
  const case_record& record_;
};

// After a case's error, on a GPU that was opened: when its devices can no longer be used, a supervised
// program ends as its next case starts, and the parent runs the tests after this one in a new process
// (supervisor.hpp), so that one fault does not fail every case after it.
inline void check_devices_after_error(const case_record& record) {
  completion_channel& channel = child_channel();
  if (!channel.supervised() || !journal().device.usable) return;
  const std::string fault = device_fault(record.devices.empty() ? std::vector<int>{journal().device.device} : record.devices);
  if (!fault.empty()) channel.device_lost(case_label(record.case_name, record.shape) + "'s error left its device unusable: " + fault);
}

// One case at one shape in `mode` (`near`: the declared shape that `s` is near, when it is one of the shapes
// around it). The case's wall time runs from opening the case to its end: the device's opening and the
// once-per-program measurements are reported on their own.
inline void run_case(const case_registration& reg, const kbench::shape& s, const run_options& options, case_mode& mode,
                     const std::optional<kbench::shape>& near = std::nullopt) {
  case_record& record = new_record(reg, s, near);
  const record_sender sent(record);
  try {
    record.declaration = declaration_lines(reg, s);
    const gpu_info* g = filtered_out(reg, s, options, record) ? nullptr : gpu_or_skip(options, record);
    if (g == nullptr) return mode.not_run(record);
    mode.prepare(*g);
    const wall_timer wall(record);
    const std::unique_ptr<case_run> instance = open_case(reg, s, options, record);
    if (!instance) return mode.not_run(record);
    mode.run(*instance, *g, record);
  } catch (const std::exception& e) {
    record.verdict = case_verdict::error;
    record.message = e.what();
    check_devices_after_error(record);
    mode.failed(e, record);
  }
}

}  // namespace detail
}  // namespace kbench
