// kbench/procedure/timed_audit.hpp: what the timed launches of a timing run did. Each checked launch
// (timing_run.hpp chooses them at random, once their sample has run): its outputs against the reference's on
// the same input set (in-place buffers in their working copies, in every mode). Once the last sample has
// run: the guards of both sides' outputs and of the working copies, the padding, input set 0, the
// fingerprints of every timed input set, and memory a kernel kept in L2 through the cold flush.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../contract/platform.hpp"
#include "../engines/device_compare.hpp"
#include "../results/outcome.hpp"
#include "case_buffers.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"
#include "reference_run.hpp"
#include "timed_input_sets.hpp"

namespace kbench {
namespace detail {

// Guards, padding and inputs after the timed launches.
[[nodiscard]] inline std::vector<finding> check_timed_memory(const case_buffers& buffers, const timed_input_sets& sets,
                                                             bool with_reference) {
  std::vector<finding> found;
  for (const side target : {side::reference, side::optimized}) {
    if (target == side::reference && !with_reference) continue;
    append(found, buffers.check_guards(target, "while timed, "));
    append(found, sets.check_working_guards(target, "while timed, "));
    append(found, buffers.check_padding(target, "while timed, ", true));  // the working copies' padding holds drawn values
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
  return found;
}

// Memory kept in L2 through the cold flush (NVIDIA; AMD has no persisting L2): an access-policy window a
// launch left on a stream of the case (case_launcher.hpp clears it after every launch and remembers it),
// or more L2 set aside for persisting accesses than when the case was opened (some drivers set some aside
// by default: 11.25 MiB on the H200 of 2026-12-02). Every flush first sets persisting lines
// back to normal (measure.hpp), but lines marked by a launch still queued survive that.
[[nodiscard]] inline std::vector<finding> check_persisting_cache(const case_devices& devices, const case_launcher& launcher) {
  std::vector<finding> found;
  for (const side target : {side::optimized, side::reference}) {
    const std::size_t bytes = launcher.access_window_bytes(target);
    if (bytes == 0) continue;
    found.push_back({finding_kind::persisting_cache,
                     fmt::format("the {} kernel set an access-policy window of {:.4g} MiB on the stream kbench gave it "
                                 "(persisting L2: the range stays cached through the cold flush); kbench cleared it "
                                 "after every launch",
                                 name_of(target), bytes / 1048576.0)});
  }
  for (int d = 0; d < devices.count(); ++d) {
    if (!devices.first_on_its_gpu(d)) continue;  // one GPU twice (--share-devices): said once
    const current_device here = devices.on(d);
    const std::size_t bytes = persisting_l2_set_aside(), before = launcher.set_aside_at_open(d);
    if (bytes <= before) continue;
    found.push_back({finding_kind::persisting_cache,
                     fmt::format("{:.4g} MiB of L2 on GPU {} are set aside for persisting accesses "
                                 "(cudaLimitPersistingL2CacheSize), {:.4g} MiB when the case was opened: a launch of "
                                 "the case set more aside, which keeps memory cached through the cold flush",
                                 bytes / 1048576.0, devices.ordinal(d), before / 1048576.0)});
  }
  return found;
}

// Output k of launch `launch` against the reference's on the same input set (`expected`: the device
// reference's output of that launch; null: the host reference's values): on the GPU when the tolerance
// allows, with the comparator (which names the mismatches) when that finds anything or cannot run.
inline comparison compare_timed_output(const case_layout& layout, const case_devices& devices,
                                       output_comparator& comparator, std::size_t k, const void* actual,
                                       const void* expected) {
  const buffer_slot& slot = layout.output_slot(k);
  const tolerance tol = layout.tolerance_of_output(k);
  if (expected && !slot.padded() && device_can_compare(tol)) {
    const current_device here = devices.on(slot);
    device_comparison d = compare_on_device(actual, expected, slot.type, slot.size, slot.extents, tol, devices.stream_of(slot));
    if (d.clean) return std::move(d.result);
  }
  return comparator.compare_at(k, actual, expected);
}

// Launch `launch` of the sample just run, checked: the optimized kernel's outputs against the reference's
// on the same input set (the device reference's outputs of the same launch, or the host reference run on
// that set), and the padding of its working copies. `where` names the launch. Empty when the launch was right.
[[nodiscard]] inline std::vector<finding> check_timed_launch(const case_layout& layout, const case_devices& devices,
                                                             const case_buffers& buffers, output_comparator& comparator,
                                                             host_computation& host, timed_input_sets& sets,
                                                             bool with_reference, int launch, const std::string& where) {
  std::vector<finding> problems, found;
  if (with_reference) {
    comparator.reference_ran();
  } else {
    problems = run_host_reference(layout, buffers, comparator, host, sets.input_set(launch), false);
  }
  for (finding& p : problems) found.push_back({p.kind, fmt::format("in a checked timed launch ({}), {}", where, p.text)});
  if (!problems.empty()) return found;
  for (std::size_t k = 0; k < layout.output_count(); ++k) {
    const void* actual = sets.output_of(side::optimized, k, launch);
    const void* expected = with_reference ? sets.output_of(side::reference, k, launch) : nullptr;
    const comparison c = compare_timed_output(layout, devices, comparator, k, actual, expected);
    const buffer_slot& slot = layout.output_slot(k);
    if (!c.passed) {
      found.push_back({finding_kind::timed_launch_wrong,
                       fmt::format("a timed launch of the optimized kernel ({}, input set {}) disagrees with the "
                                   "reference on the same inputs, output '{}': {}",
                                   where, launch + 1, slot.name, c.reasons.empty() ? std::string("failed") : c.reasons.front())});
    }
    if (!sets.in_copy(k) || layout.in_place(k)) continue;  // the case's own outputs: the audit checks their padding
    const current_device here = devices.on(slot);
    const std::string changed = padding_changes(actual, slot);
    if (!changed.empty()) {
      found.push_back({finding_kind::stray_write, fmt::format("in a checked timed launch ({}), the optimized kernel wrote "
                                                              "into the padding of output '{}': {}",
                                                              where, slot.name, changed)});
    }
  }
  return found;
}

}  // namespace detail
}  // namespace kbench
