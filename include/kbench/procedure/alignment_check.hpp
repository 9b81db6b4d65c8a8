// kbench/procedure/alignment_check.hpp: the optimized kernel with its buffers off their natural alignment at
// every offset that breaks a vector access of up to 16 bytes, and at every multiple of 16 below 256 (a path
// over 32- to 256-byte lines that assumes its start is line-aligned when it is only 16-byte aligned: a view
// a few vectors into a tensor), as the case allows; all together, the outputs alone, the inputs alone and
// each buffer alone, on the inputs of set 0: its outputs must still be the reference's.
// Part of a correctness run with a case's first seed (correctness_run.hpp): misaligned_runs holds memory
// of its own, places input set 0 there, launches on it and hands the outputs to the comparator.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/device_buffer.hpp"
#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "case_buffers.hpp"
#include "output_comparator.hpp"

namespace kbench {
namespace detail {

// Which buffers a misaligned run moves: all of them, the outputs alone (a kernel that checks its inputs'
// alignment and assumes its outputs', which real models break by writing into views), the inputs alone, or
// one buffer alone (a kernel that checks some of its pointers and assumes the others).
enum class moved_group { all, outputs, inputs, one };

// The largest offset moved, exclusive: 256 bytes, the widest line a vector path takes for a unit.
inline constexpr std::size_t widest_offset = 256;

// One misaligned run: a group of buffers moved `offset` bytes, each that the offset keeps element-aligned.
struct misalignment {
  moved_group group = moved_group::all;
  std::size_t offset = 0;
  const buffer_slot* alone = nullptr;  // moved_group::one: the buffer moved
  // Bytes `slot` moves in this run (0: it stays aligned).
  [[nodiscard]] std::size_t of(const buffer_slot& slot) const {
    const bool output = slot.role == buffer_role::output || slot.role == buffer_role::inout;
    const bool in_group = group == moved_group::all || (group == moved_group::one ? &slot == alone
                                                                                  : (group == moved_group::outputs) == output);
    return in_group && offset % info(slot.type).size == 0 ? offset : 0;
  }
  [[nodiscard]] std::string words() const {
    switch (group) {
      case moved_group::all: return "inputs and outputs";
      case moved_group::outputs: return "outputs only, inputs aligned";
      case moved_group::inputs: return "inputs only, outputs aligned";
      case moved_group::one: return fmt::format("'{}' alone", alone ? alone->name : "?");
    }
    return "?";
  }
  // "x +6 B, w aligned, y +6 B": every buffer's place, for a report that must name them.
  [[nodiscard]] std::string places(const case_layout& layout) const {
    std::string out;
    auto add = [&](const buffer_slot& slot) {
      const std::size_t moved = of(slot);
      out += fmt::format("{}'{}' {}", out.empty() ? "" : ", ", slot.name, moved ? fmt::format("+{} B", moved) : "aligned");
    };
    for (std::size_t k = 0; k < layout.input_count(); ++k) add(layout.input_slot(k));
    for (std::size_t k = 0; k < layout.output_count(); ++k) add(layout.output_slot(k));
    return out;
  }
};

// Every misalignment a vector access can meet: for each buffer, each multiple of its element size below 16
// (fp16: 2, 4, ... 14 bytes), then each multiple of 16 below 256 (16, 32, ... 240: off a 32- to 256-byte
// line while 16-byte aligned), that the case's required alignment allows; at each offset all buffers moved,
// then the outputs alone, the inputs alone and each buffer alone (a group is left out where it moves the
// same buffers as one before, or none). Without `every_offset` (beyond small_case_elements in all,
// decisions/nearby_shapes.hpp, or --quick): the smallest offset, 8 bytes, and the smallest multiple of 16
// the case allows, all buffers moved, and the outputs and inputs alone at 8: each run costs about four
// passes over the buffers (placing, poisoning, the launch, an aligned copy), 1.3 ms at 16384 x 8192 fp16 on
// the H200, and a kernel's handling of its addresses does not depend on its size: the small shapes every
// case declares, and their neighbours, get every offset. A mismatch stops the rest: one finding names it.
[[nodiscard]] inline std::vector<misalignment> misalignments(const case_layout& layout, bool every_offset) {
  const std::size_t required = layout.declaration().requires_alignment;
  std::size_t smallest = 16;
  for (const auto& slot : layout.declaration().buffers) smallest = std::min(smallest, info(slot->type).size);
  std::size_t wide = 16;  // the smallest multiple of 16 the required alignment allows
  while (wide < widest_offset && wide % required != 0) wide += 16;
  std::vector<const buffer_slot*> buffers;
  for (std::size_t k = 0; k < layout.input_count(); ++k) buffers.push_back(&layout.input_slot(k));
  for (std::size_t k = 0; k < layout.output_count(); ++k) buffers.push_back(&layout.output_slot(k));
  std::vector<misalignment> runs;
  std::vector<std::vector<std::size_t>> seen;
  auto add = [&](const misalignment& m) {
    std::vector<std::size_t> moves;
    bool any = false;
    for (const buffer_slot* b : buffers) {
      moves.push_back(m.of(*b));
      any = any || moves.back() != 0;
    }
    if (!any || std::find(seen.begin(), seen.end(), moves) != seen.end()) return;
    seen.push_back(moves);
    runs.push_back(m);
  };
  for (std::size_t offset = 1; offset < widest_offset; offset += offset < 16 ? 1 : 16) {
    if (offset % required != 0) continue;
    if (!every_offset && offset != smallest && offset != 8 && offset != wide) continue;
    seen.clear();
    add({moved_group::all, offset});
    if (!every_offset && offset != 8) continue;
    add({moved_group::outputs, offset});
    add({moved_group::inputs, offset});
    if (!every_offset) continue;
    for (const buffer_slot* b : buffers) add({moved_group::one, offset, b});
  }
  return runs;
}

// The runs with buffers moved off their alignment, and their memory: each buffer's bytes and 256 more, and
// an aligned copy of each output for the comparison (the device comparison reads 16 bytes at a time).
class misaligned_runs {
 public:
  misaligned_runs(const case_layout& layout, const case_devices& devices, const case_buffers& buffers,
                  case_launcher& launcher, output_comparator& comparator)
      : layout_(layout), devices_(devices), buffers_(buffers), launcher_(launcher), comparator_(comparator) {
    for (std::size_t k = 0; k < layout_.input_count(); ++k) {
      const current_device here = devices_.on(layout_.input_slot(k));
      inputs_.emplace_back(layout_.input_slot(k).storage_bytes() + widest_offset);
    }
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      const current_device here = devices_.on(layout_.output_slot(k));
      outputs_.emplace_back(layout_.output_slot(k).storage_bytes() + widest_offset);
      aligned_.emplace_back(layout_.output_slot(k).storage_bytes());
    }
  }

  // The optimized kernel with buffers moved as `m` says, on the inputs of set 0: its outputs must be the
  // reference's. A mismatch names the output, its offset and every buffer's place; a fault too (and ends
  // the run: on NVIDIA a misaligned access leaves the device unusable).
  [[nodiscard]] std::vector<finding> run(const misalignment& m) {
    std::vector<finding> found;
    std::vector<void*> inputs, outputs;
    for (std::size_t k = 0; k < inputs_.size(); ++k) inputs.push_back(moved(inputs_[k], m.of(layout_.input_slot(k))));
    for (std::size_t k = 0; k < outputs_.size(); ++k) outputs.push_back(moved(outputs_[k], m.of(layout_.output_slot(k))));
    place_first_input_set(inputs, outputs);
    const std::string where = fmt::format("with buffers moved {} byte{} off their alignment ({}: {})", m.offset,
                                          m.offset > 1 ? "s" : "", m.words(), m.places(layout_));
    try {
      launcher_.launch_at(side::optimized, inputs, outputs);
      devices_.synchronize_devices();
    } catch (const hip_error& e) {
      throw hip_error(e.code(), fmt::format("{}, the optimized kernel failed (it needs aligned buffers: declare "
                                            "requires_alignment(), or check the addresses of every buffer): {}",
                                            where, e.what()));
    }
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      const buffer_slot& slot = layout_.output_slot(k);
      const comparison c = comparator_.against_reference(k, aligned_copy(k, outputs[k]));
      if (!c.passed) {
        found.push_back({finding_kind::misaligned,
                         fmt::format("{}, output '{}' ({} bytes off) disagrees with the reference: {}", where, slot.name,
                                     m.of(slot), c.reasons.empty() ? std::string("failed") : c.reasons.front())});
      }
    }
    return found;
  }

 private:
  [[nodiscard]] static void* moved(const device_allocation& memory, std::size_t bytes) {
    return static_cast<unsigned char*>(memory.data()) + bytes;
  }

  // Input set 0 placed at the moved addresses, as a launch starts from it: each input's values, each
  // output's (in-place buffers' drawn values, poison for the others); waits.
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

  // Output k, written at `moved`, copied to aligned memory (waited for); there for the comparison.
  [[nodiscard]] const void* aligned_copy(std::size_t k, const void* moved) const {
    const buffer_slot& slot = layout_.output_slot(k);
    const current_device here = devices_.on(slot);
    KBENCH_HIP_CHECK(hipMemcpyAsync(aligned_[k].data(), moved, slot.storage_bytes(), hipMemcpyDeviceToDevice,
                                    devices_.stream_of(slot)));
    KBENCH_HIP_CHECK(hipStreamSynchronize(devices_.stream_of(slot)));
    return aligned_[k].data();
  }

  const case_layout& layout_;
  const case_devices& devices_;
  const case_buffers& buffers_;
  case_launcher& launcher_;
  output_comparator& comparator_;
  std::vector<device_allocation> inputs_, outputs_, aligned_;
};

// Every misalignment in turn, up to the first that finds a problem; what it found.
[[nodiscard]] inline std::vector<finding> check_alignment(const case_layout& layout, const case_devices& devices,
                                                          const case_buffers& buffers, case_launcher& launcher,
                                                          output_comparator& comparator, bool every_offset) {
  const std::vector<misalignment> runs = misalignments(layout, every_offset);
  if (runs.empty()) return {};
  misaligned_runs moved(layout, devices, buffers, launcher, comparator);
  for (const misalignment& m : runs) {
    std::vector<finding> found = moved.run(m);
    if (!found.empty()) return found;
  }
  return {};
}

}  // namespace detail
}  // namespace kbench
