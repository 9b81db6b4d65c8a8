// kbench/procedure/case_buffers.hpp: the memory of one case at one shape: input set 0 of every input (the
// one every check runs on, with a pristine copy), each output's reference and optimized buffers inside
// guard regions, for in-place buffers the drawn values every run starts from, and the scratch
// (case_scratch.hpp).
//
// A case on its devices is split by job; each stage holds the pieces it needs:
//   case_layout        (contract/case_layout.hpp) which buffers, in what order: every look-up
//   case_devices       (case_devices.hpp) the GPUs and their streams
//   case_buffers       (here) allocation, drawing, poison, guards, snapshots, held copies
//   case_launcher      (case_launcher.hpp) binding the handles for one launch, launching, its error
//   timed_input_sets   (timed_input_sets.hpp) input sets 1.. of the timing run, redrawn and fingerprinted
//   output_comparator  (output_comparator.hpp) the expected values, and the comparison on host or device
//   host_computation   (host_computation.hpp) a host function (host reference, oracle) on an input set
//   device_loads, device_flushes (case_device_tools.hpp) the reruns' load, the other GPUs' cache flushes
// Only this class writes its buffers, through the verbs below. Their addresses leave it for reads only
// (the comparison engines, a host function's inputs, the misaligned runs' copies of input set 0), and for
// binding a launch (case_launcher).
//
// Every per-buffer operation runs on the buffer's own device, on that device's stream, then joins device
// 0's stream (case_devices.hpp), so that work queued there later comes after it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/case_layout.hpp"
#include "../contract/device_buffer.hpp"
#include "../engines/integrity.hpp"
#include "../results/outcome.hpp"
#include "buffer_values.hpp"
#include "case_devices.hpp"
#include "case_launcher.hpp"
#include "case_scratch.hpp"

namespace kbench {
namespace detail {

// Where one input set lives, for reading: each input's values and each output's starting values (null
// for an output that is not in place), in declaration order.
struct input_set_view {
  std::vector<const void*> inputs;
  std::vector<const void*> starts;
};

// One side's outputs held aside (whole words: the last reaches into the guard), to be matched bit for
// bit by later runs on the same inputs.
class held_outputs {
 public:
  held_outputs(side target, std::vector<device_allocation> copies) : side_(target), copies_(std::move(copies)) {}
  [[nodiscard]] side of() const { return side_; }
  [[nodiscard]] const device_allocation& at(std::size_t k) const { return copies_[k]; }

 private:
  side side_;
  std::vector<device_allocation> copies_;
};

// One input of a case: its set 0, with its pristine copy.
struct input_buffer {
  const buffer_slot* slot;
  checked_input memory;
  std::size_t stream_id;  // the random stream of this buffer: its position in the declaration
};
// One output: each side's guarded buffer and, in place, its starting values.
struct output_buffer {
  const buffer_slot* slot;
  guarded_output reference;
  guarded_output optimized;
  device_allocation initial;  // in-place buffers: the drawn values every run starts from
  std::size_t stream_id;
  [[nodiscard]] guarded_output& memory(side target) { return target == side::optimized ? optimized : reference; }
  [[nodiscard]] const guarded_output& memory(side target) const {
    return target == side::optimized ? optimized : reference;
  }
  [[nodiscard]] bool in_place() const { return slot->role == buffer_role::inout; }
};

class case_buffers {
 public:
  // Input set 0 and the outputs of the case laid out as `layout` says, each on its device of `devices`;
  // the scratch given to `launcher`.
  case_buffers(const case_layout& layout, case_devices& devices, case_launcher& launcher)
      : devices_(devices), launcher_(launcher), scratch_(layout, devices, launcher) {
    for (std::size_t k = 0; k < layout.input_count(); ++k) {
      const buffer_slot& slot = layout.input_slot(k);
      const current_device here = devices_.on(slot);
      inputs_.push_back({&slot, checked_input(slot.storage_bytes()), layout.input_stream_id(k)});
    }
    for (std::size_t k = 0; k < layout.output_count(); ++k) {
      const buffer_slot& slot = layout.output_slot(k);
      const current_device here = devices_.on(slot);
      const std::size_t bytes = slot.storage_bytes();
      outputs_.push_back({&slot, guarded_output(bytes), guarded_output(bytes),
                          device_allocation(layout.in_place(k) ? bytes : 0), layout.output_stream_id(k)});
    }
  }
  case_buffers(const case_buffers&) = delete;
  case_buffers& operator=(const case_buffers&) = delete;

  // ---- where the values are ----------------------------------------------------------------------------
  // The seed input set 0 was last drawn from.
  [[nodiscard]] std::uint64_t seed() const { return seed_; }
  // Output k of `target`, the drawn values in-place output k starts from, input set 0 as host code reads it.
  [[nodiscard]] void* output_data(side target, std::size_t k) const { return outputs_[k].memory(target).data(); }
  [[nodiscard]] const void* start_values(std::size_t k) const { return outputs_[k].initial.data(); }
  [[nodiscard]] input_set_view first_input_set() const {
    input_set_view view;
    for (const input_buffer& in : inputs_) view.inputs.push_back(in.memory.data());
    for (const output_buffer& out : outputs_) view.starts.push_back(out.in_place() ? out.initial.data() : nullptr);
    return view;
  }

  // ---- drawing and preparing -------------------------------------------------------------------------------
  // Input set 0 from `seed` (as edge run `edge` changes it): every input, snapshotted, and in-place starts.
  void draw(std::uint64_t seed, const edge_run* edge = nullptr) {
    seed_ = seed;
    for (input_buffer& in : inputs_) {
      const current_device here = devices_.on(*in.slot);
      draw_buffer(in.memory.data(), *in.slot, seed, in.stream_id, devices_.stream_of(*in.slot), edge_for(edge, *in.slot));
      in.memory.snapshot(devices_.stream_of(*in.slot));
    }
    for (output_buffer& out : outputs_) {
      const current_device here = devices_.on(*out.slot);
      const value_edge e = edge_for(edge, *out.slot);
      if (out.in_place()) draw_buffer(out.initial.data(), *out.slot, seed, out.stream_id, devices_.stream_of(*out.slot), e);
    }
    devices_.synchronize();
  }

  // In-place buffers of `target` get the drawn values of input set 0 back (outside any timed region).
  void restore_in_place(side target) {
    for (output_buffer& out : outputs_) {
      if (!out.in_place()) continue;
      const current_device here = devices_.on(*out.slot);
      KBENCH_HIP_CHECK(hipMemcpyAsync(out.memory(target).data(), out.initial.data(), out.memory(target).bytes(),
                                      hipMemcpyDeviceToDevice, devices_.stream_of(*out.slot)));
    }
    devices_.join();
  }

  // Poisons every output (and scratch) of `target`, re-arms guards, restores in-place buffers; waits, so
  // that a kernel working on another stream cannot race it (correctness runs are not timed).
  void prepare_outputs(side target) {
    for (output_buffer& out : outputs_) {
      const current_device here = devices_.on(*out.slot);
      out.memory(target).prepare(out.slot->type, out.slot->storage(), devices_.stream_of(*out.slot));
    }
    scratch_.prepare(target);
    restore_in_place(target);
    devices_.synchronize();
  }

  // Poisons output k of `target` on its stream, without waiting, guards left as they are (what they
  // caught stays visible).
  void poison_output(side target, std::size_t k) {
    output_buffer& out = outputs_[k];
    const current_device here = devices_.on(*out.slot);
    out.memory(target).poison_contents(out.slot->type, out.slot->storage(), devices_.stream_of(*out.slot));
  }

  // Every byte of output k of `target` set to `byte`, on its stream, without waiting.
  void fill_output(side target, std::size_t k, unsigned char byte) {
    const output_buffer& out = outputs_[k];
    const current_device here = devices_.on(*out.slot);
    KBENCH_HIP_CHECK(hipMemsetAsync(out.memory(target).data(), byte, out.memory(target).bytes(), devices_.stream_of(*out.slot)));
  }

  // Output k of `target` on the host (rows only), and packed values written back into it.
  [[nodiscard]] host_array read_output(side target, std::size_t k) const {
    const current_device here = devices_.on(*outputs_[k].slot);
    return read_values(outputs_[k].memory(target).data(), *outputs_[k].slot);
  }
  void write_output(side target, std::size_t k, const host_array& values) {
    const current_device here = devices_.on(*outputs_[k].slot);
    write_values(outputs_[k].memory(target).data(), *outputs_[k].slot, values);
  }

  // Output k of `target` copied to device memory of the caller's on its device, on its stream, unwaited.
  void copy_output(side target, std::size_t k, void* into) const {
    const output_buffer& out = outputs_[k];
    const current_device here = devices_.on(*out.slot);
    KBENCH_HIP_CHECK(hipMemcpyAsync(into, out.memory(target).data(), out.memory(target).bytes(), hipMemcpyDeviceToDevice,
                                    devices_.stream_of(*out.slot)));
  }

  // The outputs of `target` held aside, and how many words of output k differ from them now (with the
  // byte offset of the first).
  [[nodiscard]] held_outputs hold(side target) {
    std::vector<device_allocation> copies;
    for (output_buffer& out : outputs_) {
      const std::size_t bytes = (out.memory(target).bytes() + 3) / 4 * 4;
      const current_device here = devices_.on(*out.slot);
      copies.emplace_back(bytes);
      KBENCH_HIP_CHECK(hipMemcpyAsync(copies.back().data(), out.memory(target).data(), bytes, hipMemcpyDeviceToDevice,
                                      devices_.stream_of(*out.slot)));
    }
    devices_.synchronize();
    return {target, std::move(copies)};
  }
  [[nodiscard]] std::size_t differing_words(const held_outputs& held, std::size_t k, std::size_t& first) const {
    const output_buffer& out = outputs_[k];
    const current_device here = devices_.on(*out.slot);
    return count_differing_words(held.at(k).data(), out.memory(held.of()).data(), held.at(k).bytes(),
                                 devices_.stream_of(*out.slot), first);
  }

  // ---- launching ---------------------------------------------------------------------------------------
  // One launch of `target` on input set 0 and that side's outputs; checks the launch's error.
  void launch(side target) {
    launcher_.launch_on(target, [&](std::size_t k) { return inputs_[k].memory.data(); },
                        [&](std::size_t k) { return outputs_[k].memory(target).data(); });
  }

  // ---- integrity -------------------------------------------------------------------------------------
  // A finding for each output (and scratch) of `target` written outside its bounds since its guards were armed.
  [[nodiscard]] std::vector<finding> check_guards(side target, const std::string& context) const {
    std::vector<finding> found = scratch_.check_guards(target, context);
    for (const output_buffer& out : outputs_) {
      const current_device here = devices_.on(*out.slot);
      const std::string stray = out.memory(target).check_guards();
      if (!stray.empty()) found.push_back(stray_write(context, target, "output", out.slot->name, stray));
    }
    return found;
  }

  // A finding for each padded output of `target` (`skip_in_place`: its others only) whose padding a
  // launch wrote.
  [[nodiscard]] std::vector<finding> check_padding(side target, const std::string& context, bool skip_in_place) const {
    std::vector<finding> found;
    for (const output_buffer& out : outputs_) {
      if (skip_in_place && out.in_place()) continue;
      const current_device here = devices_.on(*out.slot);
      const std::string changed = padding_changes(out.memory(target).data(), *out.slot);
      if (!changed.empty()) {
        found.push_back({finding_kind::stray_write, fmt::format("{}the {} kernel wrote into the padding of output '{}': {}",
                                                                context, name_of(target), out.slot->name, changed)});
      }
    }
    return found;
  }

  // Findings for every input of set 0 that the `who` kernel changed; each is snapshotted again, so that
  // a change is reported once.
  [[nodiscard]] std::vector<finding> snapshot_modified_inputs(const char* who) {
    std::vector<finding> problems;
    for (input_buffer& in : inputs_) {
      std::size_t first = 0;
      const current_device here = devices_.on(*in.slot);
      const std::size_t changed = in.memory.changed_words(devices_.stream_of(*in.slot), first);
      if (changed) {
        problems.push_back({finding_kind::input_modified,
                            fmt::format("the {} kernel modified input '{}' ({} words changed, first at byte {}); inputs "
                                        "must be read-only",
                                        who, in.slot->name, changed, first)});
        in.memory.snapshot(devices_.stream_of(*in.slot));
        devices_.synchronize();
      }
    }
    return problems;
  }

  // The names of the inputs of set 0 that differ from their snapshot.
  [[nodiscard]] std::vector<std::string> modified_inputs() const {
    std::vector<std::string> names;
    for (const input_buffer& in : inputs_) {
      std::size_t first = 0;
      const current_device here = devices_.on(*in.slot);
      if (in.memory.changed_words(devices_.stream_of(*in.slot), first) != 0) names.push_back(in.slot->name);
    }
    return names;
  }

 private:
  case_devices& devices_;
  case_launcher& launcher_;
  case_scratch scratch_;
  std::uint64_t seed_ = 0;  // of input set 0
  std::vector<input_buffer> inputs_;
  std::vector<output_buffer> outputs_;
};

}  // namespace detail
}  // namespace kbench
