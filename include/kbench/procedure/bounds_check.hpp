// kbench/procedure/bounds_check.hpp: the optimized kernel with each buffer in turn against unmapped memory,
// on the inputs of set 0: first ending where unmapped memory starts, then starting where it ends. Memory
// from hipMalloc serves a read a little past the end of a buffer (or before its start) from whatever lies
// next to it, and the guards around the outputs see writes only: here such a read faults, and the fault
// names the buffer and the side. Each buffer's runs must also give the reference's outputs.
// Part of a correctness run with a case's first seed (correctness_run.hpp), after the misaligned runs: the
// buffer moved is in fenced memory of its own (engines/fenced_memory.hpp), made on the buffer's device
// and freed before the next buffer's; every other buffer is in relocated_runs.hpp's memory. Where the
// platform cannot fence memory, a note says so and the run goes on.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../decisions/fence_placement.hpp"
#include "../engines/fenced_memory.hpp"
#include "../engines/last_words.hpp"
#include "../results/outcome.hpp"
#include "case_buffers.hpp"
#include "output_comparator.hpp"
#include "relocated_runs.hpp"

namespace kbench {
namespace detail {

// Which end of the buffer meets unmapped memory.
enum class fenced_end { end, start };

// One buffer against its fence: where it is, and the words for it.
struct fenced_placement {
  const buffer_slot* slot = nullptr;
  fenced_end side = fenced_end::end;
  [[nodiscard]] std::string where() const {
    return fmt::format(side == fenced_end::end ? "with '{}' ending where unmapped memory starts"
                                               : "with '{}' starting where unmapped memory ends",
                       slot->name);
  }
  [[nodiscard]] std::string crossing() const {
    return fmt::format("it reads or writes {} '{}'", side == fenced_end::end ? "past the end of" : "before the start of",
                       slot->name);
  }
  // The buffer's start in `region`: at its beginning, or so that it ends at its end, as close as a start
  // aligned to the case's required alignment (at least the element size) allows.
  [[nodiscard]] void* start_in(const fenced_region& region, std::size_t required_alignment) const {
    if (side == fenced_end::start) return region.begin();
    const std::size_t alignment = std::max(required_alignment, info(slot->type).size);
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(region.end());
    return reinterpret_cast<void*>(start_to_end_at(end, slot->storage_bytes(), alignment));
  }
};

// The GPUs of a case, each once (--share-devices may put two logical devices on one): every one of them may
// reach every buffer.
[[nodiscard]] inline std::vector<int> distinct_devices(const case_devices& devices) {
  std::vector<int> ordinals;
  for (int d = 0; d < devices.count(); ++d) {
    if (devices.first_on_its_gpu(d)) ordinals.push_back(devices.ordinal(d));
  }
  return ordinals;
}

// The optimized kernel with `fenced` in `region` and every other buffer in `runs`' memory: a fault names the
// buffer and the side (hip_error); an output that disagrees with the reference, a finding.
[[nodiscard]] inline std::vector<finding> run_fenced(relocated_runs& runs, const case_layout& layout,
                                                     const fenced_region& region, const fenced_placement& fenced) {
  std::vector<void*> inputs, outputs;
  void* const placed = fenced.start_in(region, layout.declaration().requires_alignment);
  for (std::size_t k = 0; k < layout.input_count(); ++k) {
    inputs.push_back(&layout.input_slot(k) == fenced.slot ? placed : runs.input_memory(k));
  }
  for (std::size_t k = 0; k < layout.output_count(); ++k) {
    outputs.push_back(&layout.output_slot(k) == fenced.slot ? placed : runs.output_memory(k));
  }
  const std::string where = fenced.where();
  // Where the HIP runtime ends the process at the fault, before kbench hears of it (AMD), the line an abort
  // writes first is what names the buffer and the side.
  std::optional<last_words> words;
  if (memory_fault_ends_process) {
    words.emplace(fmt::format("kbench: the process ended while the optimized kernel ran {}: {}\n", where, fenced.crossing()));
  }
  const std::vector<comparison> compared =
      runs.run_at(inputs, outputs, where, fmt::format("{}, the optimized kernel failed: {}", where, fenced.crossing()));
  std::vector<finding> found;
  for (std::size_t k = 0; k < compared.size(); ++k) {
    if (compared[k].passed) continue;
    found.push_back({finding_kind::out_of_bounds,
                     fmt::format("{}, output '{}' disagrees with the reference: {}", where, layout.output_slot(k).name,
                                 compared[k].reasons.empty() ? std::string("failed") : compared[k].reasons.front())});
  }
  return found;
}

// Each input and output in turn against unmapped memory at its end, then at its start, up to the first run
// that finds a problem; what it found. Fenced memory that cannot be made (a platform or device without
// virtual memory management, access from another device refused) ends the check with a note.
[[nodiscard]] inline std::vector<finding> check_bounds(const case_layout& layout, const case_devices& devices,
                                                       const case_buffers& buffers, case_launcher& launcher,
                                                       output_comparator& comparator, const first_outputs& first) {
  std::vector<const buffer_slot*> fenced;
  for (std::size_t k = 0; k < layout.input_count(); ++k) fenced.push_back(&layout.input_slot(k));
  for (std::size_t k = 0; k < layout.output_count(); ++k) fenced.push_back(&layout.output_slot(k));
  const std::vector<int> access = distinct_devices(devices);
  std::optional<relocated_runs> runs;  // made once the first fenced memory is: none where none can be
  auto each_buffer = [&]() -> std::vector<finding> {
    for (const buffer_slot* slot : fenced) {
      if (slot->storage_bytes() == 0) continue;
      fenced_region region;
      try {
        const current_device here = devices.on(*slot);
        region = fenced_region(fenced_bytes_for(slot->storage_bytes()), devices.ordinal(slot->device_index), access);
      } catch (const hip_error& e) {
        return {{finding_kind::note, fmt::format("reads outside buffers not checked (at '{}'): {}", slot->name, e.what())}};
      }
      if (!runs) runs.emplace(layout, devices, buffers, launcher, comparator, first, 0);
      for (const fenced_end side : {fenced_end::end, fenced_end::start}) {
        std::vector<finding> found = run_fenced(*runs, layout, region, {slot, side});
        if (!found.empty()) return found;
      }
    }
    return {};
  };
  std::vector<finding> found = each_buffer();
  if (runs) runs->unseal();  // the reference's outputs back, sealed through the runs
  return found;
}

}  // namespace detail
}  // namespace kbench
