// kbench/procedure/case_scratch.hpp: the scratch memory of a case (kernel_case::scratch): each side's,
// poisoned and guarded like an output, never compared; the launcher binds it to every launch of its side.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/case_layout.hpp"
#include "../engines/integrity.hpp"
#include "../results/outcome.hpp"
#include "case_devices.hpp"
#include "case_launcher.hpp"

namespace kbench {
namespace detail {

// What a guard of `target`'s memory reported, as a finding: "<context>the optimized kernel wrote outside
// <what> '<name>': <stray>" (outputs, scratch, the timed copies).
[[nodiscard]] inline finding stray_write(const std::string& context, side target, const char* what,
                                         const std::string& name, const std::string& stray) {
  return {finding_kind::stray_write,
          fmt::format("{}the {} kernel wrote outside {} '{}': {}", context, name_of(target), what, name, stray)};
}

class case_scratch {
 public:
  // Every scratch buffer the case declares, sized (a library's query runs here, on the case's device,
  // before any launch) and allocated on its device; each side's memory given to the launcher once (it
  // stays the same for every launch).
  case_scratch(const case_layout& layout, case_devices& devices, case_launcher& launcher) : devices_(devices) {
    for (std::size_t k = 0; k < layout.scratch_count(); ++k) {
      buffer_slot& slot = layout.scratch_handle(k);
      const current_device here = devices_.on(slot);
      if (slot.bytes_query) {
        slot.size = std::max<std::size_t>(1, slot.bytes_query());
        slot.extents = {slot.size};
      }
      buffers_.push_back({&slot, guarded_output(slot.storage_bytes()), guarded_output(slot.storage_bytes())});
    }
    for (const side target : {side::reference, side::optimized}) {
      std::vector<void*> memory;
      for (const buffer& b : buffers_) memory.push_back(b.memory(target).data());
      launcher.place_scratch(target, std::move(memory));
    }
  }
  case_scratch(const case_scratch&) = delete;
  case_scratch& operator=(const case_scratch&) = delete;

  // Poisons the scratch of `target` and re-arms its guards, on each buffer's stream, without waiting.
  void prepare(side target) {
    for (buffer& b : buffers_) {
      const current_device here = devices_.on(*b.slot);
      b.memory(target).prepare(b.slot->type, b.slot->storage(), devices_.stream_of(*b.slot));
    }
  }
  // A finding for each scratch buffer of `target` written outside its bounds since its guards were armed.
  [[nodiscard]] std::vector<finding> check_guards(side target, const std::string& context) const {
    std::vector<finding> found;
    for (const buffer& b : buffers_) {
      const current_device here = devices_.on(*b.slot);
      const std::string stray = b.memory(target).check_guards();
      if (!stray.empty()) found.push_back(stray_write(context, target, "scratch", b.slot->name, stray));
    }
    return found;
  }

 private:
  struct buffer {
    const buffer_slot* slot;
    guarded_output reference, optimized;
    [[nodiscard]] guarded_output& memory(side target) { return target == side::optimized ? optimized : reference; }
    [[nodiscard]] const guarded_output& memory(side target) const {
      return target == side::optimized ? optimized : reference;
    }
  };
  case_devices& devices_;
  std::vector<buffer> buffers_;
};

}  // namespace detail
}  // namespace kbench
