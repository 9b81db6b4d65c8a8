// kbench/engines/slack_audit.hpp: the audit of what tol::max_mismatch lets through. An allowance is there
// for a correct kernel's rare outliers; it must not become room for junk. So the mismatches inside it must
//   - stay near: each within the tolerance's slack bound (default 10) times the element rules, the relative
//     part measured at no less than the reference's RMS, so that a sum cancelling to near zero is judged at
//     the size of its terms, where its rounding error lives; junk is off by about the output's own size;
//   - stay scattered: no run of a row, run of a column or tile holds more of them than the allowance spread
//     at random would put in any of them with probability 1e-6 (a binomial tail, spread over every place
//     looked at). A skipped row, tile or tail gathers them; rounding outliers of i.i.d. inputs do not.
// The host engine (comparison.hpp) runs it whenever mismatches are within the allowance; the device engine's
// result is used only when there is no mismatch at all, so it never needs it. HIP-free: see dtype.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../contract/dtype.hpp"
#include "../contract/tolerance.hpp"
#include "../results/comparison_result.hpp"
#include "ulp.hpp"

namespace kbench {
namespace detail {

// A mismatch within the allowance, finite on both sides, as the element loop gathers it (in index order).
struct slack_entry {
  std::size_t index;
  double actual;
  double expected;
  double abs_error;
};

// The chance, over a whole output, that an honest allowance spread at random is taken for a cluster.
inline constexpr double cluster_false_alarm = 1e-6;
// Runs of rows and columns this long, tiles this wide: a tile of a GEMM or attention kernel, a row's work
// for a block; longer runs would drown a skipped tile in its row's honest share.
inline constexpr std::size_t cluster_run = 256;
inline constexpr std::size_t cluster_tile = 16;
// Clusters kept in the result (all are counted).
inline constexpr std::size_t clusters_kept = 4;

// The width of the narrowest element rule at `magnitude`: within: atol + rtol * magnitude; ulp: max_ulps
// steps of the dtype there; exact, or a rule of zero width: one step (integers: 1).
inline double rule_width(const tolerance& tol, double magnitude, dtype type) {
  const double step = ulp_size(magnitude, type);
  double width = std::numeric_limits<double>::infinity();
  for (const element_rule& rule : tol.element_rules) {
    double w = 0.0;
    if (rule.rule == element_rule::kind::within) w = rule.atol + rule.rtol * magnitude;
    if (rule.rule == element_rule::kind::ulp) w = static_cast<double>(rule.max_ulps) * step;
    width = std::min(width, w > 0.0 ? w : step);
  }
  return width;
}

// The fewest of n elements that a share p (0 < p < 1) of mismatches spread at random puts there with
// probability at most alpha: the smallest t with P(Binomial(n, p) >= t) <= alpha; n + 1 when none can.
inline std::size_t binomial_threshold(std::size_t n, double p, double alpha) {
  const double log_p = std::log(p), log_q = std::log1p(-p), log_n = std::lgamma(static_cast<double>(n) + 1.0);
  double tail = 0.0;
  for (std::size_t k = n + 1; k-- > 0;) {
    const double kd = static_cast<double>(k), rest = static_cast<double>(n - k);
    tail += std::exp(log_n - std::lgamma(kd + 1.0) - std::lgamma(rest + 1.0) + kd * log_p + rest * log_q);
    if (tail > alpha) return k + 1;
  }
  return 0;
}

// The output as `rows` by `cols` (1-D: one row), cut into places of `height` x `width` elements.
struct place_grid {
  std::size_t rows, cols, height, width;
  bool one_dimensional;

  [[nodiscard]] std::size_t across() const { return (cols + width - 1) / width; }
  [[nodiscard]] std::size_t count() const { return (rows + height - 1) / height * across(); }
  [[nodiscard]] std::size_t of(std::size_t index) const {
    return index / cols / height * across() + index % cols / width;
  }
  [[nodiscard]] std::size_t elements(std::size_t place) const {
    const std::size_t r0 = place / across() * height, c0 = place % across() * width;
    return std::min(height, rows - r0) * std::min(width, cols - c0);
  }
  [[nodiscard]] std::string where(std::size_t place) const {
    const std::size_t r0 = place / across() * height, c0 = place % across() * width;
    const std::size_t r1 = std::min(rows, r0 + height) - 1, c1 = std::min(cols, c0 + width) - 1;
    auto span = [](const char* one, const char* many, std::size_t a, std::size_t b) {
      return a == b ? std::string(one) + " " + std::to_string(a)
                    : std::string(many) + " " + std::to_string(a) + ".." + std::to_string(b);
    };
    if (one_dimensional) return span("element", "elements", c0, c1);
    return span("row", "rows", r0, r1) + ", " + span("column", "columns", c0, c1);
  }
};

// The grids looked at: runs of rows, runs of columns and tiles; for a 1-D output (or one row, or one
// column), runs along it.
inline std::vector<place_grid> cluster_grids(const std::vector<std::size_t>& extents, std::size_t size) {
  const std::size_t cols = extents.size() >= 2 && extents.back() > 0 ? extents.back() : size;
  const std::size_t rows = (size + cols - 1) / cols;
  if (extents.size() < 2 || rows == 1) return {{rows, cols, 1, cluster_run, extents.size() < 2}};
  if (cols == 1) return {{rows, cols, cluster_run, 1, false}};
  return {{rows, cols, 1, cluster_run, false}, {rows, cols, cluster_run, 1, false}, {rows, cols, cluster_tile, cluster_tile, false}};
}

// Every place of every grid holding at least its threshold of the entries; the audit's count and its
// densest few.
inline void find_clusters(slack_audit& audit, const std::vector<slack_entry>& entries, double share,
                          const std::vector<std::size_t>& extents, std::size_t size) {
  const std::vector<place_grid> grids = cluster_grids(extents, size);
  std::size_t places = 0;
  for (const place_grid& g : grids) places += g.count();
  const double alpha = cluster_false_alarm / static_cast<double>(places);
  std::map<std::size_t, std::size_t> thresholds;  // by elements
  std::vector<mismatch_cluster> found;
  for (const place_grid& g : grids) {
    std::vector<std::pair<std::size_t, std::size_t>> keyed;  // (place, index), indices ascending
    keyed.reserve(entries.size());
    for (const slack_entry& e : entries) keyed.emplace_back(g.of(e.index), e.index);
    if (!std::is_sorted(keyed.begin(), keyed.end())) std::sort(keyed.begin(), keyed.end());  // runs of rows: sorted
    for (std::size_t i = 0, j = 0; i < keyed.size(); i = j) {
      while (j < keyed.size() && keyed[j].first == keyed[i].first) ++j;
      const std::size_t n = g.elements(keyed[i].first);
      auto known = thresholds.find(n);
      if (known == thresholds.end()) {  // one mismatch alone is never a cluster
        known = thresholds.emplace(n, std::max<std::size_t>(2, binomial_threshold(n, share, alpha))).first;
      }
      if (j - i < known->second) continue;
      ++audit.clustered_places;
      found.push_back({g.where(keyed[i].first), keyed[i].second, j - i, n, known->second});
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const mismatch_cluster& a, const mismatch_cluster& b) {
    return static_cast<double>(a.mismatches) / static_cast<double>(a.elements) >
           static_cast<double>(b.mismatches) / static_cast<double>(b.elements);
  });
  if (found.size() > clusters_kept) found.resize(clusters_kept);
  audit.clusters = std::move(found);
}

// How far beyond the element rules each entry is, in multiples of the rules at max(|expected|, rms).
// Returns the first entry beyond the bound (null: none).
inline const slack_entry* check_bound(slack_audit& audit, const std::vector<slack_entry>& entries,
                                      const tolerance& tol, dtype type, double reference_rms) {
  const slack_entry* first = nullptr;
  for (const slack_entry& e : entries) {
    const double multiple = e.abs_error / rule_width(tol, std::max(std::fabs(e.expected), reference_rms), type);
    if (multiple > audit.worst_multiple) audit.worst_multiple = multiple, audit.worst_index = e.index;
    if (multiple > tol.slack_bound && audit.beyond_bound++ == 0) first = &e;
  }
  if (first) audit.first_beyond_bound = first->index;
  return first;
}

}  // namespace detail

// Audits the mismatches within the allowance (`entries`: every finite one, in index order) of a comparison
// `r` of an output of `extents` and `type` whose reference has RMS `reference_rms` (over its finite
// elements): records r.slack, and fails r with a reason for junk beyond the bound and for each kind of
// finding of clusters.
inline void audit_slack(comparison& r, const std::vector<detail::slack_entry>& entries, const tolerance& tol,
                        const std::vector<std::size_t>& extents, dtype type, double reference_rms) {
  slack_audit audit;
  audit.let_through = entries.size();
  audit.bound = tol.slack_bound;
  audit.false_alarm = tol.slack_may_cluster ? 0.0 : detail::cluster_false_alarm;
  const detail::slack_entry* junk = detail::check_bound(audit, entries, tol, type, reference_rms);
  if (!tol.slack_may_cluster) detail::find_clusters(audit, entries, tol.max_mismatch_fraction, extents, r.size);
  const std::string allowance = detail::format_number(100.0 * tol.max_mismatch_fraction) + "% allowance";
  if (junk) {
    r.reasons.push_back(
        std::to_string(audit.beyond_bound) + " of the " + std::to_string(audit.let_through) + " mismatches inside the " +
        allowance + " are off by more than " + detail::format_number(audit.bound) +
        "x the element rules: junk inside the slack (first at " + format_index(junk->index, extents) + ": " +
        detail::format_number(junk->actual) + " for " + detail::format_number(junk->expected) + "; worst " +
        detail::format_number(audit.worst_multiple) + "x at " + format_index(audit.worst_index, extents) + ")");
  }
  if (!audit.clusters.empty()) {
    const mismatch_cluster& c = audit.clusters.front();
    r.reasons.push_back("mismatches inside the " + allowance + " cluster in " + c.where + ": " +
                        std::to_string(c.mismatches) + " of its " + std::to_string(c.elements) +
                        " elements (first at " + format_index(c.first_index, extents) + "); spread at random, the " +
                        "allowance would put " + std::to_string(c.threshold) + " or more in any place of the output " +
                        "with a chance below " + detail::format_number(detail::cluster_false_alarm) + " (" +
                        std::to_string(audit.clustered_places) +
                        (audit.clustered_places == 1 ? " such place" : " such places") + " in all)");
  }
  r.slack = std::move(audit);
  r.passed = r.reasons.empty();
}

}  // namespace kbench
