// kbench/decisions/edge_values.hpp: the inputs at the edges that a case's first correctness run also tries
// (one of the extended checks), and how their outputs are judged. A kernel engineer declares the values of a typical
// run, and the precision bugs that ship are at the edges of the range: an fp16 sum of squares that
// overflows, a softmax without the max subtracted, a product that underflows, a tie broken the other way.
//
// The runs, each on the first seed, for every drawn floating-point input whose values are random
// (uniform or normal; given values, positions, a function of the index and integers are what they are):
//   larger    one input at a time, times the power of two that brings its declared magnitude to about 256
//             (at least 16x), within a sixteenth of its type's range (fp16: 4094)
//   smaller   one input at a time, times 2^-10 (less where that would sink its values below 16 times the
//             type's smallest normal number: fp8 e4m3 stays above 2^-2)
//   specials  every such input, one element in 16 replaced by +0, -0, the smallest subnormal or minus the
//             largest one
//   ties      every such input rounded to a grid of a power of two near an eighth of its spread: exact ties
//             everywhere (argmax, top-k, max)
// And on every first seed, at any size (every input element must matter: a reduction that reads every
// k-th element, or a value computed from the declared distribution instead of the inputs, fails):
//   spikes    one input at a time, 8 elements at positions drawn from the seed set to +-S, S a power of two
//             about 1024 times its declared magnitude (within a sixteenth of its type's range), then 2^20
//             times where the first did not move the reference's outputs beyond the tolerance; positive
//             only for an input declared non-negative, negative only for one declared non-positive
//   family    every such input from another family on the same support: uniform(a, b) as a + (b - a) t^3
//             (t uniform in [0, 1): leaning toward a), normal(m, s) as m + s E (E exponential: a mean one s
//             higher, skewed), so that the mean, the spread and the shape all change
// Powers of two keep every significand: a kernel that computes in the reference's precision gives the same
// relative errors at every scale, except where a value leaves the range of a type it passes through. So the
// case's tolerance still holds, its absolute part scaled as the reference's outputs scale (their RMS at the
// edge over their RMS as declared), never below two of the output type's smallest subnormals; and the
// outputs are judged only where the reference's are finite (an optimized output that is NaN or Inf there
// fails). HIP-free.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/buffer_handle.hpp"
#include "../contract/dtype.hpp"
#include "../contract/tolerance.hpp"
#include "../detail/host_device.hpp"

namespace kbench {

// Elements a spike run sets, per input.
inline constexpr int spike_count = 8;

// How an edge run changes the values a buffer's distribution draws (none: as declared). Applied on the
// device where the values are drawn (engines/random.hpp), after the distribution, before rounding to the type.
struct value_edge {
  double scale = 1.0;         // a power of two: every value times it
  double grid = 0.0;          // > 0: every value rounded to the nearest multiple of it
  bool specials = false;      // one element in 16 a special value (special_values())
  bool other_family = false;  // the values from another family on the same support (the header's comment)
  double spike = 0.0;         // > 0: the elements at spike_at are +-spike (a power of two: exact in every type)
  int spike_sign = 0;         // +1 or -1: every spike that sign; 0: each its own, from its position
  int spikes = 0;             // how many of spike_at are used
  std::uint64_t spike_at[spike_count] = {};  // element indices, row-major over the extents
  [[nodiscard]] KBENCH_HOST_DEVICE bool none() const {
    return scale == 1.0 && grid == 0.0 && !specials && !other_family && spikes == 0;
  }
};

// The four special values of a floating-point type, as doubles that it holds exactly: +0, -0, its smallest
// subnormal and minus its largest subnormal.
struct special_set {
  double values[4];
};
[[nodiscard]] inline special_set special_values(dtype t) {
  const double smallest_normal = detail::smallest_normal(t);
  const double smallest_subnormal = std::ldexp(smallest_normal, -info(t).mantissa_bits);
  return {{0.0, -0.0, smallest_subnormal, -(smallest_normal - smallest_subnormal)}};
}

enum class edge_kind { larger, smaller, specials, ties, spikes, family };

// One run at the edges: which kind, and for the scaled kinds the input and its factor.
struct edge_run {
  edge_kind kind = edge_kind::specials;
  const detail::buffer_slot* input = nullptr;  // larger, smaller, spikes: that input; the others: every one
  double scale = 1.0;                          // spikes: their magnitude
  std::uint64_t seed = 0;                      // spikes: where they are
  // Whether the tolerance's absolute parts follow the reference's outputs' RMS (compare_at_edge()): where
  // every value moved. Not for spikes, which move a few outputs a lot and leave the rest as they were.
  [[nodiscard]] bool rescales() const { return kind == edge_kind::larger || kind == edge_kind::smaller || kind == edge_kind::family; }
  // What this run does to `slot`'s values.
  [[nodiscard]] value_edge edge_of(const detail::buffer_slot& slot) const;
  // "input 'x' at 128x its declared scale", "signed zeros and subnormals among the inputs", for a finding.
  [[nodiscard]] std::string words() const;
};

namespace detail {

// Whether an edge run may change the values of a drawn buffer: random floating-point values, and neither the
// case nor the buffer opted out.
[[nodiscard]] inline bool edge_candidate(const buffer_slot& slot) {
  return drawn(slot.role) && info(slot.type).is_float && slot.init.random_values() && slot.edge_values;
}

// The largest magnitude the declared distribution draws in practice: uniform's bounds, normal's mean plus
// three standard deviations.
[[nodiscard]] inline double declared_magnitude(const distribution& d) {
  if (d.shape == distribution::kind::normal) return std::fabs(d.a) + 3.0 * d.b;
  return std::max(std::fabs(d.a), std::fabs(d.b));
}

// "uniform(-2, 2)", "normal(0, 1)": a random distribution in words, its parameters times `scale`.
[[nodiscard]] inline std::string random_words(const distribution& d, double scale = 1.0) {
  return fmt::format("{}({:g}, {:g})", d.shape == distribution::kind::normal ? "normal" : "uniform", d.a * scale, d.b * scale);
}

// Where spikes go: a sign from the declared range (+1 non-negative, -1 non-positive, 0 either).
[[nodiscard]] inline int spike_sign(const distribution& d) {
  if (d.shape == distribution::kind::uniform && d.a >= 0.0) return 1;
  if (d.shape == distribution::kind::uniform && d.b <= 0.0) return -1;
  return 0;
}

}  // namespace detail

// The magnitudes of the spike runs of values of magnitude `m` in type `t`: powers of two about 2^10 and
// 2^20 times m, each within a sixteenth of the type's range and at least 16 times m (none where the type
// has no room: fp8 e4m3 declared above 1.75).
[[nodiscard]] inline std::vector<double> spike_sizes(dtype t, double m) {
  std::vector<double> sizes;
  if (!(m > 0.0)) return sizes;
  const double room = std::exp2(std::floor(std::log2(largest_finite(t) / 16.0)));
  for (const double factor : {0x1p10, 0x1p20}) {
    const double size = std::min(std::exp2(std::round(std::log2(m * factor))), room);
    if (size >= 16.0 * m && (sizes.empty() || size > sizes.back())) sizes.push_back(size);
  }
  return sizes;
}

// The factor of the larger run for values of magnitude `m` in type `t`: the power of two that brings m to
// (128, 256], at least 16, halved until m times it is within a sixteenth of the type's range. 1: none (the
// type has no room: fp8 e4m3 declared at 28 or more).
[[nodiscard]] inline double larger_scale(dtype t, double m) {
  if (!(m > 0.0)) return 1.0;
  double s = std::max(16.0, std::exp2(std::floor(std::log2(256.0 / m))));
  while (s > 1.0 && m * s > largest_finite(t) / 16.0) s /= 2.0;
  return s >= 2.0 ? s : 1.0;
}

// The factor of the smaller run: 2^-10, raised until m times it is at least 16 times the type's smallest
// normal number (so that a few values, not most, are subnormal). 1: none.
[[nodiscard]] inline double smaller_scale(dtype t, double m) {
  if (!(m > 0.0)) return 1.0;
  double s = std::exp2(-10.0);
  while (s < 1.0 && m * s < 16.0 * detail::smallest_normal(t)) s *= 2.0;
  return s <= 0.5 ? s : 1.0;
}

// The grid of the ties run: the largest power of two at most an eighth of uniform's width, or half of
// normal's standard deviation.
[[nodiscard]] inline double tie_grid(const distribution& d) {
  const double spread = d.shape == distribution::kind::normal ? d.b / 2.0 : (d.b - d.a) / 8.0;
  return std::exp2(std::floor(std::log2(spread)));
}

inline value_edge edge_run::edge_of(const detail::buffer_slot& slot) const {
  value_edge e;
  if (!detail::edge_candidate(slot)) return e;
  switch (kind) {
    case edge_kind::larger:
    case edge_kind::smaller:
      if (&slot == input) e.scale = scale;
      break;
    case edge_kind::specials: e.specials = true; break;
    case edge_kind::ties: e.grid = tie_grid(slot.init); break;
    case edge_kind::family: e.other_family = true; break;
    case edge_kind::spikes:
      if (&slot != input || slot.size == 0) break;
      e.spike = scale;
      e.spike_sign = detail::spike_sign(slot.init);
      e.spikes = static_cast<int>(std::min<std::size_t>(spike_count, slot.size));
      for (int j = 0; j < e.spikes; ++j) e.spike_at[j] = detail::mix_seed(seed ^ detail::mix_seed(j + 1)) % slot.size;
      break;
  }
  return e;
}

inline std::string edge_run::words() const {
  switch (kind) {
    case edge_kind::larger:
    case edge_kind::smaller: {
      const std::string factor = scale >= 1.0 ? fmt::format("{:g}x", scale) : fmt::format("2^{:g}x", std::log2(scale));
      return fmt::format("with input '{}' at {} its declared scale ({})", input->name, factor,
                         detail::random_words(input->init, scale));
    }
    case edge_kind::specials:
      return "with one element in 16 of every random floating-point input +0, -0, the smallest subnormal or minus the "
             "largest";
    case edge_kind::ties:
      return "with every random floating-point input rounded to a coarse grid (exact ties everywhere)";
    case edge_kind::spikes: {
      const int sign = detail::spike_sign(input->init);
      return fmt::format("with {} elements of input '{}' set to {}{:g} (declared {})",
                         std::min<std::size_t>(spike_count, input->size), input->name, sign > 0 ? "+" : sign < 0 ? "-" : "+-",
                         scale, detail::random_words(input->init));
    }
    case edge_kind::family:
      return "with every random floating-point input from another family (uniform(a, b) as a + (b - a) t^3, normal(m, s) "
             "as m + s times an exponential)";
  }
  return "?";
}

// What edge run `run` (null: none) does to `slot`'s values.
[[nodiscard]] inline value_edge edge_for(const edge_run* run, const detail::buffer_slot& slot) {
  return run ? run->edge_of(slot) : value_edge{};
}

// The edge runs of a case whose drawn buffers are `slots`: for each candidate input its larger and smaller
// run (where its type leaves room), then one specials and one ties run over all of them. None when the
// case opted out, or has no candidate.
[[nodiscard]] inline std::vector<edge_run> edge_runs(const std::vector<const detail::buffer_slot*>& slots, bool case_allows) {
  std::vector<edge_run> runs;
  if (!case_allows) return runs;
  bool any = false;
  for (const detail::buffer_slot* slot : slots) {
    if (!detail::edge_candidate(*slot)) continue;
    any = true;
    const double m = detail::declared_magnitude(slot->init);
    if (const double s = larger_scale(slot->type, m); s != 1.0) runs.push_back({edge_kind::larger, slot, s});
    if (const double s = smaller_scale(slot->type, m); s != 1.0) runs.push_back({edge_kind::smaller, slot, s});
  }
  if (any) {
    runs.push_back({edge_kind::specials, nullptr, 1.0});
    runs.push_back({edge_kind::ties, nullptr, 1.0});
  }
  return runs;
}

// The runs that show whether every element of each input matters, at any size: for each candidate input its
// spike runs, in growing magnitude (the procedure stops climbing once the reference's outputs move beyond
// the tolerance), then one family run over all of them. `seed`: the correctness run's. None when the case
// opted out of runs beyond its declared values, or has no candidate.
[[nodiscard]] inline std::vector<edge_run> spike_runs(const std::vector<const detail::buffer_slot*>& slots, bool case_allows,
                                                      std::uint64_t seed) {
  std::vector<edge_run> runs;
  if (!case_allows) return runs;
  bool any = false;
  for (std::size_t k = 0; k < slots.size(); ++k) {
    const detail::buffer_slot* slot = slots[k];
    if (!detail::edge_candidate(*slot)) continue;
    any = true;
    for (const double size : spike_sizes(slot->type, detail::declared_magnitude(slot->init))) {
      runs.push_back({edge_kind::spikes, slot, size, detail::mix_seed(seed ^ detail::mix_seed(0x5b1e + k))});
    }
  }
  if (any) runs.push_back({edge_kind::family, nullptr, 1.0});
  return runs;
}

// The case's tolerance of an output of type `t` at an edge where the reference's outputs grew `ratio` times
// (their RMS there over their RMS as declared): the absolute parts times the ratio, never below two of the
// type's smallest subnormals (a rounding in the subnormal range moves a value by one). Relative, ulp, cosine
// and L2 rules do not depend on the scale. (Where the reference is not finite, the edge check leaves the
// element out before the comparison: procedure/edge_check.hpp.)
[[nodiscard]] inline tolerance edge_tolerance(tolerance t, double ratio, dtype out) {
  if (!std::isfinite(ratio) || ratio <= 0.0) ratio = 1.0;
  const double floor = info(out).is_float ? 2.0 * special_values(out).values[2] : 0.0;
  for (element_rule& rule : t.element_rules) {
    if (rule.rule == element_rule::kind::within && rule.atol > 0.0) rule.atol = std::max(rule.atol * ratio, floor);
  }
  if (std::fabs(ratio - 1.0) > 1e-3) t.description += fmt::format(", absolute parts x{:.3g}", ratio);
  return t;
}

}  // namespace kbench
