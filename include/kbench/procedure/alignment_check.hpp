// kbench/procedure/alignment_check.hpp: the optimized kernel with its buffers 1, 2, 4 and 8 bytes off their
// natural alignment (as the case allows), on the inputs of set 0: its outputs must still be the
// reference's. Part of a correctness run with a case's first seed (correctness_run.hpp); it holds the
// case's buffers, which place input set 0 in the moved memory, and the comparator.
#pragma once

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

// The optimized kernel with buffers moved `offset` bytes off their natural alignment (those whose element
// size divides it; the others stay), on the inputs of set 0: its outputs must be the reference's.
inline void run_misaligned(case_buffers& buffers, output_comparator& comparator, std::size_t offset,
                           const moved_buffers& held, seed_result& r) {
  auto moved = [offset](const buffer_slot& slot) { return offset % info(slot.type).size == 0 ? offset : 0; };
  std::vector<void*> inputs, outputs;
  held.addresses(buffers, moved, inputs, outputs);
  buffers.place_set_zero_at(inputs, outputs);
  const std::string where = fmt::format("with buffers moved {} byte{} off their alignment", offset, offset > 1 ? "s" : "");
  try {
    buffers.launcher().launch_at(side::optimized, inputs, outputs);
    buffers.synchronize_devices();
  } catch (const hip_error& e) {
    // Not a finding to go on from: a misaligned access is a sticky error on NVIDIA, the device unusable.
    throw hip_error(e.code(), fmt::format("{}, the optimized kernel failed (it needs aligned buffers: declare "
                                          "requires_alignment(), or check the addresses): {}",
                                          where, e.what()));
  }
  for (std::size_t k = 0; k < buffers.output_count(); ++k) {
    const buffer_slot& slot = buffers.output_slot(k);
    const comparison c = comparator.against_reference(k, held.aligned_copy(buffers, k, outputs[k]));
    if (!c.passed) {
      r.problems.push_back({finding_kind::misaligned,
                            fmt::format("{} ({} bytes for output '{}'), the optimized kernel disagrees with the reference: "
                                        "{}",
                                        where, moved(slot), slot.name, c.reasons.empty() ? std::string("failed") : c.reasons.front())});
    }
  }
}

// Every offset of 1, 2, 4 and 8 bytes that moves some buffer and that the case's required alignment allows.
inline void check_alignment(case_buffers& buffers, output_comparator& comparator, seed_result& r) {
  const std::size_t required = buffers.declaration().requires_alignment;
  std::vector<std::size_t> offsets;
  for (const std::size_t offset : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
    bool moves = false;
    for (const auto& slot : buffers.declaration().buffers) moves = moves || offset % info(slot->type).size == 0;
    if (moves && offset % required == 0) offsets.push_back(offset);
  }
  if (offsets.empty()) return;
  const moved_buffers held(buffers);
  for (const std::size_t offset : offsets) run_misaligned(buffers, comparator, offset, held, r);
}

}  // namespace detail
}  // namespace kbench
