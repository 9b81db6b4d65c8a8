// kbench/procedure/tolerance_probe.hpp: proof that a test can fail. A tolerance that accepts what a broken kernel
// would leave (an unwritten output, an all-zero one, the reference perturbed well beyond tolerance and,
// for an in-place buffer, the values as drawn) makes the test fail as broken. Probed on the GPU for
// outputs compared there, on the host otherwise, with the comparator; the probes start from the case's
// buffers (the reference's output, an in-place buffer as drawn).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../detail/host_device.hpp"
#include "../engines/comparison.hpp"
#include "../engines/device_compare.hpp"
#include "../engines/random.hpp"
#include "case_buffers.hpp"
#include "host_comparison.hpp"
#include "output_comparator.hpp"
#include "device_work.hpp"

namespace kbench {
namespace detail {

// How far the tolerance probe moves an element with expected value e: well beyond every element rule (8x
// its bound), at least a quarter of the value plus one so rounding to the dtype cannot undo it; with only
// aggregate rules, far enough to outweigh the whole output (`aggregate`).
KBENCH_HOST_DEVICE inline double perturbation(double e, const element_rule* rules, int rule_count, int mantissa_bits,
                                              double aggregate) {
  double delta = rule_count == 0 ? aggregate : 0.0;
  for (int k = 0; k < rule_count; ++k) {
    double bound = rules[k].atol + rules[k].rtol * fabs(e);
    if (rules[k].rule == element_rule::kind::ulp) {
      bound = ldexp(fabs(e) + 1.0, -mantissa_bits) * static_cast<double>(rules[k].max_ulps + 1);
    }
    delta = fmax(delta, 8.0 * bound);
  }
  return fmax(delta, fabs(e) * 0.25 + 1.0);
}

// The device version of perturbed_probe(): `count` evenly spaced elements of `data` moved in place. A
// template, for the reason fill_random is one (random.hpp); defined with its kernel in perturb_kernels.hpp,
// compiled once per program with the fill kernels (device_work.hpp).
template <class Unused = void>
void perturb_on_device(void* data, dtype t, std::size_t size, std::size_t count, const tolerance& tol, double aggregate,
                       hipStream_t stream);
extern template void perturb_on_device<void>(void*, dtype, std::size_t, std::size_t, const tolerance&, double,
                                             hipStream_t);

// Expected values perturbed "well beyond" the tolerance at just more elements than it lets mismatch.
inline host_array perturbed_probe(const host_array& expected, dtype out_type, std::size_t size, const tolerance& tol,
                                  std::size_t allowed) {
  host_array probe{out_type, {}};
  if (expected.type == out_type) {
    probe.bytes = expected.bytes;
  } else {
    probe.bytes.resize(size * info(out_type).size);
    for (std::size_t i = 0; i < size; ++i) {
      store_from_double(probe.bytes.data(), out_type, i, load_as_double(expected.bytes.data(), expected.type, i));
    }
  }
  double norm = 0.0;
  if (tol.element_rules.empty()) {  // only aggregate rules: one element must outweigh the whole output
    for (std::size_t i = 0; i < size; ++i) {
      const double e = load_as_double(probe.bytes.data(), out_type, i);
      if (std::isfinite(e)) norm += e * e;
    }
  }
  const std::size_t count = std::min(size, allowed + 1);
  const double aggregate = 2.0 * std::sqrt(norm) + 1.0;
  for (std::size_t k = 0; k < count; ++k) {
    const auto i = static_cast<std::size_t>(static_cast<double>(k) * static_cast<double>(size) / static_cast<double>(count));
    const double e = load_as_double(probe.bytes.data(), out_type, i);
    const double delta = perturbation(e, tol.element_rules.data(), static_cast<int>(tol.element_rules.size()),
                                      info(out_type).mantissa_bits, aggregate);
    // Up, unless that saturates (the largest int8 code, 448 in fp8) or overflows: then down.
    store_from_double(probe.bytes.data(), out_type, i, e + delta);
    const double up = load_as_double(probe.bytes.data(), out_type, i);
    if (!std::isfinite(up) || up == e) store_from_double(probe.bytes.data(), out_type, i, e - delta);
  }
  return probe;
}

// What a broken kernel would leave in output k that the tolerance accepts, in words: on the GPU for
// outputs compared there.
[[nodiscard]] inline std::vector<std::string> accepted_on_device(const case_layout& layout, const case_devices& devices,
                                                                 const case_buffers& buffers, output_comparator& comparator,
                                                                 std::size_t k, std::size_t allowed) {
  const buffer_slot& slot = layout.output_slot(k);
  std::vector<std::string> accepted;
  double norm = 0.0;
  if (comparator.device_accepts(k, nullptr, poison_as<std::uint64_t>(slot.type))) {
    accepted.push_back("an output the kernel never wrote");
  }
  if (comparator.device_accepts(k, nullptr, 0, &norm)) accepted.push_back("an all-zero output");
  const device_allocation probe(slot.storage_bytes());
  buffers.copy_output(side::reference, k, probe.data());
  perturb_on_device(probe.data(), slot.type, slot.size, std::min(slot.size, allowed + 1),
                    layout.tolerance_of_output(k), 2.0 * norm + 1.0, devices.stream_of(slot));
  if (comparator.device_accepts(k, probe.data(), 0)) accepted.push_back("the reference perturbed well beyond tolerance");
  if (layout.in_place(k) && comparator.device_accepts(k, buffers.start_values(k), 0)) {
    accepted.push_back("the buffer as drawn, i.e. a kernel that did nothing");
  }
  return accepted;
}

// The same on the host, against the expected values there.
[[nodiscard]] inline std::vector<std::string> accepted_on_host(const case_layout& layout, const case_buffers& buffers,
                                                               output_comparator& comparator, std::size_t k,
                                                               std::size_t allowed) {
  const buffer_slot& slot = layout.output_slot(k);
  const tolerance tol = layout.tolerance_of_output(k);
  const std::uint32_t word = poison_word(slot.type);
  std::vector<std::string> accepted;
  const host_array& expected_values = comparator.expected_on_host(k);
  const array_view expected = expected_values.view(slot.size, slot.extents);
  compare_options quiet;
  quiet.mismatches_to_keep = 0;
  quiet.audit_signs = false;  // whether the element rules can fail: the signs' audit is not the test's tolerance
  auto accepts = [&](const host_array& p) { return compare_on_host(p.view(slot.size, slot.extents), expected, tol, quiet).passed; };
  host_array probe{slot.type, std::vector<unsigned char>(slot.size * info(slot.type).size)};
  for (std::size_t i = 0; i < probe.bytes.size(); ++i) probe.bytes[i] = static_cast<unsigned char>(word >> (8 * (i % 4)));
  if (accepts(probe)) accepted.push_back("an output the kernel never wrote");
  std::fill(probe.bytes.begin(), probe.bytes.end(), 0);
  if (accepts(probe)) accepted.push_back("an all-zero output");
  if (accepts(perturbed_probe(expected_values, slot.type, slot.size, tol, allowed))) {
    accepted.push_back("the reference perturbed well beyond tolerance");
  }
  if (layout.in_place(k) && accepts(read_values(buffers.start_values(k), slot))) {
    accepted.push_back("the buffer as drawn, i.e. a kernel that did nothing");
  }
  return accepted;
}

// A test that cannot fail is an error: the tolerance must reject what a broken kernel would leave: an
// unwritten output, an all-zero one, the reference perturbed beyond tolerance and, for an in-place
// buffer, the values as drawn.
[[nodiscard]] inline std::vector<finding> check_tolerance_can_fail(const case_layout& layout, const case_devices& devices,
                                                                  const case_buffers& buffers, output_comparator& comparator) {
  std::vector<finding> problems;
  for (std::size_t k = 0; k < layout.output_count(); ++k) {
    const buffer_slot& slot = layout.output_slot(k);
    const tolerance tol = layout.tolerance_of_output(k);
    const std::size_t allowed = static_cast<std::size_t>(std::floor(tol.max_mismatch_fraction * static_cast<double>(slot.size)));
    const current_device here = devices.on(slot);
    const std::vector<std::string> accepted = comparator.compared_on_device(k)
                                                  ? accepted_on_device(layout, devices, buffers, comparator, k, allowed)
                                                  : accepted_on_host(layout, buffers, comparator, k, allowed);
    for (const std::string& a : accepted) {
      problems.push_back({finding_kind::broken_test,
                          fmt::format("broken test: tolerance '{}' of output '{}' accepts {}; this test cannot fail",
                                      tol.description, slot.name, a)});
    }
  }
  return problems;
}

}  // namespace detail
}  // namespace kbench
