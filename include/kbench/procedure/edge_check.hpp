// kbench/procedure/edge_check.hpp: both sides on inputs at the edges of their values (larger and smaller
// magnitudes, signed zeros and subnormals, exact ties: decisions/edge_values.hpp chooses the runs and the
// tolerance), judged where the reference's outputs are finite. Part of a correctness run with a case's
// first seed (correctness_run.hpp), after everything else: each run draws input set 0 anew, and the last
// draws it as declared again and reruns the reference, so that what follows the check (the timing run, the
// census) finds set 0 and the expected values as the declared run left them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../decisions/edge_values.hpp"
#include "../detail/parallel.hpp"
#include "../engines/comparison.hpp"
#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "case_buffers.hpp"
#include "host_comparison.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"
#include "reference_run.hpp"

namespace kbench {
namespace detail {

// Whether `v`, a value of the reference, is one an output of type `out` holds as a finite number (a host
// reference's fp64 value beyond the type's range would be stored as Inf).
[[nodiscard]] inline bool finite_in(double v, dtype out) { return std::isfinite(v) && std::fabs(v) <= largest_finite(out); }

// The RMS of the reference's finite values of an output of type `out` (0: none).
[[nodiscard]] inline double finite_rms(const host_array& expected, std::size_t size, dtype out) {
  double sum = 0.0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const double v = load_as_double(expected.bytes.data(), expected.type, i);
    if (!finite_in(v, out)) continue;
    sum += v * v;
    ++n;
  }
  return n ? std::sqrt(sum / static_cast<double>(n)) : 0.0;
}

// The reference's values of every output, as declared: their RMS, against which an edge run's are set. 0
// (the tolerance as declared) for an output compared on the GPU, which is not read to the host for it.
[[nodiscard]] inline std::vector<double> declared_output_rms(const case_layout& layout, output_comparator& comparator) {
  std::vector<double> rms;
  for (std::size_t k = 0; k < layout.output_count(); ++k) {
    const buffer_slot& slot = layout.output_slot(k);
    const bool read = info(slot.type).is_float && !comparator.compared_on_device(k);
    rms.push_back(read ? finite_rms(comparator.expected_on_host(k), slot.size, slot.type) : 0.0);
  }
  return rms;
}

// The reference's outputs as declared, read to the host on demand: a spike run forgives an error that is small
// against how far the spikes moved the reference's own output there (spike_check.hpp's declared_reference).
class declared_outputs {
 public:
  virtual ~declared_outputs() = default;
  [[nodiscard]] virtual host_array on_host(std::size_t k) const = 0;
};

// A spike run's error at an element is forgiven where it is within this share of the reference's own movement
// there: a spike of 1024 in a gemv's fp16 input moves an output by hundreds, and a kernel that rounds its
// products to fp16, as honest ones do, then differs from the reference by a few ulps of the new magnitude,
// which the declared relative tolerance, set against an output that cancellation left small, can refuse. Work
// left out misses the whole movement, or half of it where two spikes meet.
inline constexpr double followed_share = 1.0 / 8.0;

// Elements a host thread judges at a time in compare_at_edge.
inline constexpr std::size_t edge_piece = std::size_t{1} << 20;

// Output k of this edge run against the reference's, where the reference's is finite: elements where it is
// not are set to 0 on both sides (left out); `left_out` counts them. The ratio of the absolute tolerance is
// the RMS of the finite ones over `declared_rms`, as finite_rms() gives it for the declared run.
[[nodiscard]] inline comparison compare_at_edge(const case_layout& layout, const case_buffers& buffers,
                                                output_comparator& comparator, std::size_t k, const edge_run& run,
                                                double declared_rms, std::size_t& left_out,
                                                const declared_outputs* declared = nullptr) {
  const buffer_slot& slot = layout.output_slot(k);
  host_array actual = buffers.read_output(side::optimized, k);
  host_array expected = comparator.expected_on_host(k);
  double ratio = 1.0;
  left_out = 0;
  std::size_t forgiven = 0;
  if (!info(slot.type).is_float) {
    return compare_on_host(actual.view(slot.size, slot.extents), expected.view(slot.size, slot.extents),
                           edge_tolerance(layout.tolerance_of_output(k), ratio, slot.type));
  }
  // In pieces over every host thread (an output at a timed shape holds 10^8 elements), each piece's sums
  // and counts added in piece order: the same ratio on every run.
  const host_array before = declared != nullptr ? declared->on_host(k) : host_array{};
  const std::size_t pieces = (slot.size + edge_piece - 1) / edge_piece;
  std::vector<double> sums(pieces, 0.0);
  std::vector<std::size_t> left(pieces, 0), kept(pieces, 0);
  parallel_for(pieces, [&](std::size_t p) {
    for (std::size_t i = p * edge_piece, end = std::min(slot.size, i + edge_piece); i < end; ++i) {
      const double e = load_as_double(expected.bytes.data(), expected.type, i);
      if (!finite_in(e, slot.type)) {
        store_from_double(expected.bytes.data(), expected.type, i, 0.0);
        store_from_double(actual.bytes.data(), actual.type, i, 0.0);
        ++left[p];
        continue;
      }
      sums[p] += e * e;
      if (declared == nullptr) continue;
      const double a = load_as_double(actual.bytes.data(), actual.type, i);
      if (a == e) continue;
      const double moved = std::fabs(e - load_as_double(before.bytes.data(), before.type, i));
      if (std::fabs(a - e) <= followed_share * moved) {
        store_from_double(actual.bytes.data(), actual.type, i, e);
        ++kept[p];
      }
    }
  });
  double sum = 0.0;
  for (std::size_t p = 0; p < pieces; ++p) sum += sums[p], left_out += left[p], forgiven += kept[p];
  const std::size_t finite = slot.size - left_out;
  if (run.rescales() && declared_rms > 0.0 && finite > 0) ratio = std::sqrt(sum / static_cast<double>(finite)) / declared_rms;
  tolerance tol = edge_tolerance(layout.tolerance_of_output(k), ratio, slot.type);
  if (forgiven > 0) {
    tol.description += fmt::format("; {} element(s) within an eighth of the reference's own movement there forgiven", forgiven);
  }
  return compare_on_host(actual.view(slot.size, slot.extents), expected.view(slot.size, slot.extents), tol);
}

// One edge run: input set 0 drawn as `run` says, the optimized kernel then the reference, every output
// compared. Its findings (and those of its launches) name the run.
[[nodiscard]] inline std::vector<finding> run_at_edge(const case_layout& layout, const case_devices& devices,
                                                      case_buffers& buffers, output_comparator& comparator,
                                                      host_computation& host, const edge_run& run,
                                                      const std::vector<double>& declared_rms,
                                                      const declared_outputs* declared = nullptr) {
  buffers.draw(buffers.seed(), &run);
  std::vector<finding> found = run_side(devices, buffers, side::optimized);
  if (layout.has_device_reference()) {
    append(found, run_device_reference(layout, devices, buffers, comparator));
  } else {
    append(found, run_host_reference(layout, buffers, comparator, host, buffers.first_input_set(), true));
  }
  const std::string where = run.words();
  for (finding& f : found) f.text = where + ": " + f.text;
  for (std::size_t k = 0; k < layout.output_count(); ++k) {
    const buffer_slot& slot = layout.output_slot(k);
    // A large output on the GPU with the case's tolerance first; only what fails there is read and judged
    // on the host, where the reference is finite (a spike run at a timed shape reads no output).
    if (comparator.compared_on_device(k) && comparator.compare(k).passed) continue;
    std::size_t left_out = 0;
    const comparison c = compare_at_edge(layout, buffers, comparator, k, run, declared_rms[k], left_out, declared);
    const std::string judged =
        left_out ? fmt::format(" (judged at the {} of {} elements where the reference is finite)", slot.size - left_out, slot.size)
                 : std::string();
    if (!c.passed) {
      const bool beyond = run.kind == edge_kind::spikes || run.kind == edge_kind::family;
      found.push_back({beyond ? finding_kind::unfollowed_input : finding_kind::edge_value,
                       fmt::format("{}, output '{}' disagrees with the reference{}: {} [tolerance {}]", where, slot.name,
                                   judged, c.reasons.empty() ? std::string("failed") : c.reasons.front(),
                                   c.applied.description)});
    }
  }
  return found;
}

// What the edge runs found, and how many ran.
struct edge_check_result {
  std::vector<finding> found;
  int runs = 0;
};

// The buffers a case draws: its inputs, then its in-place outputs.
[[nodiscard]] inline std::vector<const buffer_slot*> drawn_slots(const case_layout& layout) {
  std::vector<const buffer_slot*> slots;
  for (std::size_t k = 0; k < layout.input_count(); ++k) slots.push_back(&layout.input_slot(k));
  for (std::size_t k = 0; k < layout.output_count(); ++k) {
    if (layout.in_place(k)) slots.push_back(&layout.output_slot(k));
  }
  return slots;
}

// Input set 0 as declared again, and the reference's expected values of it, after runs on other values:
// what follows (the timing run, the census) finds them as the declared run left them.
inline void restore_declared_set(const case_layout& layout, const case_devices& devices, case_buffers& buffers,
                                 output_comparator& comparator, host_computation& host) {
  buffers.draw(buffers.seed());
  if (layout.has_device_reference()) {
    (void)run_side(devices, buffers, side::reference);
    comparator.reference_ran();
  } else {
    (void)run_host_reference(layout, buffers, comparator, host, buffers.first_input_set(), true);
  }
}

// Every edge run of the case (none where it opted out), up to the first that finds a problem; then input set
// 0 as declared again, and the reference's expected values of it.
[[nodiscard]] inline edge_check_result check_edge_values(const case_layout& layout, const case_devices& devices,
                                                        case_buffers& buffers, output_comparator& comparator,
                                                        host_computation& host, const std::vector<double>& declared_rms) {
  edge_check_result result;
  const std::vector<edge_run> runs = edge_runs(drawn_slots(layout), layout.declaration().edge_values);
  if (runs.empty()) return result;
  for (const edge_run& run : runs) {
    const std::vector<finding> found = run_at_edge(layout, devices, buffers, comparator, host, run, declared_rms);
    append(result.found, found);
    ++result.runs;
    if (any_failing(found)) break;
  }
  // The declared run reported what these find already.
  restore_declared_set(layout, devices, buffers, comparator, host);
  return result;
}

}  // namespace detail
}  // namespace kbench
