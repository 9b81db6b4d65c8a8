// kbench/procedure/reference_run.hpp: one checked run of a side (run_side: poison, launch, then the
// guards, the padding and the inputs), and the reference's runs that give the expected values: the device
// reference, with the elements it left unwritten, or the host reference in double, with the elements it
// left unassigned. The correctness run uses both; the timing run's audit uses the host reference, and the
// report of unwritten elements, on its last timed input set.
#pragma once

#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "case_buffers.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"

namespace kbench {
namespace detail {

// Poison, launch, wait for the whole device (work left on other streams included), then check the
// guards and the inputs.
[[nodiscard]] inline std::vector<finding> run_side(const case_devices& devices, case_buffers& buffers, side target) {
  buffers.prepare_outputs(target);
  buffers.launch(target);
  devices.synchronize();
  devices.synchronize_devices();
  std::vector<finding> problems = buffers.check_guards(target, "");
  append(problems, buffers.check_padding(target, "", false));
  append(problems, buffers.snapshot_modified_inputs(name_of(target)));
  return problems;
}

// "the reference left 5 of 100 elements of output 'y' unwritten"
inline void report_unwritten(const buffer_slot& slot, std::size_t unwritten, const char* who, const char* state,
                             std::vector<finding>& problems) {
  if (unwritten == 0) return;
  problems.push_back({finding_kind::reference_incomplete, fmt::format("the {} left {} of {} elements of output '{}' {}",
                                                                      who, unwritten, slot.size, slot.name, state)});
}

// Elements of integer output k that held the first poison after the first run (`first`, its values)
// and the second poison after the second (read now): the ones the reference never wrote.
[[nodiscard]] inline std::size_t unwritten_under_both_poisons(const case_layout& layout, const case_buffers& buffers, std::size_t k,
                                                               const host_array& first) {
  const buffer_slot& slot = layout.output_slot(k);
  const host_array second = buffers.read_output(side::reference, k);
  const std::size_t width = info(slot.type).size;
  std::size_t unwritten = 0;
  for (std::size_t i = 0; i < slot.size; ++i) {
    bool both = true;
    for (std::size_t b = i * width; b < (i + 1) * width; ++b) both = both && first.bytes[b] == 0xA5 && second.bytes[b] == 0x5A;
    unwritten += both;
  }
  return unwritten;
}

// The device reference, and the elements it left unwritten. Floats are poisoned with a NaN no
// arithmetic produces, so a poisoned element is an unwritten one. An integer poison is a plausible value:
// confirmed by a second run under another poison, since an element the reference never writes holds each
// poison in turn.
[[nodiscard]] inline std::vector<finding> run_device_reference(const case_layout& layout, const case_devices& devices,
                                                               case_buffers& buffers, output_comparator& comparator) {
  std::vector<finding> problems = run_side(devices, buffers, side::reference);
  comparator.reference_ran();
  const std::size_t outputs = layout.output_count();
  std::vector<std::size_t> suspects(outputs, 0);
  bool integer_suspects = false;
  for (std::size_t k = 0; k < outputs; ++k) {
    if (layout.in_place(k)) continue;  // starts from the drawn values, not from poison
    suspects[k] = comparator.poisoned_in_reference(k);
    integer_suspects = integer_suspects || (suspects[k] && !info(layout.output_slot(k).type).is_float);
  }
  if (integer_suspects) {
    for (std::size_t k = 0; k < outputs; ++k) {
      if (!info(layout.output_slot(k).type).is_float) (void)comparator.expected_on_host(k);  // the first run's values
      buffers.fill_output(side::reference, k, 0x5A);
    }
    devices.synchronize();
    buffers.restore_in_place(side::reference);
    buffers.launch(side::reference);
    devices.synchronize_devices();
    for (std::size_t k = 0; k < outputs; ++k) {
      if (info(layout.output_slot(k).type).is_float || suspects[k] == 0) continue;
      suspects[k] = unwritten_under_both_poisons(layout, buffers, k, comparator.held_expected(k));
    }
    // The device copies now hold the second run: put the first run's values back where the host has them.
    for (std::size_t k = 0; k < outputs; ++k) {
      if (comparator.holds_expected(k)) buffers.write_output(side::reference, k, comparator.held_expected(k));
    }
  }
  for (std::size_t k = 0; k < outputs; ++k) {
    report_unwritten(layout.output_slot(k), suspects[k], "reference", "unwritten", problems);
  }
  return problems;
}

// The host reference on the input set `set` (`first_set`: input set 0, whose inputs are then checked
// against their snapshot); its results become the expected values, in fp64.
[[nodiscard]] inline std::vector<finding> run_host_reference(const case_layout& layout, const case_buffers& buffers,
                                                             output_comparator& comparator, host_computation& host,
                                                             const input_set_view& set, bool first_set,
                                                             host_run* timed = nullptr) {
  std::vector<finding> problems;
  const std::vector<std::vector<double>> out_values = host.run(set, layout.declaration().host_reference, timed);
  const double sentinel = sentinel_value();
  for (std::size_t k = 0; k < layout.output_count(); ++k) {
    std::size_t unassigned = 0;
    if (!layout.in_place(k)) {
      for (double v : out_values[k]) unassigned += std::memcmp(&v, &sentinel, sizeof v) == 0;
    }
    report_unwritten(layout.output_slot(k), unassigned, "host reference", "unassigned", problems);
    host_array expected{dtype::f64, std::vector<unsigned char>(out_values[k].size() * sizeof(double))};
    std::memcpy(expected.bytes.data(), out_values[k].data(), expected.bytes.size());
    comparator.set_expected(k, std::move(expected));
  }
  if (first_set) {
    for (const std::string& name : buffers.modified_inputs()) {
      problems.push_back({finding_kind::input_modified, fmt::format("input '{}' changed during the host reference", name)});
    }
  }
  return problems;
}

}  // namespace detail
}  // namespace kbench
