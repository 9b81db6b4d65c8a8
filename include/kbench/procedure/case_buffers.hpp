// kbench/procedure/case_buffers.hpp: the buffer set of one case at one shape: its GPUs, input set 0 of
// every input (the one every check runs on, with a pristine copy), each output's reference and optimized
// buffers inside guard regions, and for in-place buffers the drawn values every run starts from.
//
// Scratch buffers (kernel_case::scratch) are each side's, poisoned and guarded like outputs, never compared;
// the launcher binds them to every launch of their side.
//
// The memory of a case is split by job; each stage holds the two or three pieces it needs:
//   case_buffers       (here) allocation, drawing, poison, guards, snapshots
//   case_launcher      (case_launcher.hpp) binding the handles for one launch, launching, its error
//   timed_input_sets   (timed_input_sets.hpp) input sets 1.. of the timing run, redrawn and fingerprinted
//   output_comparator  (output_comparator.hpp) the expected values, and the comparison on host or device
//   host_computation   (host_computation.hpp) a host function (host reference, oracle) on an input set
//   device_loads, device_flushes (case_device_tools.hpp) the reruns' load, the other GPUs' cache flushes
// Only this class writes its buffers or copies from them, through the verbs below. Their addresses leave
// it for two uses only: binding a launch (case_launcher) and reads by the comparison engines.
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

#include "../contract/device_buffer.hpp"
#include "../contract/kernel_case.hpp"
#include "../engines/integrity.hpp"
#include "../results/outcome.hpp"
#include "buffer_values.hpp"
#include "case_devices.hpp"
#include "case_launcher.hpp"

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

// One input of a case: its set 0 and where its random values come from.
struct input_buffer {
  buffer_slot* slot;
  checked_input memory;   // input set 0, with its pristine copy
  std::size_t stream_id;  // the random stream of this buffer: its position in the declaration
};
// The scratch memory of a case (kernel_case::scratch): each side's, poisoned and guarded like an output,
// never compared; the launcher binds it to every launch of its side.
class case_scratch {
 public:
  // Every scratch buffer the case declares, allocated on its device; each side's memory given to the
  // launcher once (it stays the same for every launch).
  case_scratch(const declared_case& declaration, case_devices& devices, case_launcher& launcher) : devices_(devices) {
    for (const auto& slot : declaration.buffers) {
      if (slot->role != buffer_role::scratch) continue;
      const current_device here = devices_.on(slot->device_index);
      if (slot->bytes_query) {  // the library's query, on the case's device, before any launch
        slot->size = std::max<std::size_t>(1, slot->bytes_query());
        slot->extents = {slot->size};
      }
      buffers_.push_back({slot.get(), guarded_output(slot->storage_bytes()), guarded_output(slot->storage_bytes())});
    }
    for (const side target : {side::reference, side::optimized}) {
      std::vector<void*> memory;
      for (const buffer& b : buffers_) memory.push_back(b.memory(target).data());
      launcher.place_scratch(target, std::move(memory));
    }
  }
  // Poisons the scratch of `target` and re-arms its guards, on each buffer's stream, without waiting.
  void prepare(side target) {
    for (buffer& b : buffers_) {
      const current_device here = devices_.on(b.slot->device_index);
      b.memory(target).prepare(b.slot->type, b.slot->storage(), devices_.stream(b.slot->device_index));
    }
  }
  // A finding for each scratch buffer of `target` written outside its bounds since its guards were armed.
  void check_guards(side target, const std::string& context, std::vector<finding>& found) const {
    for (const buffer& b : buffers_) {
      const current_device here = devices_.on(b.slot->device_index);
      const std::string stray = b.memory(target).check_guards();
      if (!stray.empty()) {
        found.push_back({finding_kind::stray_write, fmt::format("{}the {} kernel wrote outside scratch '{}': {}", context,
                                                                name_of(target), b.slot->name, stray)});
      }
    }
  }

 private:
  struct buffer {
    buffer_slot* slot;
    guarded_output reference, optimized;
    [[nodiscard]] guarded_output& memory(side target) { return target == side::optimized ? optimized : reference; }
    [[nodiscard]] const guarded_output& memory(side target) const {
      return target == side::optimized ? optimized : reference;
    }
  };
  case_devices& devices_;
  std::vector<buffer> buffers_;
};
// One output: each side's guarded buffer and, in place, its starting values.
struct output_buffer {
  buffer_slot* slot;
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
  // The case on its GPUs (choose_devices: `options`' device for a case of one; null options: device 0
  // first). Throws skipped_case when the machine shows fewer GPUs than the case spans.
  case_buffers(const declared_case& declaration, const run_options* options)
      : case_(declaration), devices_(choose_devices(declaration.device_count(), options)) {
    if (case_.requires_peer_access && !devices_.peer_access()) {
      throw skipped_case("the case requires peer access between its GPUs, and " + devices_.missing_peer_access());
    }
    const auto& buffers = case_.buffers;
    for (std::size_t id = 0; id < buffers.size(); ++id) {
      buffer_slot* slot = buffers[id].get();
      if (slot->role == buffer_role::scratch) continue;  // scratch_'s
      const current_device here = on(*slot);
      const std::size_t bytes = slot->storage_bytes();
      if (slot->role == buffer_role::input) {
        inputs_.push_back({slot, checked_input(bytes), id});
      } else {
        outputs_.push_back({slot, guarded_output(bytes), guarded_output(bytes),
                            device_allocation(slot->role == buffer_role::inout ? bytes : 0), id});
      }
    }
  }
  case_buffers(const case_buffers&) = delete;
  case_buffers& operator=(const case_buffers&) = delete;

  // ---- the case and its devices ------------------------------------------------------------------------
  [[nodiscard]] const declared_case& declaration() const { return case_; }
  [[nodiscard]] bool has_device_reference() const { return case_.has_device_reference(); }
  // The case's stream (device 0's): every timing event is recorded on it.
  [[nodiscard]] hipStream_t stream() const { return devices_.stream(0); }
  // The stream of the device a buffer lives on, and that device made current (device 0 again after).
  [[nodiscard]] hipStream_t stream_of(const buffer_slot& slot) const { return devices_.stream(slot.device_index); }
  [[nodiscard]] current_device on(const buffer_slot& slot) const { return devices_.on(slot.device_index); }
  [[nodiscard]] case_devices& devices() { return devices_; }
  [[nodiscard]] const case_devices& devices() const { return devices_; }
  // Waits for every stream of the case; synchronize_devices() for all work on its devices.
  void synchronize() const { devices_.synchronize(); }
  void synchronize_devices() const { devices_.synchronize_devices(); }
  // ---- the buffers, by position among the inputs or the outputs ------------------------------------------
  [[nodiscard]] std::size_t input_count() const { return inputs_.size(); }
  [[nodiscard]] std::size_t output_count() const { return outputs_.size(); }
  [[nodiscard]] const buffer_slot& input_slot(std::size_t k) const { return *inputs_[k].slot; }
  [[nodiscard]] const buffer_slot& output_slot(std::size_t k) const { return *outputs_[k].slot; }
  [[nodiscard]] bool in_place(std::size_t k) const { return outputs_[k].slot->role == buffer_role::inout; }
  // The random stream of a buffer: its position in the declaration.
  [[nodiscard]] std::size_t input_stream_id(std::size_t k) const { return inputs_[k].stream_id; }
  [[nodiscard]] std::size_t output_stream_id(std::size_t k) const { return outputs_[k].stream_id; }
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
      const current_device here = on(*in.slot);
      draw_buffer(in.memory.data(), *in.slot, seed, in.stream_id, stream_of(*in.slot), edge_for(edge, *in.slot));
      in.memory.snapshot(stream_of(*in.slot));
    }
    for (output_buffer& out : outputs_) {
      const current_device here = on(*out.slot);
      const value_edge e = edge_for(edge, *out.slot);
      if (out.in_place()) draw_buffer(out.initial.data(), *out.slot, seed, out.stream_id, stream_of(*out.slot), e);
    }
    synchronize();
  }

  // In-place buffers of `target` get the drawn values of input set 0 back (outside any timed region).
  void restore_in_place(side target) {
    for (output_buffer& out : outputs_) {
      if (!out.in_place()) continue;
      const current_device here = on(*out.slot);
      KBENCH_HIP_CHECK(hipMemcpyAsync(out.memory(target).data(), out.initial.data(), out.memory(target).bytes(),
                                      hipMemcpyDeviceToDevice, stream_of(*out.slot)));
    }
    devices_.join();
  }

  // Poisons every output (and scratch) of `target`, re-arms guards, restores in-place buffers; waits, so
  // that a kernel working on another stream cannot race it (correctness runs are not timed).
  void prepare_outputs(side target) {
    for (output_buffer& out : outputs_) {
      const current_device here = on(*out.slot);
      out.memory(target).prepare(out.slot->type, out.slot->storage(), stream_of(*out.slot));
    }
    scratch_.prepare(target);
    restore_in_place(target);
    synchronize();
  }

  // Poisons output k of `target` on its stream, without waiting, guards left as they are (what they
  // caught stays visible).
  void poison_output(side target, std::size_t k) {
    output_buffer& out = outputs_[k];
    const current_device here = on(*out.slot);
    out.memory(target).poison_contents(out.slot->type, out.slot->storage(), stream_of(*out.slot));
  }

  // Every byte of output k of `target` set to `byte`, on its stream, without waiting.
  void fill_output(side target, std::size_t k, unsigned char byte) {
    const output_buffer& out = outputs_[k];
    const current_device here = on(*out.slot);
    KBENCH_HIP_CHECK(hipMemsetAsync(out.memory(target).data(), byte, out.memory(target).bytes(), stream_of(*out.slot)));
  }

  // Output k of `target` on the host (rows only), and packed values written back into it.
  [[nodiscard]] host_array read_output(side target, std::size_t k) const {
    const current_device here = on(*outputs_[k].slot);
    return read_values(outputs_[k].memory(target).data(), *outputs_[k].slot);
  }
  void write_output(side target, std::size_t k, const host_array& values) {
    const current_device here = on(*outputs_[k].slot);
    write_values(outputs_[k].memory(target).data(), *outputs_[k].slot, values);
  }

  // Output k of `target` copied to device memory of the caller's on its device, on its stream, unwaited.
  void copy_output(side target, std::size_t k, void* into) const {
    const output_buffer& out = outputs_[k];
    const current_device here = on(*out.slot);
    KBENCH_HIP_CHECK(hipMemcpyAsync(into, out.memory(target).data(), out.memory(target).bytes(), hipMemcpyDeviceToDevice,
                                    stream_of(*out.slot)));
  }

  // The outputs of `target` held aside, and how many words of output k differ from them now (with the
  // byte offset of the first).
  [[nodiscard]] held_outputs hold(side target) {
    std::vector<device_allocation> copies;
    for (output_buffer& out : outputs_) {
      const std::size_t bytes = (out.memory(target).bytes() + 3) / 4 * 4;
      const current_device here = on(*out.slot);
      copies.emplace_back(bytes);
      KBENCH_HIP_CHECK(hipMemcpyAsync(copies.back().data(), out.memory(target).data(), bytes, hipMemcpyDeviceToDevice,
                                      stream_of(*out.slot)));
    }
    synchronize();
    return {target, std::move(copies)};
  }
  [[nodiscard]] std::size_t differing_words(const held_outputs& held, std::size_t k, std::size_t& first) const {
    const output_buffer& out = outputs_[k];
    const current_device here = on(*out.slot);
    return count_differing_words(held.at(k).data(), out.memory(held.of()).data(), held.at(k).bytes(),
                                 stream_of(*out.slot), first);
  }

  // Input set 0 placed in memory of the caller's, as a launch starts from it: each input's values at
  // `inputs`, each output's at `outputs` (in-place buffers' drawn values, poison for the others); waits.
  void place_first_input_set_at(const std::vector<void*>& inputs, const std::vector<void*>& outputs) {
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      const current_device here = on(*inputs_[k].slot);
      KBENCH_HIP_CHECK(hipMemcpyAsync(inputs[k], inputs_[k].memory.data(), inputs_[k].slot->storage_bytes(),
                                      hipMemcpyDeviceToDevice, stream_of(*inputs_[k].slot)));
    }
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      const output_buffer& out = outputs_[k];
      const current_device here = on(*out.slot);
      if (out.in_place()) {
        KBENCH_HIP_CHECK(hipMemcpyAsync(outputs[k], out.initial.data(), out.optimized.bytes(), hipMemcpyDeviceToDevice,
                                        stream_of(*out.slot)));
      } else {
        poison(outputs[k], out.slot->type, out.slot->storage(), stream_of(*out.slot));
      }
    }
    synchronize();  // whatever stream the kernel uses
  }

  // ---- launching ---------------------------------------------------------------------------------------
  // One launch of `target` on input set 0 and that side's outputs; checks the launch's error.
  void launch(side target) {
    launcher_.launch_on(target, [&](std::size_t k) { return inputs_[k].memory.data(); },
                        [&](std::size_t k) { return outputs_[k].memory(target).data(); });
  }
  // Launches on memory of others' (the timed input sets, moved buffers), and host functions.
  [[nodiscard]] case_launcher& launcher() { return launcher_; }

  // ---- integrity -------------------------------------------------------------------------------------
  // A finding for each output (and scratch) of `target` written outside its bounds since its guards were armed.
  void check_guards(side target, const std::string& context, std::vector<finding>& found) const {
    for (const output_buffer& out : outputs_) {
      const current_device here = on(*out.slot);
      const std::string stray = out.memory(target).check_guards();
      if (!stray.empty()) {
        found.push_back({finding_kind::stray_write, fmt::format("{}the {} kernel wrote outside output '{}': {}", context,
                                                                name_of(target), out.slot->name, stray)});
      }
    }
    scratch_.check_guards(target, context, found);
  }

  // A finding for each padded output of `target` (`skip_in_place`: its others only) whose padding a
  // launch wrote.
  void check_padding(side target, const std::string& context, std::vector<finding>& found, bool skip_in_place) const {
    for (const output_buffer& out : outputs_) {
      if (skip_in_place && out.in_place()) continue;
      const current_device here = on(*out.slot);
      const std::string changed = padding_changes(out.memory(target).data(), *out.slot);
      if (!changed.empty()) {
        found.push_back({finding_kind::stray_write, fmt::format("{}the {} kernel wrote into the padding of output '{}': {}",
                                                                context, name_of(target), out.slot->name, changed)});
      }
    }
  }

  // Findings for every input of set 0 that the `who` kernel changed; each is snapshotted again, so that
  // a change is reported once.
  void report_modified_inputs(const char* who, std::vector<finding>& problems) {
    for (input_buffer& in : inputs_) {
      std::size_t first = 0;
      const current_device here = on(*in.slot);
      const std::size_t changed = in.memory.changed_words(stream_of(*in.slot), first);
      if (changed) {
        problems.push_back({finding_kind::input_modified,
                            fmt::format("the {} kernel modified input '{}' ({} words changed, first at byte {}); inputs "
                                        "must be read-only",
                                        who, in.slot->name, changed, first)});
        in.memory.snapshot(stream_of(*in.slot));
        synchronize();
      }
    }
  }

  // The names of the inputs of set 0 that differ from their snapshot.
  [[nodiscard]] std::vector<std::string> modified_inputs() const {
    std::vector<std::string> names;
    for (const input_buffer& in : inputs_) {
      std::size_t first = 0;
      const current_device here = on(*in.slot);
      if (in.memory.changed_words(stream_of(*in.slot), first) != 0) names.push_back(in.slot->name);
    }
    return names;
  }

 private:
  const declared_case& case_;
  case_devices devices_;
  case_launcher launcher_{case_, devices_};
  std::uint64_t seed_ = 0;  // of input set 0
  std::vector<input_buffer> inputs_;
  std::vector<output_buffer> outputs_;
  case_scratch scratch_{case_, devices_, launcher_};
};

}  // namespace detail
}  // namespace kbench
