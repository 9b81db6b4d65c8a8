// kbench/procedure/alignment_check.hpp: the optimized kernel with its buffers off their natural alignment at
// every offset that breaks a vector access of up to 16 bytes, and at every multiple of 16 below 256 (a path
// over 32- to 256-byte lines that assumes its start is line-aligned when it is only 16-byte aligned: a view
// a few vectors into a tensor), as the case allows; all together, the outputs alone, the inputs alone and
// each buffer alone, on the inputs of set 0: its outputs must still be the reference's.
// Part of a correctness run with a case's first seed (correctness_run.hpp): relocated_runs.hpp holds memory
// of its own, places input set 0 there, launches on it and hands the outputs to the comparator.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "case_buffers.hpp"
#include "output_comparator.hpp"
#include "relocated_runs.hpp"

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

// The optimized kernel with buffers moved as `m` says, on the inputs of set 0, in `runs`' memory (each
// buffer's bytes and widest_offset more): its outputs must be the reference's. A mismatch names the output,
// its offset and every buffer's place; a fault too (and ends the run: on NVIDIA a misaligned access leaves
// the device unusable).
[[nodiscard]] inline std::vector<finding> run_misaligned(relocated_runs& runs, const case_layout& layout,
                                                         const misalignment& m) {
  std::vector<void*> inputs, outputs;
  for (std::size_t k = 0; k < layout.input_count(); ++k) inputs.push_back(runs.input_memory(k) + m.of(layout.input_slot(k)));
  for (std::size_t k = 0; k < layout.output_count(); ++k) outputs.push_back(runs.output_memory(k) + m.of(layout.output_slot(k)));
  const std::string where = fmt::format("with buffers moved {} byte{} off their alignment ({}: {})", m.offset,
                                        m.offset > 1 ? "s" : "", m.words(), m.places(layout));
  const std::vector<comparison> compared = runs.run_at(
      inputs, outputs, where,
      fmt::format("{}, the optimized kernel failed (it needs aligned buffers: declare requires_alignment(), or check the "
                  "addresses of every buffer)",
                  where));
  std::vector<finding> found;
  for (std::size_t k = 0; k < compared.size(); ++k) {
    if (compared[k].passed) continue;
    const buffer_slot& slot = layout.output_slot(k);
    found.push_back({finding_kind::misaligned,
                     fmt::format("{}, output '{}' ({} bytes off) disagrees with the reference: {}", where, slot.name,
                                 m.of(slot), compared[k].reasons.empty() ? std::string("failed") : compared[k].reasons.front())});
  }
  return found;
}

// Every misalignment in turn, up to the first that finds a problem; what it found.
[[nodiscard]] inline std::vector<finding> check_alignment(const case_layout& layout, const case_devices& devices,
                                                          const case_buffers& buffers, case_launcher& launcher,
                                                          output_comparator& comparator, const first_outputs& first,
                                                          bool every_offset) {
  const std::vector<misalignment> runs = misalignments(layout, every_offset);
  if (runs.empty()) return {};
  relocated_runs moved(layout, devices, buffers, launcher, comparator, first, widest_offset);
  std::vector<finding> found;
  for (const misalignment& m : runs) {
    found = run_misaligned(moved, layout, m);
    if (!found.empty()) break;
  }
  moved.unseal();
  return found;
}

}  // namespace detail
}  // namespace kbench
