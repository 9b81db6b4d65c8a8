// kbench/engines/bias_audit.hpp: error inside the tolerance, but all one way. An element rule bounds each
// element's error and cannot see its sign: a softmax whose rows sum to 1.03 passes when each probability's
// 3% is below atol, and so does an output scaled by 1 + 2 rtol where atol dominates. Honest differences
// (another rounding, another order of a sum) scatter around zero; a wrong formula, a dropped term or a
// stale scale leans one way. So the errors d = actual - expected are summed two ways, over the whole output
// and over each row (its last extent, for outputs of two or more): as they are (an offset: sum d), and
// toward each reference value's magnitude (a scale: sum d sign(expected), which an offset-free scale of an
// output of both signs leaves at zero in the first sum), and each sum is held to what an honest kernel
// leaves there:
//
//   |sum| <= b * sum|expected| + 8 sqrt(sum d^2)
//   b = the tolerance's relative part + 2^-p + 4 sqrt(L) 2^-23
//
// - the tolerance's relative part: a bias up to rtol is allowed in each element, so in their sum (the
//   smallest among the rules: rtol, or an ulp rule's ulps at 2^-p; the relative L2 bound where there is
//   no element rule; 0 for exact);
// - 2^-p, one unit in the last place at the bottom of a binade of the output type (p its fraction bits):
//   more than any rounding of the result to that type leans, truncation included;
// - 4 sqrt(L) 2^-23: a reduction over a row of L elements in fp32 (2^-52 for fp64 outputs) in another
//   order leans the whole row by about sqrt(L) units of the accumulator (L = 1 for a one-dimensional
//   output, whose elements share no statistic);
// - 8 sqrt(sum d^2): errors of random sign sum to about the root of their squares, so eight of it is
//   never reached by chance (over a million rows, p < 1e-9), and a row of few elements is never judged
//   on its sum alone.
// Elements whose reference is below the output type's smallest normal are left out (flushing subnormals to
// zero is honest and leans every one of them toward zero), and so is any pair that is not finite, and any
// element that max_mismatch let through (the slack audit judges those: slack_audit.hpp).
// The host engine (comparison.hpp) and the device engine (device_compare.hpp) gather the sums; this
// judges them. HIP-free: see dtype.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "../contract/dtype.hpp"
#include "../contract/tolerance.hpp"
#include "../detail/host_device.hpp"
#include "../results/comparison_result.hpp"
#include "tally.hpp"

namespace kbench {
namespace detail {

// The signed errors of a group of elements, summed: d = actual - expected over the counted pairs.
struct signed_sums {
  double error;      // sum d: an offset
  double toward;     // sum d sign(expected): a scale
  double magnitude;  // sum |expected|
  double squared;    // sum d^2
  KBENCH_HOST_DEVICE void add(double actual, double expected) {
    const double d = actual - expected;
    error += d;
    toward += expected < 0 ? -d : d;
    magnitude += expected < 0 ? -expected : expected;
    squared += d * d;
  }
  KBENCH_HOST_DEVICE void add(const signed_sums& o) {
    error += o.error;
    toward += o.toward;
    magnitude += o.magnitude;
    squared += o.squared;
  }
};

// The whole output's sums as an element loop tallies them (tally.hpp), the root of their squares from every
// finite pair (a bound no smaller than the counted pairs' alone).
[[nodiscard]] inline signed_sums whole_output_sums(const element_tally& t) {
  return {t.bias_error, t.bias_toward, t.bias_magnitude, t.norm_diff};
}

// Rows as the audit sees an output: its last extent when it has two or more, else one row of it all.
[[nodiscard]] inline std::size_t audit_row_length(std::size_t size, const std::vector<std::size_t>& extents) {
  if (extents.size() < 2 || extents.back() == 0 || size % extents.back() != 0) return size;
  return extents.back();
}

// The tolerance's relative part (the header says which).
[[nodiscard]] inline double relative_part(const tolerance& tol, dtype t) {
  const double unit = std::ldexp(1.0, -info(t).mantissa_bits);
  double smallest = std::numeric_limits<double>::infinity();
  for (const element_rule& r : tol.element_rules) {
    switch (r.rule) {
      case element_rule::kind::exact: smallest = 0.0; break;
      case element_rule::kind::within: smallest = std::fmin(smallest, r.rtol); break;
      case element_rule::kind::ulp: smallest = std::fmin(smallest, static_cast<double>(r.max_ulps) * unit); break;
    }
  }
  if (std::isinf(smallest)) smallest = tol.max_relative_l2.value_or(0.0);
  return smallest;
}

// b of the header, for rows of `row_length` elements of type t.
[[nodiscard]] inline double bias_allowance(const tolerance& tol, dtype t, std::size_t row_length) {
  const double accumulator = std::ldexp(1.0, t == dtype::f64 ? -52 : -23);
  return relative_part(tol, t) + std::ldexp(1.0, -info(t).mantissa_bits) +
         4.0 * std::sqrt(static_cast<double>(row_length)) * accumulator;
}

inline constexpr double bias_chance_multiple = 8.0;

// Judges the whole output and each of `rows` (their sums, in order; one row: the whole output alone).
// Records the audit in r.bias and, where a sum leans beyond its allowance, fails r with the reason.
inline void audit_bias(comparison& r, const std::vector<signed_sums>& rows, std::size_t row_length, const tolerance& tol,
                       dtype t, const std::vector<std::size_t>& extents) {
  if (!info(t).is_float || rows.empty()) return;
  // A one-dimensional output has no rows whose shared statistic could lean: each element's errors are its own.
  const double b = bias_allowance(tol, t, rows.size() > 1 ? row_length : 1);
  bias_audit audit;
  audit.allowance = b;
  audit.worst_ratio = -1.0;
  auto judge = [&](const signed_sums& s, auto&& where) {
    if (s.magnitude <= 0.0) return;
    ++audit.groups;
    const double allowed = b * s.magnitude + bias_chance_multiple * std::sqrt(s.squared);
    const bool scale = std::fabs(s.toward) > std::fabs(s.error);  // the way it leans further
    const double lean = scale ? s.toward : s.error;
    const double ratio = allowed > 0.0 ? std::fabs(lean) / allowed : (lean == 0.0 ? 0.0 : HUGE_VAL);
    if (ratio <= audit.worst_ratio) return;
    audit.worst_ratio = ratio;
    audit.worst_where = where();
    audit.worst_scale = scale;
    audit.worst_bias = lean / s.magnitude;
    audit.worst_allowed = allowed / s.magnitude;
  };
  signed_sums whole{0.0, 0.0, 0.0, 0.0};
  for (const signed_sums& row : rows) whole.add(row);
  judge(whole, [] { return std::string("the whole output"); });
  if (rows.size() > 1) {
    const std::vector<std::size_t> leading(extents.begin(), extents.end() - 1);  // a row's place
    for (std::size_t k = 0; k < rows.size(); ++k) {
      judge(rows[k], [&] {
        const std::string at = format_index(k, leading);
        return "row " + (leading.size() == 1 ? at.substr(1, at.size() - 2) : at);
      });
    }
  }
  audit.worst_ratio = std::fmax(audit.worst_ratio, 0.0);
  if (audit.worst_ratio > 1.0) {
    r.passed = false;
    const std::string lean = detail::format_number(100.0 * audit.worst_bias) + "%";
    r.reasons.push_back(
        "the errors lean one way: over " + audit.worst_where +
        (audit.worst_scale ? " they scale the reference's magnitudes by " + lean
                           : " they sum to " + lean + " of the reference's magnitude (sum of |reference|)") +
        ", where rounding, the order of a sum and the tolerance's relative part allow " +
        detail::format_number(100.0 * audit.worst_allowed) +
        "%: each element may be within the tolerance, but together they are biased");
  }
  r.bias = audit;
}

}  // namespace detail
}  // namespace kbench
