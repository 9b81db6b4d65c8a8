// kbench/results/comparison_result.hpp: what comparing two arrays found (engines/comparison.hpp and
// engines/device_compare.hpp make it), as plain data, and how an element's index is written. HIP-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "../contract/tolerance.hpp"

namespace kbench {

struct mismatch {
  std::size_t index;
  double actual;
  double expected;
  double abs_error;
  double rel_error;
  bool never_written;  // the element still holds the poison pattern
};

// A place where the mismatches max_mismatch let through gather: a run of a row or of a column, or a tile,
// of the output seen as rows (its leading extents flattened) by columns (its last extent); a run of a
// 1-D output.
struct mismatch_cluster {
  std::string where;            // e.g. "rows 32..47, columns 64..79"
  std::size_t first_index = 0;  // of its first mismatch
  std::size_t mismatches = 0;
  std::size_t elements = 0;
  std::size_t threshold = 0;    // the fewest the allowance spread at random would practically never put there
};

// The mismatches max_mismatch let through, audited (engines/slack_audit.hpp): how far beyond the element
// rules they are (in multiples of the rules, the relative part at no less than the reference's RMS), and
// whether they gather.
struct slack_audit {
  std::size_t let_through = 0;        // finite mismatches within the allowance
  double bound = 0.0;                 // the tolerance's slack bound, in multiples (infinity: none)
  double worst_multiple = 0.0;        // the largest among them
  std::size_t worst_index = 0;
  std::size_t beyond_bound = 0;       // junk inside the slack
  std::size_t first_beyond_bound = 0;
  std::size_t clustered_places = 0;   // places holding at least their threshold
  double false_alarm = 0.0;           // the chance that the allowance spread at random reaches any threshold
  std::vector<mismatch_cluster> clusters;  // the densest few of them, densest first
};

// The signed errors summed over the whole output and over each row, against what an honest kernel leaves
// there (engines/bias_audit.hpp): the group that leans furthest toward its allowance.
struct bias_audit {
  std::size_t groups = 0;         // the whole output and the rows judged
  double allowance = 0.0;         // b: the relative lean allowed before the chance term
  std::string worst_where;        // "the whole output", "row 17", "row (2, 5)"
  bool worst_scale = false;       // it leans as a scale (toward each value's magnitude), not an offset
  double worst_bias = 0.0;        // its lean, summed, over its sum of |reference|
  double worst_allowed = 0.0;     // what it allowed, the same way
  double worst_ratio = 0.0;       // |lean| / allowed: above 1 fails
};

// What a comparison found. Counts and maxima cover every element; cosine and relative L2 cover the
// elements that are finite in both arrays.
struct comparison {
  bool passed = false;
  std::vector<std::string> reasons;  // one line each, the most telling first; empty when passed
  tolerance applied;

  std::size_t size = 0;
  std::size_t mismatches = 0;           // elements failing the element rules, NaN/Inf included
  std::size_t allowed_mismatches = 0;   // from max_mismatch
  std::size_t never_written = 0;        // elements of `actual` still holding the poison pattern
  std::size_t nonfinite_mismatches = 0; // NaN or Inf where the other side differs
  std::size_t nan_in_expected = 0;
  std::size_t nan_in_actual = 0;
  std::size_t first_never_written = 0;
  std::size_t first_nonfinite_mismatch = 0;
  std::size_t first_nan_in_expected = 0;

  double max_abs_error = 0.0;
  std::size_t max_abs_index = 0;
  double max_rel_error = 0.0;
  std::size_t max_rel_index = 0;
  double cosine_similarity = 1.0;
  double relative_l2_error = 0.0;
  std::size_t finite_pairs = 0;

  // Precision in units of the output dtype, over the finite pairs (integers: their difference): how many
  // are equal, 1 and 2 apart (the rest further), the most; and what the element rules allow where the
  // abs error is largest (infinity: no bound there; 0 for exact).
  std::size_t ulps_equal = 0;
  std::size_t ulps_one = 0;
  std::size_t ulps_two = 0;
  std::uint64_t max_ulps = 0;
  double allowed_at_max_abs = std::numeric_limits<double>::infinity();

  std::vector<mismatch> first_mismatches;  // in index order
  std::optional<slack_audit> slack;        // when max_mismatch let mismatches through
  std::optional<bias_audit> bias;          // floating-point outputs that passed the element rules
};

namespace detail {

// "12.5%" of a part of a whole (0% of nothing).
inline std::string percent(std::size_t part, std::size_t whole) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return buffer;
}

}  // namespace detail

// Formats a flat index as "(i, j, ...)" for the given extents, or "[i]" for one dimension.
[[nodiscard]] inline std::string format_index(std::size_t index, const std::vector<std::size_t>& extents) {
  if (extents.size() <= 1) return "[" + std::to_string(index) + "]";
  std::vector<std::size_t> coords(extents.size());
  for (std::size_t d = extents.size(); d-- > 0;) {
    const std::size_t e = extents[d] ? extents[d] : 1;
    coords[d] = index % e;
    index /= e;
  }
  std::string s = "(";
  for (std::size_t d = 0; d < coords.size(); ++d) s += (d ? ", " : "") + std::to_string(coords[d]);
  return s + ")";
}

}  // namespace kbench
