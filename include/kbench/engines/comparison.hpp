// kbench/engines/comparison.hpp: compares an output with its reference under a tolerance and says why it fails.
//
// One pass computes every metric a kernel engineer asks for (max abs and rel error with their indices,
// mismatch count, cosine similarity, relative L2 error, NaN/Inf bookkeeping, elements never written)
// and the verdict. The policies only decide; the metrics are always there for the report.
//
// HIP-free: see dtype.hpp.
#pragma once
// Marks the engine as included: tests/repository/contract_header_check.hip keeps it out of what test files include.
#define KBENCH_COMPARISON_ENGINE 1

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../contract/dtype.hpp"
#include "../contract/error.hpp"
#include "../contract/tolerance.hpp"
#include "../detail/parallel.hpp"
#include "../results/comparison_result.hpp"
#include "bias_audit.hpp"
#include "element_readers.hpp"
#include "slack_audit.hpp"
#include "tally.hpp"
#include "ulp.hpp"

namespace kbench {

// An array in host memory, read-only, with the shape the report uses to name indices.
struct array_view {
  const void* data = nullptr;
  dtype type = dtype::f32;
  std::size_t size = 0;
  std::vector<std::size_t> extents;  // row-major; empty means one dimension of `size`
};

struct compare_options {
  std::size_t mismatches_to_keep = 8;
  bool detect_poison = true;  // name elements that still hold the poison pattern
  bool audit_signs = true;    // the errors' signs (bias_audit.hpp); off where only the element rules are asked
};

namespace detail {

// What the element loop found over a range of elements: the tally, and the first mismatches in index
// order (ranges merge in index order, so the table stays the first ones).
struct partial_result {
  element_tally tally = element_tally::none();
  std::vector<mismatch> first_mismatches;
  std::vector<slack_entry> slack;  // every finite mismatch, when gathered for the slack audit

  void merge(const partial_result& later, std::size_t keep) {
    tally.merge(later.tally);
    for (const mismatch& m : later.first_mismatches) {
      if (first_mismatches.size() < keep) first_mismatches.push_back(m);
    }
    slack.insert(slack.end(), later.slack.begin(), later.slack.end());
  }
};

// The element loop over [begin, end) for an output read by A and a reference read by E (A, or fp64 for
// host references); with `gather_slack`, it also keeps every finite mismatch for the slack audit.
template <class A, class E>
partial_result compare_elements(const array_view& actual, const array_view& expected, const tolerance& tol,
                                const compare_options& options, std::size_t begin, std::size_t end, bool gather_slack) {
  using SA = typename A::storage;
  using SE = typename E::storage;
  constexpr bool same = std::is_same_v<A, E>;
  const auto* pa = static_cast<const SA*>(actual.data);
  const auto* pe = static_cast<const SE*>(expected.data);
  const SA poison = poison_as<SA>(actual.type);
  const bool detect_poison = options.detect_poison;
  const bool equal_nan = tol.equal_nan;
  const element_rule* rules = tol.element_rules.data();
  const std::size_t rule_count = tol.element_rules.size();
  constexpr double infinity = std::numeric_limits<double>::infinity();
  partial_result r;
  element_tally& t = r.tally;
  // The hot sums and maxima live in locals; the tally takes them at the end.
  double dot = 0.0, norm_a = 0.0, norm_e = 0.0, norm_diff = 0.0, max_abs = -1.0, max_rel = -1.0;
  signed_sums bias{0.0, 0.0, 0.0, 0.0};  // the tally's bias sums (its squares unused: norm_diff stands for them)
  const double counted_from = A::is_float ? smallest_normal(actual.type) : 0.0;
  std::uint64_t max_abs_index = no_index, max_rel_index = no_index;
  std::size_t mismatches = 0, finite_pairs = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const SA sa = pa[i];
    const SE se = pe[i];
    const double a = A::value(sa), e = E::value(se);
    bool identical;
    std::uint64_t int_diff = 0;
    if constexpr (!A::is_float && same) {
      identical = sa == se;  // integers as integers: exact beyond 2^53
      int_diff = sa > se ? static_cast<std::uint64_t>(sa) - static_cast<std::uint64_t>(se)
                         : static_cast<std::uint64_t>(se) - static_cast<std::uint64_t>(sa);
    } else {
      identical = a == e;
    }
    bool ok = true;
    // An element still holding the poison was never written, even where it would match (NaN vs NaN).
    const bool poisoned = detect_poison && sa == poison && !identical;
    if (poisoned && t.never_written++ == 0) t.first_never_written = i;
    double abs_err, rel_err;
    const bool finite_pair = std::isfinite(a) && std::isfinite(e);
    if (!finite_pair) {
      // Non-finite: a match only when identical (the same infinity) or both NaN under equal_nan.
      const bool nan_a = std::isnan(a), nan_e = std::isnan(e);
      if (nan_e && t.nan_expected++ == 0) t.first_nan_expected = i;
      if (nan_a) ++t.nan_actual;
      ok = identical || (nan_a && nan_e && equal_nan);
      abs_err = rel_err = ok ? 0.0 : infinity;
      if (!ok && t.nonfinite++ == 0) t.first_nonfinite = i;
    } else {
      abs_err = (!A::is_float && same) ? static_cast<double>(int_diff) : std::fabs(a - e);
      rel_err = abs_err == 0.0 ? 0.0 : (e == 0.0 ? infinity : abs_err / std::fabs(e));
      const std::uint64_t ulps = element_ulps<A, E>(sa, se, a, e, abs_err, int_diff, actual.type);
      t.count_ulps(ulps);
      ok = meets_rules(rules, rule_count, identical, abs_err, e, ulps);
      ++finite_pairs;
      dot += a * e;
      norm_a += a * a;
      norm_e += e * e;
      norm_diff += (a - e) * (a - e);
      if (A::is_float && ok && std::fabs(e) >= counted_from) bias.add(a, e);
    }
    // Strictly larger only: a tie keeps the earlier index.
    if (abs_err > max_abs) max_abs = abs_err, max_abs_index = i, t.max_abs_expected = e;
    if (rel_err > max_rel) max_rel = rel_err, max_rel_index = i;
    if (!ok) {
      if (r.first_mismatches.size() < options.mismatches_to_keep) {
        r.first_mismatches.push_back({i, a, e, abs_err, rel_err, poisoned});
      }
      ++mismatches;
      if (gather_slack && finite_pair) r.slack.push_back({i, a, e, abs_err});
    }
  }
  t.mismatches = mismatches;
  t.finite_pairs = finite_pairs;
  t.max_abs = max_abs, t.max_abs_index = max_abs_index;
  t.max_rel = max_rel, t.max_rel_index = max_rel_index;
  t.dot = dot, t.norm_a = norm_a, t.norm_e = norm_e, t.norm_diff = norm_diff;
  t.bias_error = bias.error, t.bias_toward = bias.toward, t.bias_magnitude = bias.magnitude;
  return r;
}

// Runs the element loop over fixed chunks of the output on every hardware thread, then merges the
// chunks in index order: the result does not depend on the number of threads.
template <class A>
partial_result compare_with(const array_view& actual, const array_view& expected, const tolerance& tol,
                            const compare_options& options, bool gather_slack) {
  using f64_reader = float_reader<std::uint64_t, dtype::f64>;
  auto run = [&](std::size_t begin, std::size_t end) {
    if (expected.type == actual.type) return compare_elements<A, A>(actual, expected, tol, options, begin, end, gather_slack);
    return compare_elements<A, f64_reader>(actual, expected, tol, options, begin, end, gather_slack);
  };
  constexpr std::size_t chunk = std::size_t{1} << 20;
  const std::size_t chunks = (actual.size + chunk - 1) / chunk;
  std::vector<partial_result> parts(chunks);
  parallel_for(chunks, [&](std::size_t c) { parts[c] = run(c * chunk, std::min(actual.size, (c + 1) * chunk)); });
  partial_result total = std::move(parts.front());
  for (std::size_t c = 1; c < chunks; ++c) total.merge(parts[c], options.mismatches_to_keep);
  return total;
}

inline partial_result dispatch_compare(const array_view& actual, const array_view& expected, const tolerance& tol,
                                       const compare_options& options, bool gather_slack = false) {
  return visit_dtype(actual.type, [&](auto d) {
    return compare_with<reader_of<decltype(d)::value>>(actual, expected, tol, options, gather_slack);
  });
}

// Audits what max_mismatch let through (slack_audit.hpp), when it let any through: a second pass over the
// elements gathers them, so the first keeps no more than its table, however many elements mismatch.
inline void audit_allowance(comparison& r, const array_view& actual, const array_view& expected, const tolerance& tol,
                            const element_tally& t) {
  const std::size_t let_through = r.mismatches - r.nonfinite_mismatches;
  if (tol.max_mismatch_fraction <= 0.0 || r.mismatches > r.allowed_mismatches || let_through == 0) return;
  compare_options quiet;
  quiet.mismatches_to_keep = 0;
  const partial_result gathered = dispatch_compare(actual, expected, tol, quiet, true);
  const double rms = t.finite_pairs ? std::sqrt(t.norm_e / static_cast<double>(t.finite_pairs)) : 0.0;
  audit_slack(r, gathered.slack, tol, actual.extents, actual.type, rms);
}

// The signed sums of each row (bias_audit.hpp), over the finite pairs whose reference is at least the
// output type's smallest normal and, where max_mismatch let some through (`tol` given), that meet the
// element rules: what the allowance let through is the slack audit's. A second pass, made only for a
// floating-point output that passed.
template <class A, class E>
std::vector<signed_sums> row_sums(const array_view& actual, const array_view& expected, std::size_t row_length,
                                  const tolerance* tol) {
  const auto* pa = static_cast<const typename A::storage*>(actual.data);
  const auto* pe = static_cast<const typename E::storage*>(expected.data);
  const double counted_from = smallest_normal(actual.type);
  std::vector<signed_sums> rows(actual.size / row_length, signed_sums{0.0, 0.0, 0.0, 0.0});
  auto counted = [&](std::size_t i, double a, double e) {
    if (!std::isfinite(a) || !std::isfinite(e) || std::fabs(e) < counted_from) return false;
    if (!tol) return true;
    const double abs_err = std::fabs(a - e);
    const std::uint64_t ulps = element_ulps<A, E>(pa[i], pe[i], a, e, abs_err, 0, actual.type);
    return meets_rules(tol->element_rules.data(), tol->element_rules.size(), a == e, abs_err, e, ulps);
  };
  // Tasks of whole rows, about 2^20 elements each (as compare_with's chunks): a small output is one task.
  const std::size_t per_task = std::max<std::size_t>(1, (std::size_t{1} << 20) / row_length);
  parallel_for((rows.size() + per_task - 1) / per_task, [&](std::size_t task) {
    for (std::size_t row = task * per_task; row < std::min(rows.size(), (task + 1) * per_task); ++row) {
      signed_sums s{0.0, 0.0, 0.0, 0.0};
      for (std::size_t i = row * row_length; i < (row + 1) * row_length; ++i) {
        const double a = A::value(pa[i]), e = E::value(pe[i]);
        if (counted(i, a, e)) s.add(a, e);
      }
      rows[row] = s;
    }
  });
  return rows;
}

// Audits the signs of a floating-point output's errors (bias_audit.hpp), when it passed the rest: one row (a
// one-dimensional output) from the element loop's tally, rows from a second pass.
inline void audit_signs(comparison& r, const array_view& actual, const array_view& expected, const tolerance& tol,
                        const element_tally& t) {
  if (!r.passed || !info(actual.type).is_float) return;
  const std::size_t row_length = audit_row_length(actual.size, actual.extents);
  if (row_length == actual.size) {
    audit_bias(r, {whole_output_sums(t)}, row_length, tol, actual.type, actual.extents);
    return;
  }
  const tolerance* matching_only = r.mismatches > 0 ? &tol : nullptr;
  const std::vector<signed_sums> rows = visit_dtype(actual.type, [&](auto d) {
    using A = reader_of<decltype(d)::value>;
    if constexpr (!A::is_float) {
      return std::vector<signed_sums>{};
    } else if (expected.type == actual.type) {
      return row_sums<A, A>(actual, expected, row_length, matching_only);
    } else {
      return row_sums<A, float_reader<std::uint64_t, dtype::f64>>(actual, expected, row_length, matching_only);
    }
  });
  audit_bias(r, rows, row_length, tol, actual.type, actual.extents);
}

// "24 of 33554432 elements (7.153e-05%) mismatch, 0 allowed (the first at (6102, 1426): 1.2e-05 where the
// reference has 3.4e-06); worst abs error ...": the first mismatch by value too, since the worst abs error is
// the whole output's, and under an ulp rule the mismatches may be far smaller (near zero, where a unit in the
// last place is tiny).
[[nodiscard]] inline std::string mismatch_reason(const comparison& r, const std::vector<std::size_t>& shape) {
  std::string first;
  if (!r.first_mismatches.empty()) {
    const mismatch& m = r.first_mismatches.front();
    first = " (the first at " + format_index(m.index, shape) + ": " + format_number(m.actual) + " where the reference has " +
            format_number(m.expected) + ")";
  }
  return std::to_string(r.mismatches) + " of " + std::to_string(r.size) + " elements (" + percent(r.mismatches, r.size) +
         ") mismatch, " + std::to_string(r.allowed_mismatches) + " allowed" + first + "; worst abs error " +
         format_number(r.max_abs_error) + " at " + format_index(r.max_abs_index, shape);
}

}  // namespace detail

// From the tally of an element loop (host or device): every count, first index and maximum, the cosine
// similarity, the relative L2 error, the reasons to fail and the verdict.
inline void finish_comparison(comparison& r, const tolerance& tol, const std::vector<std::size_t>& shape,
                              const element_tally& t) {
  auto index = [](std::uint64_t i) { return i == no_index ? std::size_t{0} : static_cast<std::size_t>(i); };
  r.mismatches = static_cast<std::size_t>(t.mismatches);
  r.never_written = static_cast<std::size_t>(t.never_written);
  r.nonfinite_mismatches = static_cast<std::size_t>(t.nonfinite);
  r.nan_in_expected = static_cast<std::size_t>(t.nan_expected);
  r.nan_in_actual = static_cast<std::size_t>(t.nan_actual);
  r.finite_pairs = static_cast<std::size_t>(t.finite_pairs);
  r.first_never_written = index(t.first_never_written);
  r.first_nonfinite_mismatch = index(t.first_nonfinite);
  r.first_nan_in_expected = index(t.first_nan_expected);
  r.max_abs_error = t.max_abs < 0.0 ? 0.0 : t.max_abs;
  r.max_abs_index = index(t.max_abs_index);
  r.max_rel_error = t.max_rel < 0.0 ? 0.0 : t.max_rel;
  r.max_rel_index = index(t.max_rel_index);
  r.ulps_equal = static_cast<std::size_t>(t.ulps_equal);
  r.ulps_one = static_cast<std::size_t>(t.ulps_one);
  r.ulps_two = static_cast<std::size_t>(t.ulps_two);
  r.max_ulps = t.max_ulps;
  for (const element_rule& rule : tol.element_rules) {
    const double bound = rule.rule == element_rule::kind::within ? rule.atol + rule.rtol * std::fabs(t.max_abs_expected)
                         : rule.rule == element_rule::kind::exact ? 0.0
                                                                 : std::numeric_limits<double>::infinity();
    r.allowed_at_max_abs = std::min(r.allowed_at_max_abs, bound);
  }
  const double dot = t.dot, norm_a = t.norm_a, norm_e = t.norm_e, norm_diff = t.norm_diff;
  // Aggregates over the finite pairs. Two zero vectors are identical (cosine 1); one zero vector
  // against a non-zero one has no direction in common (cosine 0).
  if (norm_a == 0.0 && norm_e == 0.0) {
    r.cosine_similarity = 1.0;
  } else if (norm_a == 0.0 || norm_e == 0.0) {
    r.cosine_similarity = 0.0;
  } else {
    r.cosine_similarity = dot / (std::sqrt(norm_a) * std::sqrt(norm_e));
  }
  if (norm_e == 0.0) {
    r.relative_l2_error = norm_diff == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  } else {
    r.relative_l2_error = std::sqrt(norm_diff) / std::sqrt(norm_e);
  }
  r.allowed_mismatches = static_cast<std::size_t>(std::floor(tol.max_mismatch_fraction * static_cast<double>(r.size)));

  if (r.nan_in_expected > 0 && !tol.equal_nan) {
    r.reasons.push_back("the reference holds " + std::to_string(r.nan_in_expected) + " NaN (first at " +
                        format_index(r.first_nan_in_expected, shape) +
                        "): fix the reference, or add tol::equal_nan if NaN is the expected result");
  }
  if (r.never_written > 0) {
    // None written and no error reported: a launch that never ran, its error lost on the way (a launch over a
    // limit that the launcher checked and dropped) or never raised.
    const bool none = r.never_written == r.size;
    r.reasons.push_back(std::to_string(r.never_written) + " of " + std::to_string(r.size) + " elements (" +
                        detail::percent(r.never_written, r.size) + ") were never written (first at " +
                        format_index(r.first_never_written, shape) + ")" +
                        (none ? ": the kernel did not run, or did not write this output (a launch the runtime "
                                "refused, over a limit, whose error the launcher did not pass on, leaves this)"
                              : ""));
  }
  if (r.nonfinite_mismatches > r.never_written) {
    r.reasons.push_back(std::to_string(r.nonfinite_mismatches) + " elements are NaN or Inf where the other side " +
                        "differs (first at " + format_index(r.first_nonfinite_mismatch, shape) + ")");
  }
  if (r.mismatches > r.allowed_mismatches) r.reasons.push_back(detail::mismatch_reason(r, shape));
  if (tol.min_cosine && !(r.cosine_similarity >= *tol.min_cosine)) {
    r.reasons.push_back("cosine similarity " + detail::format_number(r.cosine_similarity) + " < " +
                        detail::format_number(*tol.min_cosine));
  }
  if (tol.max_relative_l2 && !(r.relative_l2_error <= *tol.max_relative_l2)) {
    r.reasons.push_back("relative L2 error " + detail::format_number(r.relative_l2_error) + " > " +
                        detail::format_number(*tol.max_relative_l2));
  }
  // NaN/Inf mismatches and unwritten elements always have a reason above: no allowance covers them.
  r.passed = r.reasons.empty();
}

// Compares `actual` with `expected` under `tol`. `expected` has the dtype of `actual`, or is fp64 (a
// host reference). Bad input (size mismatch, empty arrays, missing data, an unusable tolerance) fails the
// comparison with a reason; it never passes.
[[nodiscard]] inline comparison compare(const array_view& actual, const array_view& expected, const tolerance& tol,
                                        const compare_options& options = {}) {
  comparison r;
  r.applied = tol;
  r.size = actual.size;
  auto fail = [&r](std::string reason) {
    r.passed = false;
    r.reasons.push_back(std::move(reason));
    return r;
  };
  try {
    validate(tol);
  } catch (const usage_error& e) {
    return fail(e.what());
  }
  if (actual.size != expected.size) {
    return fail("size mismatch: output has " + std::to_string(actual.size) + " elements, reference " +
                std::to_string(expected.size));
  }
  if (actual.size == 0) return fail("empty output: there is nothing to compare, so nothing would be tested");
  if (actual.data == nullptr || expected.data == nullptr) {
    return fail(std::string("null data: the ") + (actual.data ? "reference" : "output") + " has no buffer");
  }
  if (expected.type != actual.type && expected.type != dtype::f64) {
    return fail(std::string("dtype mismatch: output is ") + std::string(info(actual.type).name) + ", reference " +
                std::string(info(expected.type).name) + " (a reference must have the output's dtype or be fp64)");
  }

  detail::partial_result p = detail::dispatch_compare(actual, expected, tol, options);
  r.first_mismatches = std::move(p.first_mismatches);
  finish_comparison(r, tol, actual.extents, p.tally);
  detail::audit_allowance(r, actual, expected, tol, p.tally);
  if (options.audit_signs) detail::audit_signs(r, actual, expected, tol, p.tally);
  return r;
}

}  // namespace kbench
