// kbench/detail/case_memory.hpp: the device memory of one case at one shape, and what is done to it
// between launches. Each input has set 0 (the one every check runs on, with a pristine copy) and, while
// timing, sets 1.. drawn from seeds that follow set 0's; each output has the reference's and the
// optimized kernel's own guarded buffers and, for in-place buffers, the drawn values every run starts
// from. Handles are bound to one side and one input set only for the length of a launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../comparison.hpp"
#include "../device_buffer.hpp"
#include "../device_compare.hpp"
#include "../integrity.hpp"
#include "../kernel_case.hpp"
#include "../outcome.hpp"
#include "../random.hpp"
#include "../timing.hpp"

namespace kbench {
namespace detail {

// A host array of any dtype, as raw bytes.
struct host_array {
  dtype type = dtype::f32;
  std::vector<unsigned char> bytes;
  [[nodiscard]] array_view view(std::size_t size, const std::vector<std::size_t>& extents) const {
    return {bytes.data(), type, size, extents};
  }
};

[[nodiscard]] inline host_array copy_to_host(const void* device, dtype type, std::size_t size) {
  host_array h{type, std::vector<unsigned char>(size * info(type).size)};
  KBENCH_HIP_CHECK(hipMemcpy(h.bytes.data(), device, h.bytes.size(), hipMemcpyDeviceToHost));
  return h;
}

// Which kernel a launch runs, and whose buffers it writes.
enum class side { reference, optimized };
[[nodiscard]] inline const char* name_of(side s) { return s == side::optimized ? "optimized" : "reference"; }

// The reference's values of one output on the host: a host reference's (fp64, the only copy), or a copy
// of a device reference's output, made on first need and dropped whenever the device copy changes.
class expected_values {
 public:
  // A device reference ran: what the host holds is stale.
  void device_changed() { valid_ = false; }
  // A host reference computed these.
  void set(host_array values) {
    values_ = std::move(values);
    valid_ = true;
  }
  [[nodiscard]] bool valid() const { return valid_; }
  // The values; copied from `device` first unless already held.
  const host_array& get(const void* device, dtype type, std::size_t size) {
    if (!valid_) set(copy_to_host(device, type, size));
    return values_;
  }
  [[nodiscard]] const host_array& held() const { return values_; }

 private:
  host_array values_;
  bool valid_ = false;
};

struct input_memory {
  buffer_slot* slot;
  checked_input memory;                     // input set 0, with its pristine copy
  std::size_t stream_id;                    // the random stream of this buffer: its position in the declaration
  std::vector<device_allocation> rotation;  // input sets 1.. while timing
  std::vector<std::uint64_t> fingerprints;  // of each of those, as drawn
};

struct output_memory {
  buffer_slot* slot;
  guarded_output reference;
  guarded_output optimized;
  expected_values expected;
  device_allocation initial;                // in-place buffers: the drawn values every run starts from
  std::size_t stream_id;
  std::vector<device_allocation> rotation;  // in-place buffers: their drawn values in input sets 1..
  guarded_output& memory(side target) { return target == side::optimized ? optimized : reference; }
  [[nodiscard]] bool in_place() const { return slot->role == buffer_role::inout; }
};

// Outputs of a device reference with at least this many elements are compared on the GPU.
inline constexpr std::size_t device_compare_threshold = std::size_t{1} << 20;

class case_memory {
 public:
  explicit case_memory(kernel_case& declaration) : case_(declaration) {
    const auto& buffers = case_.buffers();
    for (std::size_t id = 0; id < buffers.size(); ++id) {
      buffer_slot* slot = buffers[id].get();
      const std::size_t bytes = slot->size * info(slot->type).size;
      if (slot->role == buffer_role::input) {
        inputs_.push_back({slot, checked_input(bytes), id, {}, {}});
      } else {
        outputs_.push_back({slot, guarded_output(bytes), guarded_output(bytes), {},
                            device_allocation(slot->role == buffer_role::inout ? bytes : 0), id, {}});
      }
    }
  }
  case_memory(const case_memory&) = delete;
  case_memory& operator=(const case_memory&) = delete;

  [[nodiscard]] const kernel_case& declaration() const { return case_; }
  [[nodiscard]] bool has_device_reference() const { return static_cast<bool>(case_.device_reference()); }
  [[nodiscard]] hipStream_t stream() const { return stream_.get(); }
  void synchronize() const { stream_.synchronize(); }
  [[nodiscard]] std::vector<input_memory>& inputs() { return inputs_; }
  [[nodiscard]] std::vector<output_memory>& outputs() { return outputs_; }
  [[nodiscard]] const launch_function& launch_of(side target) const {
    return target == side::optimized ? case_.optimized_launch() : case_.device_reference();
  }

  // ---- drawing ---------------------------------------------------------------------------------------
  // Input set 0 from `seed`: every input (snapshotted) and the starting values of in-place buffers.
  void draw(std::uint64_t seed) {
    seed_ = seed;
    for (input_memory& in : inputs_) {
      fill_random(in.memory.data(), in.slot->type, in.slot->size, in.slot->init, seed, in.stream_id, stream());
      in.memory.snapshot(stream());
    }
    for (output_memory& out : outputs_) {
      if (out.in_place()) {
        fill_random(out.initial.data(), out.slot->type, out.slot->size, out.slot->init, seed, out.stream_id, stream());
      }
    }
    synchronize();
  }

  // Bytes of one input set: every input and every in-place buffer, in whole words.
  [[nodiscard]] std::size_t input_set_bytes() const {
    std::size_t bytes = 0;
    for (const input_memory& in : inputs_) bytes += word_bytes(*in.slot);
    for (const output_memory& out : outputs_) bytes += out.in_place() ? word_bytes(*out.slot) : 0;
    return bytes;
  }

  // Input sets 1 .. sets - 1, each from a seed that follows set 0's; inputs are fingerprinted as drawn.
  void draw_input_sets(int sets) {
    auto draw_one = [&](const buffer_slot& slot, std::size_t stream_id, std::uint64_t seed) {
      device_allocation memory(word_bytes(slot));
      KBENCH_HIP_CHECK(hipMemsetAsync(memory.data(), 0, memory.bytes(), stream()));  // the padding too
      fill_random(memory.data(), slot.type, slot.size, slot.init, seed, stream_id, stream());
      return memory;
    };
    for (int k = 1; k < sets; ++k) {
      const std::uint64_t seed = seed_ + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(k);
      for (input_memory& in : inputs_) in.rotation.push_back(draw_one(*in.slot, in.stream_id, seed));
      for (output_memory& out : outputs_) {
        if (out.in_place()) out.rotation.push_back(draw_one(*out.slot, out.stream_id, seed));
      }
    }
    for (input_memory& in : inputs_) {
      for (const device_allocation& set : in.rotation) in.fingerprints.push_back(fingerprint(set.data(), set.bytes(), stream()));
    }
  }

  void release_input_sets() {
    for (input_memory& in : inputs_) in.rotation.clear(), in.fingerprints.clear();
    for (output_memory& out : outputs_) out.rotation.clear();
  }

  // Where the values of an input, or the starting values of an in-place buffer, live in an input set.
  [[nodiscard]] static void* input_data(const input_memory& in, int set) {
    return set == 0 ? in.memory.data() : in.rotation[static_cast<std::size_t>(set - 1)].data();
  }
  [[nodiscard]] static void* initial_data(const output_memory& out, int set) {
    return set == 0 ? out.initial.data() : out.rotation[static_cast<std::size_t>(set - 1)].data();
  }

  // ---- launching ---------------------------------------------------------------------------------------
  // In-place buffers of `target` get the drawn values of an input set back (outside any timed region).
  void restore_in_place(side target, int set = 0) {
    for (output_memory& out : outputs_) {
      if (!out.in_place()) continue;
      KBENCH_HIP_CHECK(hipMemcpyAsync(out.memory(target).data(), initial_data(out, set), out.memory(target).bytes(),
                                      hipMemcpyDeviceToDevice, stream()));
    }
  }

  // Poisons every output of `target`, re-arms its guards, and restores its in-place buffers.
  void prepare_outputs(side target) {
    for (output_memory& out : outputs_) out.memory(target).prepare(out.slot->type, out.slot->size, stream());
    restore_in_place(target);
  }

  // Runs one launch of `target` on input set `set`, with every handle bound to that side's memory for
  // the length of the call, and checks the launch's error.
  void launch(side target, int set = 0) {
    bind(target, set);
    try {
      launch_of(target)(stream());
    } catch (...) {
      unbind();
      throw;
    }
    unbind();
    const hipError_t status = hipGetLastError();
    if (status != hipSuccess) {
      throw hip_error(status, fmt::format("the {} launch of '{}' failed: {} ({})", name_of(target), case_.name(),
                                          hipGetErrorName(status), hipGetErrorString(status)));
    }
  }

  // Host values bound to the handles for the length of a host reference.
  template <class Compute>
  void with_host_values(std::vector<std::vector<double>>& in_values, std::vector<std::vector<double>>& out_values,
                        Compute&& compute) {
    for (std::size_t k = 0; k < inputs_.size(); ++k) inputs_[k].slot->host = in_values[k].data();
    for (std::size_t k = 0; k < outputs_.size(); ++k) outputs_[k].slot->host = out_values[k].data();
    try {
      compute();
    } catch (...) {
      unbind();
      throw;
    }
    unbind();
  }

  // ---- integrity -------------------------------------------------------------------------------------
  // A finding for each output of `target` written outside its bounds since its guards were armed.
  void check_guards(side target, const std::string& context, std::vector<finding>& found) {
    for (output_memory& out : outputs_) {
      const std::string stray = out.memory(target).check_guards();
      if (!stray.empty()) {
        found.push_back({finding_kind::stray_write,
                         fmt::format("{}the {} kernel wrote outside output '{}': {}", context, name_of(target),
                                     out.slot->name, stray)});
      }
    }
  }

  // True when a launch changed input set `set` of `in` since it was drawn.
  [[nodiscard]] bool input_changed(const input_memory& in, int set) {
    if (set == 0) {
      std::size_t first = 0;
      return in.memory.changed_words(stream(), first) != 0;
    }
    const auto k = static_cast<std::size_t>(set - 1);
    return fingerprint(in.rotation[k].data(), in.rotation[k].bytes(), stream()) != in.fingerprints[k];
  }

  // ---- values ------------------------------------------------------------------------------------------
  [[nodiscard]] bool compared_on_device(const output_memory& out) const {
    return has_device_reference() && out.slot->size >= device_compare_threshold &&
           device_can_compare(case_.tolerance_of(*out.slot));
  }

  // The reference's values on the host, copied on first need.
  const host_array& expected_on_host(output_memory& out) {
    return out.expected.get(out.reference.data(), out.slot->type, out.slot->size);
  }

  // The optimized kernel's output against the reference's: on the GPU when large and clean; else, or
  // when the GPU found anything, with the host engine, which lists the first mismatches.
  [[nodiscard]] comparison compare_output(output_memory& out) {
    const buffer_slot& slot = *out.slot;
    const tolerance tol = case_.tolerance_of(slot);
    if (compared_on_device(out)) {
      device_comparison d = compare_on_device(out.optimized.data(), out.reference.data(), slot.type, slot.size,
                                              slot.extents, tol, stream());
      if (d.clean) return std::move(d.result);
    }
    const host_array actual = copy_to_host(out.optimized.data(), slot.type, slot.size);
    return compare(actual.view(slot.size, slot.extents), expected_on_host(out).view(slot.size, slot.extents), tol);
  }

 private:
  [[nodiscard]] static std::size_t word_bytes(const buffer_slot& slot) { return (slot.size * info(slot.type).size + 3) / 4 * 4; }

  // Points every handle at the memory of one side and one input set.
  void bind(side target, int set) {
    for (input_memory& in : inputs_) in.slot->device = input_data(in, set);
    for (output_memory& out : outputs_) out.slot->device = out.memory(target).data();
  }
  void unbind() {
    for (const auto& slot : case_.buffers()) {
      slot->device = nullptr;
      slot->host = nullptr;
    }
  }

  kernel_case& case_;
  kbench::stream stream_;
  std::uint64_t seed_ = 0;  // of input set 0
  std::vector<input_memory> inputs_;
  std::vector<output_memory> outputs_;
};

}  // namespace detail
}  // namespace kbench
