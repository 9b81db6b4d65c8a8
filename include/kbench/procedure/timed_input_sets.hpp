// kbench/procedure/timed_input_sets.hpp: the input sets of a timing run's timed launches (timing_run.hpp
// alone holds them, for the length of one run). Launch i of a sample reads input set i + 1: every input,
// and for in-place buffers their drawn values, which each launch works on in a copy of its own (one per
// launch and side, guarded). In batch mode every other output too has copies per side, which the launches
// of a sample write in turn (one per launch where they fit, timing_plan.hpp), so that a launch whose copy
// no later launch wrote can be checked against the reference's launch on the same set. Before every side
// of a sample the sets are written (drawn anew, or the same values again) and its outputs prepared alike
// (poison, or the drawn values), outside the timed region, and each input's fingerprint is added up as
// written and again after the launches: a launch that changed a timed input shows as two sums that differ.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../contract/device_buffer.hpp"
#include "../decisions/timing_plan.hpp"
#include "../engines/integrity.hpp"
#include "../engines/random.hpp"
#include "../results/outcome.hpp"
#include "case_buffers.hpp"
#include "device_work.hpp"

namespace kbench {
namespace detail {

// `count` copies of one buffer in one allocation, each at a stride of whole 256 bytes (every copy as
// aligned as an allocation), so that one kernel draws, fingerprints or restores them all.
class set_block {
 public:
  set_block() = default;
  set_block(std::size_t bytes, int count)
      : stride_((bytes + 255) / 256 * 256), count_(count), memory_(stride_ * static_cast<std::size_t>(count)) {}
  [[nodiscard]] void* at(int k) const {
    return static_cast<unsigned char*>(memory_.data()) + static_cast<std::size_t>(k) * stride_;
  }
  [[nodiscard]] void* data() const { return memory_.data(); }
  [[nodiscard]] std::size_t bytes() const { return memory_.bytes(); }
  [[nodiscard]] std::size_t stride() const { return stride_; }
  [[nodiscard]] int count() const { return count_; }

 private:
  std::size_t stride_ = 0;
  int count_ = 0;
  device_allocation memory_;
};

// The timed sets of one drawn buffer (an input, or an in-place output), or the per-launch copies of an
// output that is not in place (sets and positional values empty).
struct timed_buffer {
  set_block sets;    // its values in input sets 1..
  set_block positional;  // positional inputs: their values in every set, placed once per timing run
  device_buffer<unsigned long long> fingerprints;  // inputs: the sets' sums, as drawn and after
  guarded_output working_reference;                // outputs: one working copy per launch, per side, `stride`
  guarded_output working_optimized;                // apart (none: the launches write the case's own outputs)
  std::size_t stride = 0;
  int copies = 0;
  [[nodiscard]] guarded_output& working(side target) {
    return target == side::optimized ? working_optimized : working_reference;
  }
  [[nodiscard]] const guarded_output& working(side target) const {
    return target == side::optimized ? working_optimized : working_reference;
  }
};

class timed_input_sets {
 public:
  // Bytes of one input set: every input and every in-place buffer, each at a stride of whole 256 bytes.
  [[nodiscard]] static std::size_t bytes_per_set(const case_layout& layout) {
    std::size_t bytes = 0;
    for (std::size_t k = 0; k < layout.input_count(); ++k) bytes += stride_bytes(layout.input_slot(k));
    for (std::size_t k = 0; k < layout.output_count(); ++k) {
      bytes += layout.in_place(k) ? stride_bytes(layout.output_slot(k)) : 0;
    }
    return bytes;
  }

  // Bytes of `copies` working copies of each side of every output that is not in place.
  [[nodiscard]] static std::size_t bytes_of_output_copies(const case_layout& layout, int copies) {
    std::size_t bytes = 0;
    for (std::size_t k = 0; k < layout.output_count(); ++k) {
      if (!layout.in_place(k)) bytes += 2 * (stride_bytes(layout.output_slot(k)) * copies + 2 * guard_bytes);
    }
    return bytes;
  }

  // Batch mode's copies of the outputs (decisions/timing_plan.hpp): what one more copy adds, and what the
  // copies cost once (the guards).
  [[nodiscard]] static int plan_copies(const case_layout& layout, int launches, double l2_bytes, std::size_t left) {
    const std::size_t one = bytes_of_output_copies(layout, 1);
    const std::size_t each = bytes_of_output_copies(layout, 2) - one;
    return plan_output_copies(launches, each, one - each, l2_bytes, left);
  }

  // Input sets 1 .. count, the values of positional inputs in each (placed here), the in-place working
  // copies of both sides, and (`output_copies` > 1) that many working copies of every other output.
  timed_input_sets(const case_layout& layout, case_devices& devices, case_buffers& buffers, case_launcher& launcher,
                   int count, int output_copies)
      : layout_(layout), devices_(devices), buffers_(buffers), launcher_(launcher), inputs_(layout.input_count()),
        outputs_(layout.output_count()) {
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      const buffer_slot& slot = layout_.input_slot(k);
      const current_device here = devices_.on(slot);
      timed_buffer& in = inputs_[k];
      in.sets = set_block(slot.storage_bytes(), count);
      if (slot.init.positional()) in.positional = set_block(slot.storage_bytes(), count);
      in.fingerprints = device_buffer<unsigned long long>(2);
      KBENCH_HIP_CHECK(hipMemsetAsync(in.fingerprints.data(), 0, in.fingerprints.bytes(), devices_.stream_of(slot)));
    }
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      const buffer_slot& slot = layout_.output_slot(k);
      const current_device here = devices_.on(slot);
      timed_buffer& out = outputs_[k];
      if (layout_.in_place(k)) {
        out.sets = set_block(slot.storage_bytes(), count);
        if (slot.init.positional()) out.positional = set_block(slot.storage_bytes(), count);
      }
      out.copies = layout_.in_place(k) ? count : output_copies > 1 ? output_copies : 0;
      if (out.copies == 0) continue;
      out.stride = stride_bytes(slot);
      out.working_reference = guarded_output(out.stride * static_cast<std::size_t>(out.copies));
      out.working_optimized = guarded_output(out.stride * static_cast<std::size_t>(out.copies));
      for (const side target : {side::reference, side::optimized}) {
        out.working(target).prepare(dtype::u8, out.working(target).bytes(), devices_.stream_of(slot));  // arms the guards
      }
    }
    for_each_drawn([&](const buffer_slot& slot, std::size_t stream_id, timed_buffer& timed) {
      if (slot.init.positional()) place_positional(slot, stream_id, timed.positional);
    });
    devices_.join();
  }
  timed_input_sets(const timed_input_sets&) = delete;
  timed_input_sets& operator=(const timed_input_sets&) = delete;

  // Every input set drawn anew, outside any timed region, so that no timed launch reads inputs an earlier
  // launch has seen (draw > 0 numbers the draws; the same draw writes the same values again). Each set from
  // the generator, with a seed of the draw's own and the input's own random stream: no set is a rotation,
  // shift, reordering or part of another, so a kernel that recognises inputs it has seen in another
  // arrangement meets none (the sum of a rotated set is the old sum; a fresh set's is not). Positional
  // inputs (arange, from_index: their values belong to their indices) stay as placed once per run
  // (place_positional), copied back in case a launch wrote them. Each input's fingerprint as drawn is added
  // up on the device, to be matched by fingerprint_after_launches().
  void redraw(std::uint64_t draw) {
    for_each_drawn([&](const buffer_slot& slot, std::size_t stream_id, timed_buffer& timed) {
      const std::size_t elements = timed.sets.bytes() / info(slot.type).size;
      if (slot.init.positional()) {
        KBENCH_HIP_CHECK(hipMemcpyAsync(timed.sets.data(), timed.positional.data(), timed.sets.bytes(),
                                        hipMemcpyDeviceToDevice, devices_.stream_of(slot)));
      } else {
        fill_random(timed.sets.data(), slot.type, elements, slot.init, draw_seed(draw), stream_id, devices_.stream_of(slot));
      }
    });
    fingerprint_inputs(0);
  }

  // The fingerprints of the input sets after the launches that read them (never while timed).
  void fingerprint_after_launches() { fingerprint_inputs(1); }

  // The inputs that some timed launch changed: their fingerprints after the launches differ from those
  // as drawn.
  [[nodiscard]] std::vector<std::string> changed_inputs() const {
    std::vector<unsigned long long> sums(2 * inputs_.size());
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      const buffer_slot& slot = layout_.input_slot(k);
      const current_device here = devices_.on(slot);
      KBENCH_HIP_CHECK(hipMemcpyAsync(sums.data() + 2 * k, inputs_[k].fingerprints.data(), inputs_[k].fingerprints.bytes(),
                                      hipMemcpyDeviceToHost, devices_.stream_of(slot)));
    }
    devices_.synchronize();
    std::vector<std::string> changed;
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      if (sums[2 * k] != sums[2 * k + 1]) changed.push_back(layout_.input_slot(k).name);
    }
    return changed;
  }

  // The outputs of `target` for the first `launches` launches of a sample, prepared alike before every
  // sample (outside any timed region): in-place working copies get their input sets' drawn values, every
  // other output the poison (its working copies, or the case's own output).
  void prepare_outputs(side target, int launches) { prepare(target, launches, true); }
  // The in-place working copies alone (the reference's in a sample: nothing reads its other outputs
  // before it writes them).
  void restore_in_place(side target, int launches) { prepare(target, launches, false); }

  // Launch `launch` of a timed sample of `target`: input set launch + 1, and for in-place buffers that
  // launch's working copy.
  void launch(side target, int launch) {
    launcher_.launch_on(target, [&](std::size_t k) { return inputs_[k].sets.at(launch); },
                                  [&](std::size_t k) { return output_of(target, k, launch); });
  }

  // Where launch `launch` of a sample of `target` writes output k: its copy, launch mod copies.
  [[nodiscard]] void* output_of(side target, std::size_t k, int launch) {
    if (outputs_[k].copies == 0) return buffers_.output_data(target, k);
    return static_cast<unsigned char*>(outputs_[k].working(target).data()) +
           static_cast<std::size_t>(launch % outputs_[k].copies) * outputs_[k].stride;
  }
  // Whether output k of a launch is a working copy (else the case's own output).
  [[nodiscard]] bool in_copy(std::size_t k) const { return outputs_[k].copies > 0; }

  // Where the input set of launch `launch` lives, for a host function to read.
  [[nodiscard]] input_set_view input_set(int launch) const {
    input_set_view view;
    for (const timed_buffer& in : inputs_) view.inputs.push_back(in.sets.at(launch));
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      view.starts.push_back(layout_.in_place(k) ? outputs_[k].sets.at(launch) : nullptr);
    }
    return view;
  }

  // A finding for each output whose working copies of `target` a launch wrote outside of.
  [[nodiscard]] std::vector<finding> check_working_guards(side target, const std::string& context) const {
    std::vector<finding> found;
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (outputs_[k].copies == 0) continue;
      const buffer_slot& slot = layout_.output_slot(k);
      const current_device here = devices_.on(slot);
      const std::string stray = outputs_[k].working(target).check_guards();
      if (stray.empty()) continue;
      found.push_back(stray_write(context, target,
                                  layout_.in_place(k) ? "the timed copies of in-place buffer" : "the timed copies of output",
                                  slot.name, stray));
    }
    return found;
  }

 private:
  [[nodiscard]] static std::size_t stride_bytes(const buffer_slot& slot) { return (slot.storage_bytes() + 255) / 256 * 256; }

  // The values of a positional input (arange, from_index) in every set of `block`, each laid out as input
  // set 0 is (element i of the rows at its place, the padding poisoned): drawn as one array across the
  // sets, set k would start at index k times the set's length, and the padding would hold values too. A
  // position beyond the input, or an index past the end of a table, is no value the case declared.
  // Drawn once per timing run with a seed of its own, and then kept: evaluating a function of the index
  // on the host again before every sample would cost a host pass and a copy per sample. The other inputs
  // are drawn anew for every sample.
  void place_positional(const buffer_slot& slot, std::size_t stream_id, set_block& block) {
    const hipStream_t stream = devices_.stream_of(slot);
    draw_buffer(block.at(0), slot, draw_seed(~0ull), stream_id, stream);
    for (int k = 1; k < block.count(); ++k) {
      KBENCH_HIP_CHECK(hipMemcpyAsync(block.at(k), block.at(0), slot.storage_bytes(), hipMemcpyDeviceToDevice, stream));
    }
  }
  [[nodiscard]] std::uint64_t draw_seed(std::uint64_t draw) const {
    return buffers_.seed() + 0x9E3779B97F4A7C15ull * draw;
  }

  // f(slot, random stream id, timed buffer) for every buffer whose values kbench draws, each on the
  // buffer's device; device 0's stream joins them after.
  template <class F>
  void for_each_drawn(F&& f) {
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      const current_device here = devices_.on(layout_.input_slot(k));
      f(layout_.input_slot(k), layout_.input_stream_id(k), inputs_[k]);
    }
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (!layout_.in_place(k)) continue;
      const current_device here = devices_.on(layout_.output_slot(k));
      f(layout_.output_slot(k), layout_.output_stream_id(k), outputs_[k]);
    }
    devices_.join();
  }

  // prepare_outputs, or (`poison_others` false) restore_in_place.
  void prepare(side target, int launches, bool poison_others) {
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      const buffer_slot& slot = layout_.output_slot(k);
      timed_buffer& out = outputs_[k];
      if (!layout_.in_place(k) && !poison_others) continue;
      if (out.copies == 0) {
        buffers_.poison_output(target, k);
        continue;
      }
      const current_device here = devices_.on(slot);
      const std::size_t bytes = out.stride * static_cast<std::size_t>(std::min(launches, out.copies));
      if (layout_.in_place(k)) {
        KBENCH_HIP_CHECK(hipMemcpyAsync(out.working(target).data(), out.sets.data(), bytes, hipMemcpyDeviceToDevice,
                                        devices_.stream_of(slot)));
      } else {
        poison(out.working(target).data(), slot.type, bytes / info(slot.type).size, devices_.stream_of(slot));
      }
    }
    devices_.join();
  }

  // Each input's fingerprint over its timed sets, added to its sum `which` (0: as drawn, 1: after).
  void fingerprint_inputs(int which) {
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      const buffer_slot& slot = layout_.input_slot(k);
      const current_device here = devices_.on(slot);
      add_fingerprint(inputs_[k].sets.data(), inputs_[k].sets.bytes(), inputs_[k].fingerprints.data() + which,
                      devices_.stream_of(slot));
    }
    devices_.join();
  }

  const case_layout& layout_;
  case_devices& devices_;
  case_buffers& buffers_;
  case_launcher& launcher_;
  std::vector<timed_buffer> inputs_;   // per input
  std::vector<timed_buffer> outputs_;  // per output; empty unless in place
};

}  // namespace detail
}  // namespace kbench
