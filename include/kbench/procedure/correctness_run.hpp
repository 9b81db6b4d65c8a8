// kbench/procedure/correctness_run.hpp: one correctness run of a case at one seed, in named steps:
//
//   draw         fresh inputs on the device from the seed (input set 0), snapshotted
//   run_side     the optimized kernel first, on poisoned and guarded outputs, then waits for the whole
//                device and checks the guards and the inputs (the reference's outputs for these inputs do
//                not exist yet, so a kernel that copies them is caught) (reference_run.hpp)
//   determinism  the optimized kernel again on the same inputs, and (checks.under_load) up to three times
//                more while other work loads the device, which brings out races a quiet device hides: the
//                outputs must be the same bits
//   limits       (checks.launch_limits) each side's launch captured, not run, after its first launch (the
//                optimized side's before the reference's outputs exist): every kernel within the limits of the
//                device and of the kernel itself (launch_limits_check.hpp)
//   references   the reference the same way (or the host reference in double), and whether it left any
//                element unwritten (reference_run.hpp)
//   can fail     (checks.tolerance_can_fail) the tolerance must reject what a broken kernel leaves
//                (tolerance_probe.hpp)
//   compare      every output, on the GPU when large (output_comparator.hpp)
//   oracle       (checks.oracle) when the case declares one: both sides against a host computation in
//                double; the optimized kernel may not be materially less accurate than the reference
//   alignment    (checks.alignment, for a kernel right so far) the optimized kernel again with buffers off
//                their alignment at every offset that breaks a vector access of up to 16 bytes (as the case
//                allows), all of them, the outputs alone and the inputs alone: its outputs must still be the
//                reference's (alignment_check.hpp)
//   bounds       (checks.alignment, for a kernel right so far) the optimized kernel again with each buffer
//                in turn against unmapped memory, ending where it starts, then starting where it ends: a
//                read or write beyond the buffer faults, naming it and the side, and the outputs must still
//                be the reference's (bounds_check.hpp; a note where the platform cannot fence memory); then
//                once more on set 0's buffers, which the run's last launch always uses
//   spikes       (checks.spikes, for a kernel right so far, at any size) both sides again with a few elements of
//                each input set to large values, then with every input from another family: the optimized
//                kernel's outputs must follow the reference's, so work left out or values computed from the
//                declared distribution fail (spike_check.hpp)
//   edges        (checks.extended) both sides again on inputs at other magnitudes, with signed zeros, subnormals
//                and exact ties, judged where the reference is finite (edge_check.hpp); then set 0 as
//                declared again, the reference rerun on it
//   last launch  the optimized kernel once more on set 0 as declared: the same bits as its first run
//
// From the alignment step on, the optimized side runs again on set 0, whose right outputs kbench holds: its own
// first outputs are poisoned, the copy held to match them is sealed until the last launch, and so are the
// reference's outputs during each launch (sealed_outputs.hpp): not there to copy, and a write into them an
// error.
//
// The run holds the case's buffers, its comparator, its host computation and the load of the reruns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../decisions/nearby_shapes.hpp"
#include "../engines/comparison.hpp"
#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "alignment_check.hpp"
#include "bounds_check.hpp"
#include "case_buffers.hpp"
#include "case_device_tools.hpp"
#include "correctness_checks.hpp"
#include "edge_check.hpp"
#include "host_comparison.hpp"
#include "host_computation.hpp"
#include "launch_limits_check.hpp"
#include "output_comparator.hpp"
#include "reference_run.hpp"
#include "sealed_outputs.hpp"
#include "spike_check.hpp"
#include "tolerance_probe.hpp"

namespace kbench {
namespace detail {

// The element of a buffer's rows at position `stored` of its memory (padding counted).
[[nodiscard]] inline std::size_t logical_index(const buffer_slot& slot, std::size_t stored) {
  return slot.padded() ? stored / slot.pitch * slot.row() + std::min(stored % slot.pitch, slot.row() - 1) : stored;
}

class correctness_run {
 public:
  correctness_run(const case_layout& layout, case_devices& devices, case_buffers& buffers, case_launcher& launcher,
                  output_comparator& comparator, host_computation& host, device_loads& loads)
      : layout_(layout), devices_(devices), buffers_(buffers), launcher_(launcher), comparator_(comparator),
        host_(host), loads_(loads) {}

  // One correctness run at `seed`: each step returns what it found, and the run's result is put together
  // from them at the end, in the order the steps ran.
  [[nodiscard]] seed_result run(std::uint64_t seed, correctness_checks checks) {
    std::vector<finding> problems;
    step_marks steps;  // where the run's host time goes, step by step (0 for a step that did not run)
    buffers_.draw(seed);
    append(problems, run_side(devices_, buffers_, side::optimized));
    const held_outputs held = buffers_.hold(side::optimized);
    append(problems, rerun_and_match(held, 0));
    steps.mark("optimized");
    if (checks.under_load) append(problems, rerun_under_load(held));
    steps.mark("under load");
    if (checks.launch_limits) append(problems, check_launch_limits(devices_, buffers_, side::optimized));
    std::optional<host_run> host_reference;
    if (layout_.has_device_reference()) {
      append(problems, run_device_reference(layout_, devices_, buffers_, comparator_));
      if (checks.launch_limits) append(problems, check_launch_limits(devices_, buffers_, side::reference));
    } else {
      host_reference.emplace();
      append(problems, run_host_reference(layout_, buffers_, comparator_, host_, buffers_.first_input_set(), true,
                                                &*host_reference));
    }
    steps.mark("reference");
    if (checks.tolerance_can_fail) append(problems, check_tolerance_can_fail(layout_, devices_, buffers_, comparator_));
    steps.mark("tolerance probe");
    std::vector<output_result> outputs;
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      const buffer_slot& slot = layout_.output_slot(k);
      outputs.push_back({slot.name, slot.type, slot.extents, comparator_.compare(k), {}});
    }
    // The outputs just compared, as the runs on set 0 moved elsewhere know them again (only those of a kernel
    // right so far move: see below).
    first_outputs first;
    if (checks.alignment && run_passed(problems, outputs)) first = fingerprint_first(layout_, devices_, buffers_, outputs);
    steps.mark("compare");
    if (checks.oracle && layout_.declaration().oracle) {
      oracle_check against = check_against_oracle();
      for (std::size_t k = 0; k < outputs.size(); ++k) outputs[k].oracle = against.results[k];
      append(problems, against.found);
    }
    steps.mark("oracle");
    const bool small = layout_.declaration().elements() <= small_case_elements;
    const bool every = checks.extended && (small || checks.any_size);
    sealed_outputs held_sealed(layout_, devices_);
    if (checks.alignment || checks.spikes || every) {
      buffers_.prepare_outputs(side::optimized);
      held_sealed.seal_held(held);
    }
    // The misaligned runs, and each buffer against unmapped memory, only for a kernel right so far: what fails
    // is reported already (a write past an output's end, by its guards); a kernel wrong where it is placed as
    // declared writes who knows where once moved (into the reference's sealed outputs, say, which would read as
    // tampering); and a fault would put an error in its place (on NVIDIA, one that loses the device).
    if (checks.alignment && run_passed(problems, outputs)) {
      append(problems, check_alignment(layout_, devices_, buffers_, launcher_, comparator_, first, every));
    }
    steps.mark("alignment");
    if (checks.alignment && run_passed(problems, outputs)) {
      append(problems, check_bounds(layout_, devices_, buffers_, launcher_, comparator_, first));
    }
    steps.mark("bounds");
    // The spikes and the edges only for a kernel right as declared: what fails there is reported, and each
    // of their runs would repeat it.
    std::vector<double> declared_rms;
    if (run_passed(problems, outputs) && (checks.spikes || every)) declared_rms = declared_output_rms(layout_, comparator_);
    spike_check_result spiked;
    if (checks.spikes && run_passed(problems, outputs)) {
      spiked = check_inputs_matter(layout_, devices_, buffers_, comparator_, host_, declared_rms);
    }
    append(problems, spiked.found);
    steps.mark("spikes");
    const bool edges = every && layout_.declaration().edge_values && run_passed(problems, outputs);
    edge_check_result at_edges;
    if (edges) at_edges = check_edge_values(layout_, devices_, buffers_, comparator_, host_, declared_rms);
    append(problems, at_edges.found);
    steps.mark("edges");
    // The last launch on set 0's buffers as declared: a kernel that keys a cache on its buffers' addresses
    // meets the next run's inputs there. Only for a kernel right so far, as the misaligned runs (above).
    const bool rerun = checks.alignment || edges || spiked.runs > 0;
    if (rerun && run_passed(problems, outputs)) append(problems, rerun_and_match(held, 0, &held_sealed));
    steps.mark("last launch");
    return {seed, std::move(host_reference), std::move(problems), std::move(outputs), at_edges.runs, spiked.runs, steps.take()};
  }

 private:
  // Runs the optimized kernel again on the same inputs (with `load` blocks per compute unit spinning on
  // another stream, competing with it; 0: none); a finding for each output whose bits differ from `held`.
  // `held_sealed`, after the reference ran: `held` is sealed there, and the reference's outputs are sealed
  // during the launch too; both unsealed before the match.
  [[nodiscard]] std::vector<finding> rerun_and_match(const held_outputs& held, int load, sealed_outputs* held_sealed = nullptr) {
    std::vector<finding> problems;
    buffers_.prepare_outputs(side::optimized);
    if (load > 0) loads_.load(1e-3, load);
    sealed_outputs reference_sealed(layout_, devices_);
    if (held_sealed) reference_sealed.seal_reference(buffers_);
    buffers_.launch(side::optimized);
    devices_.synchronize_devices();
    if (held_sealed) {
      reference_sealed.unseal("in the last launch of a correctness run");
      held_sealed->unseal("before the last launch of a correctness run");
    }
    const bool required = layout_.declaration().deterministic;
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      std::size_t first = 0;
      const std::size_t differ = buffers_.differing_words(held, k, first);
      if (differ == 0) continue;
      const buffer_slot& slot = layout_.output_slot(k);
      const std::size_t width = info(slot.type).size;
      problems.push_back(
          {required ? finding_kind::nondeterministic : finding_kind::note,
           fmt::format("the optimized kernel gave other bits on the same inputs{}: output '{}' differs in {} word(s), "
                       "first at element {}{}",
                       load ? " while other work loaded the device" : "", slot.name, differ,
                       format_index(logical_index(slot, first / width), slot.extents),
                       required ? " (the case declares it deterministic)"
                                : " (a race, or atomics reordering a reduction; declare deterministic() to make this fail)")});
    }
    return problems;
  }

  // Reruns while other work loads the device, up to three (48, 24 and 64 warps of load per compute unit:
  // each interleaves the case's warps differently), until one shows other bits. A race that a quiet
  // device hides shows in some of them; one rerun caught a block reduction missing a barrier in 5 of 6
  // checks on the H200.
  [[nodiscard]] std::vector<finding> rerun_under_load(const held_outputs& held) {
    for (const int load : {6, 3, 8}) {
      std::vector<finding> found = rerun_and_match(held, load);
      if (!found.empty()) return found;
    }
    return {};
  }

  // What comparing both sides with the oracle gave: each output's figures, and what fails.
  struct oracle_check {
    std::vector<oracle_result> results;  // by output
    std::vector<finding> found;
  };

  // Both sides against the oracle on input set 0: a host computation in double, run as a host reference is.
  [[nodiscard]] oracle_check check_against_oracle() {
    oracle_check check;
    const declared_case& declaration = layout_.declaration();
    const std::vector<std::vector<double>> out_values = host_.run(buffers_.first_input_set(), declaration.oracle);
    const double ratio = declaration.oracle_ratio;
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      const buffer_slot& slot = layout_.output_slot(k);
      const array_view exact{out_values[k].data(), dtype::f64, slot.size, slot.extents};
      compare_options quiet;
      quiet.mismatches_to_keep = 0;
      const tolerance any = layout_.tolerance_of_output(k);
      const host_array optimized = buffers_.read_output(side::optimized, k);
      const comparison reference_side = compare_on_host(comparator_.expected_on_host(k).view(slot.size, slot.extents), exact, any, quiet);
      const comparison optimized_side = compare_on_host(optimized.view(slot.size, slot.extents), exact, any, quiet);
      auto inexact = [](const comparison& c) {
        return c.finite_pairs ? 1.0 - static_cast<double>(c.ulps_equal) / static_cast<double>(c.finite_pairs) : 0.0;
      };
      oracle_result o{inexact(reference_side), inexact(optimized_side), reference_side.max_ulps, optimized_side.max_ulps, 0.0};
      o.allowed_inexact = ratio * o.reference_inexact + 0.001;
      check.results.push_back(o);
      if (o.optimized_inexact > o.allowed_inexact) {
        check.found.push_back(
            {finding_kind::accuracy_loss,
             fmt::format("output '{}' is less accurate than the reference against the oracle (fp64 on the host): {:.3g}% "
                         "of its elements are not the correctly rounded value (worst {} apart), against the reference's "
                         "{:.3g}% (worst {}); at most {:.3g}% allowed ({}x the reference's + 0.1%)",
                         slot.name, 100 * o.optimized_inexact, o.optimized_max_ulps, 100 * o.reference_inexact,
                         o.reference_max_ulps, 100 * o.allowed_inexact, ratio)});
      }
    }
    return check;
  }

  const case_layout& layout_;
  case_devices& devices_;
  case_buffers& buffers_;
  case_launcher& launcher_;
  output_comparator& comparator_;
  host_computation& host_;
  device_loads& loads_;
};

}  // namespace detail
}  // namespace kbench
