// kbench/procedure/alignment_check.hpp: the optimized kernel with its buffers off their natural alignment at
// every offset that breaks a vector access of up to 16 bytes (as the case allows), all together, the
// outputs alone and the inputs alone, on the inputs of set 0: its outputs must still be the reference's.
// Part of a correctness run with a case's first seed (correctness_run.hpp); it holds the case's buffers,
// which place input set 0 in the moved memory, and the comparator.
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

// Memory for the runs with buffers moved off their alignment: each buffer's bytes and 16 more, and an
// aligned copy of each output for the comparison (the device comparison reads 16 bytes at a time).
class moved_buffers {
 public:
  explicit moved_buffers(const case_buffers& buffers) {
    for (std::size_t k = 0; k < buffers.input_count(); ++k) {
      const current_device here = buffers.on(buffers.input_slot(k));
      inputs_.emplace_back(buffers.input_slot(k).storage_bytes() + 16);
    }
    for (std::size_t k = 0; k < buffers.output_count(); ++k) {
      const current_device here = buffers.on(buffers.output_slot(k));
      outputs_.emplace_back(buffers.output_slot(k).storage_bytes() + 16);
      aligned_.emplace_back(buffers.output_slot(k).storage_bytes());
    }
  }

  // Each buffer `moved(slot)` bytes into its memory, inputs and outputs in declaration order.
  template <class Moved>
  void addresses(const case_buffers& buffers, Moved&& moved, std::vector<void*>& inputs, std::vector<void*>& outputs) const {
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      inputs.push_back(static_cast<unsigned char*>(inputs_[k].data()) + moved(buffers.input_slot(k)));
    }
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      outputs.push_back(static_cast<unsigned char*>(outputs_[k].data()) + moved(buffers.output_slot(k)));
    }
  }

  // Output k, written at `moved`, copied to aligned memory (waited for); there for the comparison.
  [[nodiscard]] const void* aligned_copy(const case_buffers& buffers, std::size_t k, const void* moved) const {
    const buffer_slot& slot = buffers.output_slot(k);
    const current_device here = buffers.on(slot);
    KBENCH_HIP_CHECK(hipMemcpyAsync(aligned_[k].data(), moved, slot.storage_bytes(), hipMemcpyDeviceToDevice,
                                    buffers.stream_of(slot)));
    KBENCH_HIP_CHECK(hipStreamSynchronize(buffers.stream_of(slot)));
    return aligned_[k].data();
  }

 private:
  std::vector<device_allocation> inputs_, outputs_, aligned_;
};

// Which buffers a misaligned run moves: all of them, the outputs alone (a kernel that checks its inputs'
// alignment and assumes its outputs', which real models break by writing into views), or the inputs alone.
enum class moved_group { all, outputs, inputs };

[[nodiscard]] inline const char* words_for(moved_group g) {
  switch (g) {
    case moved_group::all: return "inputs and outputs";
    case moved_group::outputs: return "outputs only, inputs aligned";
    case moved_group::inputs: return "inputs only, outputs aligned";
  }
  return "?";
}

// One misaligned run: a group of buffers moved `offset` bytes, each that the offset keeps element-aligned.
struct misalignment {
  moved_group group = moved_group::all;
  std::size_t offset = 0;
  // Bytes `slot` moves in this run (0: it stays aligned).
  [[nodiscard]] std::size_t of(const buffer_slot& slot) const {
    const bool output = slot.role == buffer_role::output || slot.role == buffer_role::inout;
    const bool in_group = group == moved_group::all || (group == moved_group::outputs) == output;
    return in_group && offset % info(slot.type).size == 0 ? offset : 0;
  }
  // "x +6 B, w aligned, y +6 B": every buffer's place, for a report that must name them.
  [[nodiscard]] std::string places(const case_buffers& buffers) const {
    std::string out;
    auto add = [&](const buffer_slot& slot) {
      const std::size_t moved = of(slot);
      out += fmt::format("{}'{}' {}", out.empty() ? "" : ", ", slot.name, moved ? fmt::format("+{} B", moved) : "aligned");
    };
    for (std::size_t k = 0; k < buffers.input_count(); ++k) add(buffers.input_slot(k));
    for (std::size_t k = 0; k < buffers.output_count(); ++k) add(buffers.output_slot(k));
    return out;
  }
};

// The optimized kernel with buffers moved as `m` says, on the inputs of set 0: its outputs must be the
// reference's. A mismatch names the output, its offset and every buffer's place; a fault too (and ends
// the run: on NVIDIA a misaligned access leaves the device unusable).
[[nodiscard]] inline std::vector<finding> run_misaligned(case_buffers& buffers, output_comparator& comparator,
                                                         const misalignment& m, const moved_buffers& held) {
  std::vector<finding> found;
  std::vector<void*> inputs, outputs;
  held.addresses(buffers, [&m](const buffer_slot& slot) { return m.of(slot); }, inputs, outputs);
  buffers.place_first_input_set_at(inputs, outputs);
  const std::string where = fmt::format("with buffers moved {} byte{} off their alignment ({}: {})", m.offset,
                                        m.offset > 1 ? "s" : "", words_for(m.group), m.places(buffers));
  try {
    buffers.launcher().launch_at(side::optimized, inputs, outputs);
    buffers.synchronize_devices();
  } catch (const hip_error& e) {
    throw hip_error(e.code(), fmt::format("{}, the optimized kernel failed (it needs aligned buffers: declare "
                                          "requires_alignment(), or check the addresses of every buffer): {}",
                                          where, e.what()));
  }
  for (std::size_t k = 0; k < buffers.output_count(); ++k) {
    const buffer_slot& slot = buffers.output_slot(k);
    const comparison c = comparator.against_reference(k, held.aligned_copy(buffers, k, outputs[k]));
    if (!c.passed) {
      found.push_back({finding_kind::misaligned,
                       fmt::format("{}, output '{}' ({} bytes off) disagrees with the reference: {}", where, slot.name,
                                   m.of(slot), c.reasons.empty() ? std::string("failed") : c.reasons.front())});
    }
  }
  return found;
}

// Every misalignment a vector access of up to 16 bytes can meet: for each buffer, each multiple of its
// element size below 16 (fp16: 2, 4, ... 14 bytes), that the case's required alignment allows; at each
// offset all buffers moved, then the outputs alone, then the inputs alone (a group is left out where it
// moves the same buffers as one before, or none). Without `every_offset` (beyond small_case_elements in
// all, decisions/nearby_shapes.hpp, or --quick), the smallest offset and 8 bytes only, the outputs and
// inputs alone at 8: each run costs about four passes over the buffers (placing, poisoning, the launch, an
// aligned copy), 1.3 ms at 16384 x 8192 fp16 on the H200, and a kernel's handling of its addresses does
// not depend on its size: the small shapes every case declares, and their neighbours, get every offset. A
// mismatch stops the rest: one finding names it.
[[nodiscard]] inline std::vector<misalignment> misalignments(const case_buffers& buffers, bool every_offset) {
  const std::size_t required = buffers.declaration().requires_alignment;
  std::size_t smallest = 16;
  for (const auto& slot : buffers.declaration().buffers) smallest = std::min(smallest, info(slot->type).size);
  std::vector<misalignment> runs;
  for (std::size_t offset = 1; offset < 16; ++offset) {
    if (offset % required != 0) continue;
    if (!every_offset && offset != smallest && offset != 8) continue;
    std::vector<std::vector<std::size_t>> seen;
    for (const moved_group group : {moved_group::all, moved_group::outputs, moved_group::inputs}) {
      if (!every_offset && group != moved_group::all && offset != 8) continue;
      const misalignment m{group, offset};
      std::vector<std::size_t> moves;
      bool any = false;
      for (std::size_t k = 0; k < buffers.input_count(); ++k) moves.push_back(m.of(buffers.input_slot(k)));
      for (std::size_t k = 0; k < buffers.output_count(); ++k) moves.push_back(m.of(buffers.output_slot(k)));
      for (const std::size_t b : moves) any = any || b != 0;
      if (!any || std::find(seen.begin(), seen.end(), moves) != seen.end()) continue;
      seen.push_back(moves);
      runs.push_back(m);
    }
  }
  return runs;
}

// Every misalignment in turn, up to the first that finds a problem; what it found.
[[nodiscard]] inline std::vector<finding> check_alignment(case_buffers& buffers, output_comparator& comparator,
                                                          bool every_offset) {
  const std::vector<misalignment> runs = misalignments(buffers, every_offset);
  if (runs.empty()) return {};
  const moved_buffers held(buffers);
  for (const misalignment& m : runs) {
    std::vector<finding> found = run_misaligned(buffers, comparator, m, held);
    if (!found.empty()) return found;
  }
  return {};
}

}  // namespace detail
}  // namespace kbench
