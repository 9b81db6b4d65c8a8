// kbench/procedure/case_memory.hpp: the device memory of one case at one shape, and what is done to it
// between launches. Each input has set 0 (the one every check runs on, with a pristine copy) and, while
// timing, sets 1.. drawn anew before every sample; each output has the reference's and the optimized
// kernel's own guarded buffers and, for in-place buffers, the drawn values every run starts from (and,
// while timing, a working copy per launch). Handles are bound to one side and one input set only for the
// length of a launch; the correctness run's shake and the moved-buffer runs use this memory too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../contract/device_buffer.hpp"
#include "../contract/kernel_case.hpp"
#include "../engines/comparison.hpp"
#include "../engines/device_compare.hpp"
#include "../engines/integrity.hpp"
#include "../engines/measure.hpp"
#include "../engines/random.hpp"
#include "../engines/timing.hpp"
#include "../results/outcome.hpp"
#include "case_devices.hpp"
#include "device_work.hpp"
#include "host_transfer.hpp"

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

// The values of a buffer's rows on the host, packed (its padding left out, when it has padded rows).
[[nodiscard]] inline host_array read_values(const void* device, const buffer_slot& slot) {
  if (!slot.padded()) return copy_to_host(device, slot.type, slot.size);
  const std::size_t width = info(slot.type).size;
  host_array h{slot.type, std::vector<unsigned char>(slot.size * width)};
  KBENCH_HIP_CHECK(hipMemcpy2D(h.bytes.data(), slot.row() * width, device, slot.pitch * width, slot.row() * width,
                               slot.rows(), hipMemcpyDeviceToHost));
  return h;
}

// Packed values back into a buffer's rows (its padding untouched).
inline void write_values(void* device, const buffer_slot& slot, const host_array& values) {
  const std::size_t width = info(slot.type).size;
  if (!slot.padded()) {
    KBENCH_HIP_CHECK(hipMemcpy(device, values.bytes.data(), values.bytes.size(), hipMemcpyHostToDevice));
    return;
  }
  KBENCH_HIP_CHECK(hipMemcpy2D(device, slot.pitch * width, values.bytes.data(), slot.row() * width, slot.row() * width,
                               slot.rows(), hipMemcpyHostToDevice));
}

// A buffer's values drawn from the generator (element i of its rows is the same as without padding), its
// padding poisoned: a kernel that reads the padding as data computes with NaN.
inline void draw_buffer(void* device, const buffer_slot& slot, std::uint64_t seed, std::size_t stream_id,
                        hipStream_t stream) {
  if (!slot.padded()) {
    fill_random(device, slot.type, slot.size, slot.init, seed, stream_id, stream);
    return;
  }
  const std::size_t width = info(slot.type).size;
  const device_allocation rows(slot.size * width);
  fill_random(rows.data(), slot.type, slot.size, slot.init, seed, stream_id, stream);
  poison(device, slot.type, slot.storage(), stream);
  KBENCH_HIP_CHECK(hipMemcpy2DAsync(device, slot.pitch * width, rows.data(), slot.row() * width, slot.row() * width,
                                    slot.rows(), hipMemcpyDeviceToDevice, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));  // before `rows` is freed
}

// Where a padded buffer's padding no longer holds the poison: the number of changed elements, and the
// first as (row, column), in words; empty when intact or not padded.
[[nodiscard]] inline std::string padding_changes(const void* device, const buffer_slot& slot) {
  if (!slot.padded()) return {};
  const std::size_t width = info(slot.type).size, gap = slot.pitch - slot.row();
  std::vector<unsigned char> padding(slot.rows() * gap * width);
  KBENCH_HIP_CHECK(hipMemcpy2D(padding.data(), gap * width, static_cast<const unsigned char*>(device) + slot.row() * width,
                               slot.pitch * width, gap * width, slot.rows(), hipMemcpyDeviceToHost));
  const std::size_t elements = slot.rows() * gap;
  const std::size_t intact = count_poison(padding.data(), slot.type, elements);
  if (intact == elements) return {};
  std::size_t first = 0;
  const std::uint64_t pattern = poison_as<std::uint64_t>(slot.type);
  for (std::size_t i = 0; i < elements; ++i) {
    if (std::memcmp(padding.data() + i * width, &pattern, width) != 0) {
      first = i;
      break;
    }
  }
  return fmt::format("{} of the {} padding elements changed, first at row {}, column {} (rows are {} long, {} apart)",
                     elements - intact, elements, first / gap, slot.row() + first % gap, slot.row(), slot.pitch);
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
  // The values (packed: rows only); copied from `device` first unless already held.
  const host_array& get(const void* device, const buffer_slot& slot) {
    if (!valid_) set(read_values(device, slot));
    return values_;
  }
  [[nodiscard]] const host_array& held() const { return values_; }

 private:
  host_array values_;
  bool valid_ = false;
};

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

struct input_memory {
  buffer_slot* slot;
  device_buffer<unsigned long long> fingerprints;  // while timing: the timed sets' sums, as drawn and after
  checked_input memory;  // input set 0, with its pristine copy: the one every check runs on
  std::size_t stream_id; // the random stream of this buffer: its position in the declaration
  set_block timed;       // input sets 1.. while timing, redrawn before every sample
  set_block source;      // what the cheap redraws rearrange (drawn once per timing run)
};

struct output_memory {
  buffer_slot* slot;
  guarded_output reference;
  guarded_output optimized;
  expected_values expected;
  device_allocation initial;  // in-place buffers: the drawn values every run starts from
  std::size_t stream_id;
  set_block timed;            // in-place buffers: their drawn values in input sets 1..
  set_block source;           // what the cheap redraws rearrange
  // In-place buffers while timing: one working copy per launch of a sample, each starting from its input
  // set's drawn values (so every launch of a batch starts from drawn values too), at timed's stride.
  guarded_output working_reference;
  guarded_output working_optimized;
  guarded_output& memory(side target) { return target == side::optimized ? optimized : reference; }
  guarded_output& working(side target) { return target == side::optimized ? working_optimized : working_reference; }
  [[nodiscard]] bool in_place() const { return slot->role == buffer_role::inout; }
};

// Load for the correctness run's shake (case_memory::load_device): its own stream, a spinner calibrated
// on it, and the device's compute units (one per device of the case).
struct device_load {
  device_load() : spin(stream.get()) {
    int device = 0;
    KBENCH_HIP_CHECK(hipGetDevice(&device));
    KBENCH_HIP_CHECK(hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, device));
  }
  kbench::stream stream;
  spinner spin;
  int multiprocessors = 0;
};

// Outputs of a device reference with at least this many elements are compared on the GPU.
inline constexpr std::size_t device_compare_threshold = std::size_t{1} << 20;

// Every per-buffer operation below runs on the buffer's own device, on that device's stream, then joins
// device 0's stream (case_devices.hpp), so that work queued there later comes after it.
class case_memory {
 public:
  // The case on its GPUs (choose_devices: `options`' device for a case of one; null options: device 0
  // first). Throws skipped_case when the machine shows fewer GPUs than the case spans.
  case_memory(kernel_case& declaration, const run_options* options)
      : case_(declaration), devices_(choose_devices(declaration.device_count(), options)) {
    if (case_.needs_peer_access() && !devices_.peer_access()) {
      throw skipped_case("the case requires peer access between its GPUs, and " + devices_.missing_peer_access());
    }
    const auto& buffers = case_.buffers();
    for (std::size_t id = 0; id < buffers.size(); ++id) {
      buffer_slot* slot = buffers[id].get();
      const current_device here = on(*slot);
      const std::size_t bytes = slot->storage_bytes();
      if (slot->role == buffer_role::input) {
        inputs_.push_back({slot, {}, checked_input(bytes), id, {}, {}});
      } else {
        outputs_.push_back({slot, guarded_output(bytes), guarded_output(bytes), {},
                            device_allocation(slot->role == buffer_role::inout ? bytes : 0), id, {}, {}, {}, {}});
      }
    }
  }
  case_memory(const case_memory&) = delete;
  case_memory& operator=(const case_memory&) = delete;

  [[nodiscard]] const kernel_case& declaration() const { return case_; }
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
  [[nodiscard]] std::vector<input_memory>& inputs() { return inputs_; }
  [[nodiscard]] std::vector<output_memory>& outputs() { return outputs_; }

  // Before a timed region on the case's stream: `flush` there and, when the case spans devices, a flush
  // of each other GPU's caches on its own stream (made on first need), all joined, so that the region
  // starts once every device is cold and idle. Without a flush, only the join.
  void before_timed(const cache_flush* flush) {
    if (flush) flush->enqueue(stream());
    for (int d = 1; d < devices_.count(); ++d) {
      if (!flush || devices_.ordinal(d) == devices_.ordinal(0)) continue;
      const current_device here = devices_.on(d);
      if (other_flushes_.size() < static_cast<std::size_t>(d)) other_flushes_.resize(static_cast<std::size_t>(d));
      auto& mine = other_flushes_[static_cast<std::size_t>(d) - 1];
      if (!mine || mine->bytes() != flush->bytes()) {
        int units = 0;
        KBENCH_HIP_CHECK(hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, devices_.ordinal(d)));
        mine = std::make_unique<cache_flush>(flush->bytes(), std::max(units, 1));
      }
      mine->enqueue(devices_.stream(d));
    }
    devices_.join();
  }

  // ---- drawing ---------------------------------------------------------------------------------------
  // Input set 0 from `seed`: every input (snapshotted) and the starting values of in-place buffers.
  void draw(std::uint64_t seed) {
    seed_ = seed;
    for (input_memory& in : inputs_) {
      const current_device here = on(*in.slot);
      draw_buffer(in.memory.data(), *in.slot, seed, in.stream_id, stream_of(*in.slot));
      in.memory.snapshot(stream_of(*in.slot));
    }
    for (output_memory& out : outputs_) {
      const current_device here = on(*out.slot);
      if (out.in_place()) draw_buffer(out.initial.data(), *out.slot, seed, out.stream_id, stream_of(*out.slot));
    }
    synchronize();
  }

  // Bytes of one input set: every input and every in-place buffer, each at a stride of whole 256 bytes.
  [[nodiscard]] std::size_t input_set_bytes() const {
    std::size_t bytes = 0;
    for (const input_memory& in : inputs_) bytes += stride_bytes(*in.slot);
    for (const output_memory& out : outputs_) bytes += out.in_place() ? stride_bytes(*out.slot) : 0;
    return bytes;
  }

  // The input sets of the timed launches (1 .. count), the values their cheap redraws rearrange (drawn
  // here), and the in-place working copies of both sides.
  void allocate_timed_sets(int count) {
    for (input_memory& in : inputs_) {
      const current_device here = on(*in.slot);
      in.timed = set_block(bytes_of(*in.slot), count);
      in.source = set_block(bytes_of(*in.slot), count);
      in.fingerprints = device_buffer<unsigned long long>(2);
      KBENCH_HIP_CHECK(hipMemsetAsync(in.fingerprints.data(), 0, in.fingerprints.bytes(), stream_of(*in.slot)));
    }
    for (output_memory& out : outputs_) {
      if (!out.in_place()) continue;
      const current_device here = on(*out.slot);
      out.timed = set_block(bytes_of(*out.slot), count);
      out.source = set_block(bytes_of(*out.slot), count);
      out.working_reference = guarded_output(out.timed.bytes());
      out.working_optimized = guarded_output(out.timed.bytes());
      for (const side target : {side::reference, side::optimized}) {
        out.working(target).prepare(dtype::u8, out.timed.bytes(), stream_of(*out.slot));  // arms the guards
      }
    }
    for_each_drawn([&](const buffer_slot& slot, std::size_t stream_id, set_block& timed, set_block& source) {
      (void)timed;
      fill_random(source.data(), slot.type, source.bytes() / info(slot.type).size, slot.init, draw_seed(~0ull), stream_id,
                  stream_of(slot));
    });
    devices_.join();
  }

  void release_timed_sets() {
    for (input_memory& in : inputs_) in.timed = {}, in.source = {}, in.fingerprints = {};
    for (output_memory& out : outputs_) out.timed = {}, out.source = {}, out.working_reference = {}, out.working_optimized = {};
  }

  // Every input set of the timed launches drawn anew, outside any timed region, so that no timed launch
  // reads inputs an earlier launch has seen (draw > 0 numbers the draws). Fresh: from the generator,
  // with a seed of its own. Otherwise, cheaper: the values drawn once (source), rotated by an offset of
  // the draw's own, which keeps every value of the declared distribution and gives each element a value
  // no launch has seen there (arange inputs, whose values are their indices, stay in place). Each input's
  // fingerprint as drawn is added up on the device, to be matched by fingerprint_timed_inputs().
  void redraw_timed_sets(std::uint64_t draw, bool fresh) {
    for_each_drawn([&](const buffer_slot& slot, std::size_t stream_id, set_block& timed, set_block& source) {
      const std::size_t elements = timed.bytes() / info(slot.type).size;
      if (fresh) {
        fill_random(timed.data(), slot.type, elements, slot.init, draw_seed(draw), stream_id, stream_of(slot));
      } else {
        const bool in_place_values = slot.init.shape == distribution::kind::arange;
        const std::size_t offset = in_place_values || elements < 2 ? 0 : 1 + mix_seed(draw_seed(draw) ^ stream_id) % (elements - 1);
        rotate_elements(timed.data(), source.data(), slot.type, elements, offset, stream_of(slot));
      }
    });
    fingerprint_inputs(0);
  }

  // The fingerprints of the timed input sets after the launches that read them (never while timed).
  void fingerprint_timed_inputs() { fingerprint_inputs(1); }

  // The inputs that some timed launch changed: their fingerprints after the launches differ from those
  // as drawn.
  [[nodiscard]] std::vector<std::string> timed_inputs_changed() {
    std::vector<unsigned long long> sums(2 * inputs_.size());
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      const current_device here = on(*inputs_[k].slot);
      KBENCH_HIP_CHECK(hipMemcpyAsync(sums.data() + 2 * k, inputs_[k].fingerprints.data(), inputs_[k].fingerprints.bytes(),
                                      hipMemcpyDeviceToHost, stream_of(*inputs_[k].slot)));
    }
    synchronize();
    std::vector<std::string> changed;
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      if (sums[2 * k] != sums[2 * k + 1]) changed.push_back(inputs_[k].slot->name);
    }
    return changed;
  }

  // The in-place working copies of `target` for the first `launches` launches get their input sets'
  // drawn values (outside any timed region).
  void restore_working(side target, int launches) {
    for (output_memory& out : outputs_) {
      if (!out.in_place()) continue;
      const current_device here = on(*out.slot);
      KBENCH_HIP_CHECK(hipMemcpyAsync(out.working(target).data(), out.timed.data(),
                                      out.timed.stride() * static_cast<std::size_t>(launches), hipMemcpyDeviceToDevice,
                                      stream_of(*out.slot)));
    }
    devices_.join();
  }

  // Where launch `launch` of a sample of `target` writes output `out` while timed.
  [[nodiscard]] static void* timed_output(output_memory& out, side target, int launch) {
    if (!out.in_place()) return out.memory(target).data();
    return static_cast<unsigned char*>(out.working(target).data()) + static_cast<std::size_t>(launch) * out.timed.stride();
  }

  // Where the values of an input, or the starting values of an in-place buffer, live in an input set.
  [[nodiscard]] static void* input_data(const input_memory& in, int set) {
    return set == 0 ? in.memory.data() : in.timed.at(set - 1);
  }
  [[nodiscard]] static void* initial_data(const output_memory& out, int set) {
    return set == 0 ? out.initial.data() : out.timed.at(set - 1);
  }

  // ---- launching ---------------------------------------------------------------------------------------
  // In-place buffers of `target` get the drawn values of an input set back (outside any timed region).
  void restore_in_place(side target, int set = 0) {
    for (output_memory& out : outputs_) {
      if (!out.in_place()) continue;
      const current_device here = on(*out.slot);
      KBENCH_HIP_CHECK(hipMemcpyAsync(out.memory(target).data(), initial_data(out, set), out.memory(target).bytes(),
                                      hipMemcpyDeviceToDevice, stream_of(*out.slot)));
    }
    devices_.join();
  }

  // Poisons every output of `target`, re-arms its guards, and restores its in-place buffers; waits for
  // that, so that a kernel working on some other stream cannot race it (correctness runs are not timed).
  void prepare_outputs(side target) {
    for (output_memory& out : outputs_) {
      const current_device here = on(*out.slot);
      out.memory(target).prepare(out.slot->type, out.slot->storage(), stream_of(*out.slot));
    }
    restore_in_place(target);
    synchronize();
  }

  // Runs one launch of `target` on input set `set`, with every handle bound to that side's memory for
  // the length of the call, and checks the launch's error.
  void launch(side target, int set = 0) {
    bind(target, set);
    run_bound(target);
  }

  // Runs the launch of `target` on whatever the handles are bound to, then unbinds them and checks the
  // launch's error. A case of several devices forks from the case's stream before and joins it after.
  void run_bound(side target) {
    try {
      devices_.fork();
      case_.run_launch(target == side::optimized, devices_.as_streams());
      if (devices_.count() > 1) KBENCH_HIP_CHECK(hipSetDevice(devices_.ordinal(0)));  // the launch moved it
      devices_.join();
    } catch (...) {
      (void)hipSetDevice(devices_.ordinal(0));
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

  // Launch `launch` of a timed sample of `target`: input set launch + 1, and for in-place buffers that
  // launch's working copy.
  void launch_timed(side target, int launch) {
    for (input_memory& in : inputs_) in.slot->device = in.timed.at(launch);
    for (output_memory& out : outputs_) out.slot->device = timed_output(out, target, launch);
    run_bound(target);
  }

  // Keeps every compute unit busy for about `seconds` from another stream: `blocks_per_unit` blocks of
  // 256 spinning threads each (6: 48 of the 64 warps a compute unit holds on gfx9 and on NVIDIA since
  // Volta), which leave room for the case's own blocks and compete with them for issue slots, so that the
  // warps of one block no longer progress in step.
  void load_device(double seconds, int blocks_per_unit = 6) {
    loads_.resize(static_cast<std::size_t>(devices_.count()));
    for (int d = 0; d < devices_.count(); ++d) {  // every GPU of the case, each once
      bool seen = false;
      for (int e = 0; e < d; ++e) seen = seen || devices_.ordinal(e) == devices_.ordinal(d);
      if (seen) continue;
      const current_device here = devices_.on(d);
      auto& load = loads_[static_cast<std::size_t>(d)];
      if (!load) load = std::make_unique<device_load>();
      const unsigned int blocks = static_cast<unsigned int>(blocks_per_unit * std::max(load->multiprocessors, 1));
      load->spin.enqueue_wide(load->stream.get(), seconds, blocks, 256);
    }
  }

  // A launch of `target` on memory of the caller's: `inputs` and `outputs` in declaration order.
  void launch_at(side target, const std::vector<void*>& inputs, const std::vector<void*>& outputs) {
    for (std::size_t k = 0; k < inputs_.size(); ++k) inputs_[k].slot->device = inputs[k];
    for (std::size_t k = 0; k < outputs_.size(); ++k) outputs_[k].slot->device = outputs[k];
    run_bound(target);
  }

  // The values of input `k` in input set `set` on the host, as double (in memory kept for the next call).
  [[nodiscard]] const host_doubles& input_on_host(std::size_t k, int set) {
    host_inputs_.resize(inputs_.size());
    const current_device here = on(*inputs_[k].slot);
    staging_.to_doubles(input_data(inputs_[k], set), *inputs_[k].slot, host_inputs_[k], stream_of(*inputs_[k].slot));
    return host_inputs_[k];
  }

  // The values of a buffer of `slot`'s layout at `device`, as double.
  [[nodiscard]] std::vector<double> values_on_host(const void* device, const buffer_slot& slot) {
    host_doubles values;
    const current_device here = on(slot);
    staging_.to_doubles(device, slot, values, stream_of(slot));
    return {values.data(), values.data() + values.size};
  }

  // Host values bound to the handles for the length of a host reference.
  template <class Compute>
  void with_host_values(const std::vector<const double*>& in_values, std::vector<std::vector<double>>& out_values,
                        Compute&& compute) {
    for (std::size_t k = 0; k < inputs_.size(); ++k) inputs_[k].slot->host = const_cast<double*>(in_values[k]);
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
      const current_device here = on(*out.slot);
      const std::string stray = out.memory(target).check_guards();
      if (!stray.empty()) {
        found.push_back({finding_kind::stray_write,
                         fmt::format("{}the {} kernel wrote outside output '{}': {}", context, name_of(target),
                                     out.slot->name, stray)});
      }
    }
  }

  // The same for the in-place working copies of the timed launches.
  void check_working_guards(side target, const std::string& context, std::vector<finding>& found) {
    for (output_memory& out : outputs_) {
      if (!out.in_place() || out.timed.count() == 0) continue;
      const current_device here = on(*out.slot);
      const std::string stray = out.working(target).check_guards();
      if (!stray.empty()) {
        found.push_back({finding_kind::stray_write,
                         fmt::format("{}the {} kernel wrote outside the timed copies of in-place buffer '{}': {}",
                                     context, name_of(target), out.slot->name, stray)});
      }
    }
  }

  // True when a launch changed input set 0 of `in` since it was drawn.
  [[nodiscard]] bool input_changed(const input_memory& in) {
    std::size_t first = 0;
    const current_device here = on(*in.slot);
    return in.memory.changed_words(stream_of(*in.slot), first) != 0;
  }

  // A finding for each padded output of `target` (timed: its non-in-place ones) whose padding a launch
  // wrote.
  void check_padding(side target, const std::string& context, std::vector<finding>& found, bool timed = false) {
    for (output_memory& out : outputs_) {
      if (timed && out.in_place()) continue;  // the timed working copies' padding holds drawn values
      const current_device here = on(*out.slot);
      const std::string changed = padding_changes(out.memory(target).data(), *out.slot);
      if (!changed.empty()) {
        found.push_back({finding_kind::stray_write, fmt::format("{}the {} kernel wrote into the padding of output '{}': {}",
                                                                context, name_of(target), out.slot->name, changed)});
      }
    }
  }

  // ---- values ------------------------------------------------------------------------------------------
  // Padded outputs are compared on the host, rows only.
  [[nodiscard]] bool compared_on_device(const output_memory& out) const {
    return has_device_reference() && out.slot->size >= device_compare_threshold && !out.slot->padded() &&
           device_can_compare(case_.tolerance_of(*out.slot));
  }

  // The reference's values on the host (rows only), copied on first need.
  const host_array& expected_on_host(output_memory& out) {
    const current_device here = on(*out.slot);
    return out.expected.get(out.reference.data(), *out.slot);
  }

  // Elements of a device reference's output that still hold the poison (padding left out).
  [[nodiscard]] std::size_t poisoned_in_reference(output_memory& out) {
    if (compared_on_device(out)) {
      const current_device here = on(*out.slot);
      return count_poison_on_device(out.reference.data(), out.slot->type, out.slot->size, stream_of(*out.slot));
    }
    return count_poison(expected_on_host(out).bytes.data(), out.slot->type, out.slot->size);
  }

  // The optimized kernel's output against the reference's: on the GPU when large and clean; else, or
  // when the GPU found anything, with the host engine, which lists the first mismatches.
  [[nodiscard]] comparison compare_output(output_memory& out) {
    return compare_output(out, out.optimized.data(), has_device_reference() ? out.reference.data() : nullptr);
  }

  // The same for the output at `actual`, against a device reference's output at `expected` (null: the
  // host reference's values).
  [[nodiscard]] comparison compare_output(output_memory& out, const void* actual, const void* expected) {
    const buffer_slot& slot = *out.slot;
    const tolerance tol = case_.tolerance_of(slot);
    const current_device here = on(slot);
    if (expected && compared_on_device(out)) {
      device_comparison d = compare_on_device(actual, expected, slot.type, slot.size, slot.extents, tol, stream_of(slot));
      if (d.clean) return std::move(d.result);
    }
    const host_array actual_values = read_values(actual, slot);
    host_array elsewhere;
    if (expected && expected != out.reference.data()) elsewhere = read_values(expected, slot);
    const host_array& expected_values = elsewhere.bytes.empty() ? expected_on_host(out) : elsewhere;
    return compare(actual_values.view(slot.size, slot.extents), expected_values.view(slot.size, slot.extents), tol);
  }

 private:
  [[nodiscard]] static std::size_t bytes_of(const buffer_slot& slot) { return slot.storage_bytes(); }
  [[nodiscard]] std::uint64_t draw_seed(std::uint64_t draw) const { return seed_ + 0x9E3779B97F4A7C15ull * draw; }

  // f(slot, stream id, timed block, source block) for every buffer whose values kbench draws.
  // Each on the buffer's device; device 0's stream joins them after.
  template <class F>
  void for_each_drawn(F&& f) {
    for (input_memory& in : inputs_) {
      const current_device here = on(*in.slot);
      f(*in.slot, in.stream_id, in.timed, in.source);
    }
    for (output_memory& out : outputs_) {
      if (!out.in_place()) continue;
      const current_device here = on(*out.slot);
      f(*out.slot, out.stream_id, out.timed, out.source);
    }
    devices_.join();
  }
  [[nodiscard]] static std::size_t stride_bytes(const buffer_slot& slot) { return (bytes_of(slot) + 255) / 256 * 256; }

  // Each input's fingerprint over its timed sets, added to its sum `which` (0: as drawn, 1: after).
  void fingerprint_inputs(int which) {
    for (input_memory& in : inputs_) {
      const current_device here = on(*in.slot);
      add_fingerprint(in.timed.data(), in.timed.bytes(), in.fingerprints.data() + which, stream_of(*in.slot));
    }
    devices_.join();
  }

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
  case_devices devices_;
  std::vector<std::unique_ptr<device_load>> loads_;          // per device, for the shake
  std::vector<std::unique_ptr<cache_flush>> other_flushes_;  // devices 1.. of the case, for cold timing
  std::uint64_t seed_ = 0;  // of input set 0
  std::vector<input_memory> inputs_;
  std::vector<output_memory> outputs_;
  host_staging staging_;                  // pinned chunks for the transfers to host functions
  std::vector<host_doubles> host_inputs_;  // the inputs as a host function last saw them
};

}  // namespace detail
}  // namespace kbench
