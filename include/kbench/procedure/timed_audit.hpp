// kbench/procedure/timed_audit.hpp: what the timed launches of a timing run did, checked once its last
// sample (the audit's: fresh inputs, poisoned outputs, the optimized kernel first) has run: the guards of
// both sides' outputs and of the in-place working copies, the padding, input set 0, the fingerprints of
// every timed input set, and the outputs of the sample's last launch against the reference's on the same
// input set (in-place buffers in their working copies, in every mode).
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "../results/outcome.hpp"
#include "case_buffers.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"
#include "reference_run.hpp"
#include "timed_input_sets.hpp"

namespace kbench {
namespace detail {

// Guards, padding and inputs after the timed launches.
inline void check_timed_memory(case_buffers& buffers, timed_input_sets& sets, bool with_reference,
                               std::vector<finding>& found) {
  for (const side target : {side::reference, side::optimized}) {
    if (target == side::reference && !with_reference) continue;
    buffers.check_guards(target, "while timed, ", found);
    sets.check_working_guards(target, "while timed, ", found);
    buffers.check_padding(target, "while timed, ", found, true);  // the working copies' padding holds drawn values
  }
  for (const std::string& name : buffers.modified_inputs()) {
    found.push_back({finding_kind::input_modified,
                     fmt::format("while timed, a launch modified input '{}' (input set 0, the one checked); inputs "
                                 "must be read-only",
                                 name)});
  }
  for (const std::string& name : sets.changed_inputs()) {
    found.push_back({finding_kind::input_modified,
                     fmt::format("while timed, a launch modified input '{}' (in the input sets of the timed "
                                 "launches); inputs must be read-only",
                                 name)});
  }
}

// Everything above, then the outputs of launch `last` of the last sample against the reference's on the
// same input set (the device reference's outputs there, or the host reference run on that set).
inline void audit_timed_launches(case_buffers& buffers, output_comparator& comparator, host_computation& host,
                                 timed_input_sets& sets, bool with_reference, int last, std::vector<finding>& found) {
  buffers.synchronize_devices();
  check_timed_memory(buffers, sets, with_reference, found);
  const int set = last + 1;
  std::vector<finding> problems;
  if (with_reference) {
    comparator.reference_ran();
    for (std::size_t k = 0; k < buffers.output_count(); ++k) {
      const buffer_slot& slot = buffers.output_slot(k);
      if (!info(slot.type).is_float || buffers.in_place(k)) continue;
      report_unwritten(slot, comparator.poisoned_in_reference(k), "reference", "unwritten", problems);
    }
  } else {
    run_host_reference(buffers, comparator, host, sets.input_set(last), false, problems);
  }
  for (finding& p : problems) found.push_back({p.kind, "in the last timed sample, " + p.text});
  if (!problems.empty()) return;
  for (std::size_t k = 0; k < buffers.output_count(); ++k) {
    const void* expected = with_reference ? sets.output_of(side::reference, k, last) : nullptr;
    const comparison c = comparator.compare_at(k, sets.output_of(side::optimized, k, last), expected);
    if (!c.passed) {
      found.push_back({finding_kind::timed_launch_wrong,
                       fmt::format("the last timed launch of the optimized kernel (input set {}) disagrees with the "
                                   "reference on the same inputs, output '{}': {}",
                                   set, buffers.output_slot(k).name,
                                   c.reasons.empty() ? std::string("failed") : c.reasons.front())});
    }
  }
}

}  // namespace detail
}  // namespace kbench
