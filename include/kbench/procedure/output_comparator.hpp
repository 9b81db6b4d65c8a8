// kbench/procedure/output_comparator.hpp: what a case's outputs are compared against, and how. It holds
// the expected values on the host (a host reference's, or a copy of a device reference's output, made on
// first need and dropped whenever the reference runs again) and chooses the path: large outputs of a
// device reference on the GPU (device_compare.hpp), the others, and any the GPU found fault with, on the
// host (comparison.hpp), which lists the first mismatches. It reads outputs only: through case_buffers'
// verbs, or by handing their addresses to the comparison engines.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "../contract/kernel_case.hpp"
#include "../engines/comparison.hpp"
#include "../engines/device_compare.hpp"
#include "case_buffers.hpp"
#include "host_comparison.hpp"

namespace kbench {
namespace detail {

// The reference's values of one output on the host: a host reference's (fp64, the only copy), or a copy
// of a device reference's output.
class expected_values {
 public:
  // A device reference ran: what the host holds is stale.
  void device_changed() { valid_ = false; }
  void set(host_array values) {
    values_ = std::move(values);
    valid_ = true;
  }
  [[nodiscard]] bool valid() const { return valid_; }
  [[nodiscard]] const host_array& held() const { return values_; }

 private:
  host_array values_;
  bool valid_ = false;
};

// Outputs of a device reference with at least this many elements are compared on the GPU.
inline constexpr std::size_t device_compare_threshold = std::size_t{1} << 20;

class output_comparator {
 public:
  output_comparator(const case_layout& layout, const case_devices& devices, case_buffers& buffers)
      : layout_(layout), devices_(devices), buffers_(buffers), expected_(layout.output_count()) {}

  // ---- the expected values -----------------------------------------------------------------------------
  // The device reference ran again: every copy on the host is stale.
  void reference_ran() {
    for (expected_values& e : expected_) e.device_changed();
  }
  // A host reference computed output k's values.
  void set_expected(std::size_t k, host_array values) { expected_[k].set(std::move(values)); }
  // Whether the host holds output k's expected values, and those it holds (without copying).
  [[nodiscard]] bool holds_expected(std::size_t k) const { return expected_[k].valid(); }
  [[nodiscard]] const host_array& held_expected(std::size_t k) const { return expected_[k].held(); }
  // Output k's expected values on the host (rows only), copied from the device reference first if needed.
  const host_array& expected_on_host(std::size_t k) {
    if (!expected_[k].valid()) expected_[k].set(buffers_.read_output(side::reference, k));
    return expected_[k].held();
  }

  // ---- comparing -------------------------------------------------------------------------------------
  // Padded outputs are compared on the host, rows only.
  [[nodiscard]] bool compared_on_device(std::size_t k) const {
    const buffer_slot& slot = layout_.output_slot(k);
    return layout_.has_device_reference() && slot.size >= device_compare_threshold && !slot.padded() &&
           device_can_compare(layout_.tolerance_of_output(k));
  }

  // Elements of a device reference's output k that still hold the poison (padding left out).
  [[nodiscard]] std::size_t poisoned_in_reference(std::size_t k) {
    const buffer_slot& slot = layout_.output_slot(k);
    if (compared_on_device(k)) {
      const current_device here = devices_.on(slot);
      return count_poison_on_device(buffers_.output_data(side::reference, k), slot.type, slot.size,
                                    devices_.stream_of(slot));
    }
    return count_poison(expected_on_host(k).bytes.data(), slot.type, slot.size);
  }

  // The optimized kernel's output k against the reference's.
  [[nodiscard]] comparison compare(std::size_t k) { return against_reference(k, buffers_.output_data(side::optimized, k)); }

  // The output of layout k at `actual` against the reference's output k.
  [[nodiscard]] comparison against_reference(std::size_t k, const void* actual) {
    return compare_at(k, actual, layout_.has_device_reference() ? buffers_.output_data(side::reference, k) : nullptr);
  }

  // The output of layout k at `actual` against a device reference's output at `expected` (null: the
  // host reference's values). On the GPU when large and clean; else, or when the GPU found anything,
  // with the host engine.
  [[nodiscard]] comparison compare_at(std::size_t k, const void* actual, const void* expected) {
    const buffer_slot& slot = layout_.output_slot(k);
    const tolerance tol = layout_.tolerance_of_output(k);
    const current_device here = devices_.on(slot);
    if (expected && compared_on_device(k)) {
      device_comparison d = compare_on_device(actual, expected, slot.type, slot.size, slot.extents, tol, devices_.stream_of(slot));
      if (d.clean) return std::move(d.result);
    }
    const host_array actual_values = read_values(actual, slot);
    host_array elsewhere;
    if (expected && expected != buffers_.output_data(side::reference, k)) elsewhere = read_values(expected, slot);
    const host_array& expected_values = elsewhere.bytes.empty() ? expected_on_host(k) : elsewhere;
    return compare_on_host(actual_values.view(slot.size, slot.extents), expected_values.view(slot.size, slot.extents), tol);
  }

  // Whether the tolerance's element rules accept the output at `actual` against output k at `expected` (device
  // buffers of a device reference's layout): the verdict alone, on the GPU where the output is large whether
  // it found anything or not (its counts are the host's either way; only a finding's table needs the host).
  [[nodiscard]] bool within_tolerance_at(std::size_t k, const void* actual, const void* expected) {
    if (!compared_on_device(k)) return compare_at(k, actual, expected).passed;
    const buffer_slot& slot = layout_.output_slot(k);
    const current_device here = devices_.on(slot);
    return rules_on_device(k, actual, expected, 0).result.passed;
  }

  // On the GPU: whether the tolerance's rules accept, against the device reference's output k, the output at
  // `actual` (null: every element the bits `constant`); `norm`, when given, gets the reference's norm. The
  // errors' signs are not audited: the tolerance probes ask whether the rules themselves can fail.
  [[nodiscard]] bool device_accepts(std::size_t k, const void* actual, std::uint64_t constant, double* norm = nullptr) {
    const device_comparison d = rules_on_device(k, actual, buffers_.output_data(side::reference, k), constant);
    if (norm) *norm = d.expected_norm;
    return d.result.passed;
  }

 private:
  // Output k's tolerance applied on the GPU to `actual` (null: the bits `constant`) against `expected`, the
  // errors' signs not audited: what within_tolerance_at() and device_accepts() ask, the verdict alone.
  [[nodiscard]] device_comparison rules_on_device(std::size_t k, const void* actual, const void* expected,
                                                  std::uint64_t constant) const {
    const buffer_slot& slot = layout_.output_slot(k);
    return compare_on_device(actual, expected, slot.type, slot.size, slot.extents, layout_.tolerance_of_output(k),
                             devices_.stream_of(slot), constant, false);
  }

  const case_layout& layout_;
  const case_devices& devices_;
  case_buffers& buffers_;
  std::vector<expected_values> expected_;
};

}  // namespace detail
}  // namespace kbench
