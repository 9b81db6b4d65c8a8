// kbench/procedure/relocated_runs.hpp: the optimized kernel launched on input set 0 placed at addresses a
// check chooses, and its outputs compared with the reference's: what the runs with buffers off their
// alignment (alignment_check.hpp) and the runs with a buffer against unmapped memory (bounds_check.hpp)
// share. It holds memory of its own for every buffer, with room to move it, and aligned memory to compare
// an output from where it was written elsewhere (the device comparison reads 16 bytes at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../contract/device_buffer.hpp"
#include "../contract/hip_check.hpp"
#include "../detail/entropy.hpp"
#include "../engines/comparison.hpp"
#include "../engines/integrity.hpp"
#include "../results/results.hpp"
#include "case_buffers.hpp"
#include "output_comparator.hpp"
#include "sealed_outputs.hpp"

namespace kbench {
namespace detail {

// The optimized side's first outputs on input set 0, as a later run on the same inputs can know them again:
// each one's fingerprint under a key drawn for this run (engines/integrity.hpp), and its comparison with the
// reference. A run on set 0 whose output has the same fingerprint wrote the same bits, which compare the same,
// so it needs no comparison of its own (with a host reference, a copy to the host and a pass over every
// element there). An output whose bytes end inside a word has no fingerprint (a word would take in what lies
// after it): it is always compared.
struct first_outputs {
  std::uint64_t key = 0;
  std::vector<std::optional<std::uint64_t>> fingerprints;  // by output
  std::vector<comparison> compared;                        // by output
};

// The optimized side's outputs as they stand in its buffers, with `compared`, their comparisons just made.
[[nodiscard]] inline first_outputs fingerprint_first(const case_layout& layout, const case_devices& devices,
                                                     const case_buffers& buffers, const std::vector<output_result>& compared) {
  first_outputs first{entropy_word(), {}, {}};
  for (std::size_t k = 0; k < layout.output_count(); ++k) {
    const buffer_slot& slot = layout.output_slot(k);
    first.compared.push_back(compared[k].result);
    std::optional<std::uint64_t>& fingerprint = first.fingerprints.emplace_back();
    if (slot.storage_bytes() % 4 != 0) continue;
    const current_device here = devices.on(slot);
    fingerprint = fingerprint_of(buffers.output_data(side::optimized, k), slot.storage_bytes(), first.key,
                                 devices.stream_of(slot));
  }
  return first;
}

class relocated_runs {
 public:
  // Memory of its own for every buffer: its bytes and `room` more.
  relocated_runs(const case_layout& layout, const case_devices& devices, const case_buffers& buffers,
                 case_launcher& launcher, output_comparator& comparator, const first_outputs& first, std::size_t room)
      : layout_(layout), devices_(devices), buffers_(buffers), launcher_(launcher), comparator_(comparator), first_(first),
        sealed_(layout, devices) {
    for (std::size_t k = 0; k < layout_.input_count(); ++k) {
      const current_device here = devices_.on(layout_.input_slot(k));
      inputs_.emplace_back(layout_.input_slot(k).storage_bytes() + room);
    }
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      const current_device here = devices_.on(layout_.output_slot(k));
      outputs_.emplace_back(layout_.output_slot(k).storage_bytes() + room);
    }
    aligned_.resize(layout_.output_count());
  }

  // The memory of input k, and of output k (each allocation's start is 256-byte aligned).
  [[nodiscard]] unsigned char* input_memory(std::size_t k) const { return static_cast<unsigned char*>(inputs_[k].data()); }
  [[nodiscard]] unsigned char* output_memory(std::size_t k) const { return static_cast<unsigned char*>(outputs_[k].data()); }

  // Input set 0 placed at `inputs` and `outputs` (declaration order), the optimized kernel launched on them
  // and waited for, and each output's comparison with the reference. A launch that fails throws hip_error:
  // `failed`, then the launch's own message; a write into the sealed outputs, kbench's error naming the run
  // by `where` ("with buffers moved 2 bytes off ..."). The reference's outputs stay sealed from one run to
  // the next, checked after each (unsealed only for a comparison that needs them, and by unseal()).
  [[nodiscard]] std::vector<comparison> run_at(const std::vector<void*>& inputs, const std::vector<void*>& outputs,
                                               const std::string& where, const std::string& failed) {
    place_first_input_set(inputs, outputs);
    if (!sealed_.sealed()) sealed_.seal_reference(buffers_);  // the reference's outputs of these inputs exist: out of reach
    try {
      launcher_.launch_at(side::optimized, inputs, outputs);
      devices_.synchronize_devices();
    } catch (const hip_error& e) {
      throw hip_error(e.code(), failed + ": " + e.what());
    }
    where_ = "while it ran " + where;
    sealed_.check_intact(where_);
    std::vector<comparison> compared;
    for (std::size_t k = 0; k < outputs.size(); ++k) compared.push_back(compare(k, aligned(k, outputs[k])));
    return compared;
  }

  // The reference's outputs back, once the last run is done (an error, as in run_at, for a write into them).
  void unseal() {
    if (sealed_.sealed()) sealed_.unseal(where_);
  }

 private:
  // Input set 0 as a launch starts from it: each input's values, each output's (in-place buffers' drawn
  // values, poison for the others); waits.
  void place_first_input_set(const std::vector<void*>& inputs, const std::vector<void*>& outputs) const {
    const input_set_view first = buffers_.first_input_set();
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const buffer_slot& slot = layout_.input_slot(k);
      const current_device here = devices_.on(slot);
      KBENCH_HIP_CHECK(hipMemcpyAsync(inputs[k], first.inputs[k], slot.storage_bytes(), hipMemcpyDeviceToDevice,
                                      devices_.stream_of(slot)));
    }
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const buffer_slot& slot = layout_.output_slot(k);
      const current_device here = devices_.on(slot);
      if (layout_.in_place(k)) {
        KBENCH_HIP_CHECK(hipMemcpyAsync(outputs[k], first.starts[k], slot.storage_bytes(), hipMemcpyDeviceToDevice,
                                        devices_.stream_of(slot)));
      } else {
        poison(outputs[k], slot.type, slot.storage(), devices_.stream_of(slot));
      }
    }
    devices_.synchronize();  // whatever stream the kernel uses
  }

  // Output k at `written` (16-byte aligned) against the reference's: the first run's comparison where the bits
  // are the first run's (the same fingerprint), else its own.
  [[nodiscard]] comparison compare(std::size_t k, const void* written) {
    if (k < first_.fingerprints.size() && first_.fingerprints[k]) {
      const buffer_slot& slot = layout_.output_slot(k);
      const current_device here = devices_.on(slot);
      const std::uint64_t fingerprint = fingerprint_of(written, slot.storage_bytes(), first_.key, devices_.stream_of(slot));
      if (fingerprint == *first_.fingerprints[k]) return first_.compared[k];
    }
    unseal();  // sealed again by the next run
    return comparator_.against_reference(k, written);
  }

  // Output k where it was written, or, off a 16-byte boundary, a copy in aligned memory (waited for).
  [[nodiscard]] const void* aligned(std::size_t k, const void* written) {
    if (reinterpret_cast<std::uintptr_t>(written) % 16 == 0) return written;
    const buffer_slot& slot = layout_.output_slot(k);
    const current_device here = devices_.on(slot);
    if (!aligned_[k].data()) aligned_[k] = device_allocation(slot.storage_bytes());
    KBENCH_HIP_CHECK(hipMemcpyAsync(aligned_[k].data(), written, slot.storage_bytes(), hipMemcpyDeviceToDevice,
                                    devices_.stream_of(slot)));
    KBENCH_HIP_CHECK(hipStreamSynchronize(devices_.stream_of(slot)));
    return aligned_[k].data();
  }

  const case_layout& layout_;
  const case_devices& devices_;
  const case_buffers& buffers_;
  case_launcher& launcher_;
  output_comparator& comparator_;
  std::vector<device_allocation> inputs_, outputs_;
  const first_outputs& first_;
  std::vector<device_allocation> aligned_;  // by output, made when first needed
  sealed_outputs sealed_;  // the reference's outputs, sealed through the runs; its counters kept from one seal to the next
  std::string where_;      // the last run, as run_at's `where` names it
};

}  // namespace detail
}  // namespace kbench
