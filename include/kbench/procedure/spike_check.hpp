// kbench/procedure/spike_check.hpp: every element of every input must matter. With a case's first seed, at
// any size, both sides run again on inputs that differ from the declared ones in a few elements (spikes)
// or in their whole distribution (another family: decisions/edge_values.hpp chooses the runs), and their
// outputs must still agree: a reduction that reads every k-th element, or a value computed from the
// declared distribution instead of from the inputs, does not move where the reference's outputs move.
//
// A spike can be too small to move the reference beyond the tolerance (a mean over 10^8 elements): then
// its next size runs, and where none moves the reference's outputs, a note says that input was not shown to
// matter. The runs are judged as the edge runs are (edge_check.hpp), on the GPU where the output is large.
// Each run draws its inputs anew, so the optimized kernel always runs before the reference's outputs of
// them exist; at the end input set 0 and the reference's outputs are as declared again, put back from a
// copy.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../decisions/edge_values.hpp"
#include "../engines/comparison.hpp"
#include "../results/outcome.hpp"
#include "case_buffers.hpp"
#include "edge_check.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"

namespace kbench {
namespace detail {

// The reference's outputs as declared, kept while spike runs replace them: on the device for a device
// reference, on the host for a host one.
class declared_reference final : public declared_outputs {
 public:
  declared_reference(const case_layout& layout, const case_devices& devices, case_buffers& buffers,
                     output_comparator& comparator)
      : layout_(layout), devices_(devices), buffers_(buffers), comparator_(comparator) {
    if (layout.has_device_reference()) {
      held_.emplace(buffers.hold(side::reference));
      return;
    }
    for (std::size_t k = 0; k < layout.output_count(); ++k) host_.push_back(comparator.held_expected(k));
  }

  // The reference's outputs as declared back in place (the device reference's output buffers, or the host
  // reference's expected values), with input set 0 drawn as declared: as a rerun of the reference would
  // leave them, without its time (a host reference at a timed shape takes seconds).
  void restore(const case_devices& devices) {
    buffers_.draw(buffers_.seed());
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      if (!held_) {
        comparator_.set_expected(k, host_[k]);
        continue;
      }
      const buffer_slot& slot = layout_.output_slot(k);
      const current_device here = devices.on(slot);
      // The held copy is whole words, reaching into the guard: it puts back the guard's own bytes.
      KBENCH_HIP_CHECK(hipMemcpyAsync(buffers_.output_data(side::reference, k), held_->at(k).data(), held_->at(k).bytes(),
                                      hipMemcpyDeviceToDevice, devices.stream_of(slot)));
    }
    devices.synchronize();
    if (held_) comparator_.reference_ran();
  }

  // Output k as declared, on the host.
  [[nodiscard]] host_array on_host(std::size_t k) const override {
    if (!held_) return host_[k];
    const buffer_slot& slot = layout_.output_slot(k);
    const current_device here = devices_.on(slot);
    return read_values(held_->at(k).data(), slot);
  }

  // Whether the reference's outputs now differ from the declared ones by more than the tolerance, in any
  // output: the run's change to the inputs reached them.
  [[nodiscard]] bool moved() {
    compare_options quiet;
    quiet.mismatches_to_keep = 0;
    quiet.audit_signs = false;
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      const buffer_slot& slot = layout_.output_slot(k);
      if (held_) {
        // Found to differ is the common case here: the verdict alone, without the host's table of findings.
        if (!comparator_.within_tolerance_at(k, buffers_.output_data(side::reference, k), held_->at(k).data())) return true;
        continue;
      }
      const comparison c = compare_on_host(comparator_.held_expected(k).view(slot.size, slot.extents),
                                           host_[k].view(slot.size, slot.extents), layout_.tolerance_of_output(k), quiet);
      if (!c.passed) return true;
    }
    return false;
  }

 private:
  const case_layout& layout_;
  const case_devices& devices_;
  case_buffers& buffers_;
  output_comparator& comparator_;
  std::optional<held_outputs> held_;
  std::vector<host_array> host_;
};

// What the spike and family runs found, and how many ran.
struct spike_check_result {
  std::vector<finding> found;
  int runs = 0;
};

// Each candidate input's spike runs (up to the size that moves the reference's outputs beyond the tolerance;
// a note for an input none moves), then the family run; up to the first run that finds a problem. Then set
// 0 and the reference's outputs as declared again.
[[nodiscard]] inline spike_check_result check_inputs_matter(const case_layout& layout, const case_devices& devices,
                                                           case_buffers& buffers, output_comparator& comparator,
                                                           host_computation& host, const std::vector<double>& declared_rms) {
  spike_check_result result;
  const std::vector<edge_run> runs = spike_runs(drawn_slots(layout), layout.declaration().edge_values, buffers.seed());
  if (runs.empty()) return result;
  declared_reference declared(layout, devices, buffers, comparator);
  const buffer_slot* settled = nullptr;  // the input whose spikes moved the reference
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const edge_run& run = runs[r];
    if (run.kind == edge_kind::spikes && run.input == settled) continue;
    const std::vector<finding> found = run_at_edge(layout, devices, buffers, comparator, host, run, declared_rms,
                                                   run.kind == edge_kind::spikes ? &declared : nullptr);
    append(result.found, found);
    ++result.runs;
    if (any_failing(found)) break;
    if (run.kind != edge_kind::spikes) continue;
    if (declared.moved()) {
      settled = run.input;
    } else if (r + 1 == runs.size() || runs[r + 1].input != run.input) {
      result.found.push_back(
          {finding_kind::note,
           fmt::format("input '{}' was not shown to matter: spikes up to {:g} in {} of its elements did not move the "
                       "reference's outputs beyond the tolerance, so a kernel that leaves elements of it out would pass",
                       run.input->name, run.scale, std::min<std::size_t>(spike_count, run.input->size))});
    }
  }
  declared.restore(devices);
  return result;
}

}  // namespace detail
}  // namespace kbench
