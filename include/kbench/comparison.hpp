// kbench/comparison.hpp: compares an output with its reference under a tolerance and says why it fails.
//
// One pass computes every metric a kernel engineer asks for (max abs and rel error with their indices,
// mismatch count, cosine similarity, relative L2 error, NaN/Inf bookkeeping, elements never written)
// and the verdict. The policies only decide; the metrics are always there for the report.
//
// HIP-free: see dtype.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "dtype.hpp"
#include "error.hpp"
#include "tolerance.hpp"

namespace kbench {

// An array in host memory, read-only, with the shape the report uses to name indices.
struct array_view {
  const void* data = nullptr;
  dtype type = dtype::f32;
  std::size_t size = 0;
  std::vector<std::size_t> extents;  // row-major; empty means one dimension of `size`
};

struct mismatch {
  std::size_t index;
  double actual;
  double expected;
  double abs_error;
  double rel_error;
  bool never_written;  // the element still holds the poison pattern
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

  std::vector<mismatch> first_mismatches;  // in index order
};

struct compare_options {
  std::size_t mismatches_to_keep = 8;
  bool detect_poison = true;  // name elements that still hold the poison pattern
};

namespace detail {

// Position of a float among the representable values, sign-magnitude to a single signed ordering in
// which -0 and +0 coincide; the distance of two positions is their distance in ulps.
inline std::uint64_t float_magnitude_bits(double v, dtype t) noexcept {
  switch (t) {
    case dtype::f64: {
      std::uint64_t b;
      std::memcpy(&b, &v, 8);
      return b & 0x7FFFFFFFFFFFFFFFull;
    }
    case dtype::f32: {
      const float f = static_cast<float>(v);
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      return b & 0x7FFFFFFFu;
    }
    case dtype::f16: return double_to_fp16(v) & 0x7FFFu;
    case dtype::bf16: return double_to_bf16(v) & 0x7FFFu;
    default: return 0;
  }
}

// ulps between two finite values in the float format t (values are rounded to t first).
inline std::uint64_t ulp_distance(double a, double b, dtype t) noexcept {
  const std::uint64_t ma = float_magnitude_bits(a, t), mb = float_magnitude_bits(b, t);
  const bool na = std::signbit(a) && ma != 0, nb = std::signbit(b) && mb != 0;
  if (na == nb) return ma > mb ? ma - mb : mb - ma;
  return ma + mb;  // opposite signs: through zero
}

template <class T>
T read(const void* data, std::size_t i) noexcept {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(data) + i * sizeof(T), sizeof(T));
  return v;
}

// Compares element i of two integer arrays of type t as integers (exact for 64-bit values too): returns
// whether they are equal and sets diff to their distance.
inline bool integer_pair(const void* a, const void* b, dtype t, std::size_t i, std::uint64_t& diff) noexcept {
  auto signed_diff = [&](auto zero) {
    using I = decltype(zero);
    const auto x = static_cast<std::int64_t>(read<I>(a, i)), y = static_cast<std::int64_t>(read<I>(b, i));
    diff = x > y ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)
                 : static_cast<std::uint64_t>(y) - static_cast<std::uint64_t>(x);
    return x == y;
  };
  auto unsigned_diff = [&](auto zero) {
    using U = decltype(zero);
    const auto x = static_cast<std::uint64_t>(read<U>(a, i)), y = static_cast<std::uint64_t>(read<U>(b, i));
    diff = x > y ? x - y : y - x;
    return x == y;
  };
  switch (t) {
    case dtype::i8: return signed_diff(std::int8_t{});
    case dtype::i16: return signed_diff(std::int16_t{});
    case dtype::i32: return signed_diff(std::int32_t{});
    case dtype::i64: return signed_diff(std::int64_t{});
    case dtype::u8: return unsigned_diff(std::uint8_t{});
    case dtype::u16: return unsigned_diff(std::uint16_t{});
    case dtype::u32: return unsigned_diff(std::uint32_t{});
    case dtype::u64: return unsigned_diff(std::uint64_t{});
    default: return false;
  }
}

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

  const dtype out_t = actual.type;
  const dtype_info out_info = info(out_t);
  const bool same_type = expected.type == out_t;
  const bool same_integer = same_type && !out_info.is_float;

  double dot = 0.0, norm_a = 0.0, norm_e = 0.0, norm_diff = 0.0;
  for (std::size_t i = 0; i < actual.size; ++i) {
    std::uint64_t int_diff = 0;
    bool identical;
    double a, e;
    if (same_integer) {
      identical = detail::integer_pair(actual.data, expected.data, out_t, i, int_diff);
      a = load_as_double(actual.data, out_t, i);
      e = load_as_double(expected.data, out_t, i);
    } else {
      a = load_as_double(actual.data, out_t, i);
      e = load_as_double(expected.data, expected.type, i);
      identical = (a == e);
      int_diff = (!out_info.is_float && std::isfinite(e)) ? static_cast<std::uint64_t>(std::fabs(a - e)) : 0;
    }
    const bool nan_a = std::isnan(a), nan_e = std::isnan(e);
    const bool poisoned = options.detect_poison && holds_poison(actual.data, out_t, i) && !identical;
    if (nan_e && r.nan_in_expected++ == 0) r.first_nan_in_expected = i;
    if (nan_a) ++r.nan_in_actual;
    if (poisoned && r.never_written++ == 0) r.first_never_written = i;

    bool ok;
    double abs_err, rel_err;
    if (nan_a || nan_e || std::isinf(a) || std::isinf(e)) {
      // Non-finite: a match only when identical (same infinity) or both NaN under equal_nan.
      ok = identical || (nan_a && nan_e && tol.equal_nan);
      abs_err = ok ? 0.0 : std::numeric_limits<double>::infinity();
      rel_err = abs_err;
      if (!ok && r.nonfinite_mismatches++ == 0) r.first_nonfinite_mismatch = i;
    } else {
      abs_err = same_integer ? static_cast<double>(int_diff) : std::fabs(a - e);
      rel_err = abs_err == 0.0 ? 0.0 : (e == 0.0 ? std::numeric_limits<double>::infinity() : abs_err / std::fabs(e));
      ok = true;
      for (const element_rule& rule : tol.element_rules) {
        switch (rule.rule) {
          case element_rule::kind::exact: ok = ok && identical; break;
          case element_rule::kind::within: ok = ok && abs_err <= rule.atol + rule.rtol * std::fabs(e); break;
          case element_rule::kind::ulp: {
            const std::uint64_t d = out_info.is_float ? detail::ulp_distance(a, e, out_t)
                                                      : (same_integer ? int_diff : static_cast<std::uint64_t>(abs_err));
            ok = ok && d <= rule.max_ulps;
            break;
          }
        }
      }
      ++r.finite_pairs;
      dot += a * e;
      norm_a += a * a;
      norm_e += e * e;
      norm_diff += (a - e) * (a - e);
    }
    // NaN compares false, so the `!(x <= max)` form lets a first infinite error register too.
    if (!(abs_err <= r.max_abs_error)) {
      r.max_abs_error = abs_err;
      r.max_abs_index = i;
    }
    if (!(rel_err <= r.max_rel_error)) {
      r.max_rel_error = rel_err;
      r.max_rel_index = i;
    }
    if (!ok) {
      if (r.first_mismatches.size() < options.mismatches_to_keep) {
        r.first_mismatches.push_back({i, a, e, abs_err, rel_err, poisoned});
      }
      ++r.mismatches;
    }
  }

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
  r.allowed_mismatches =
      static_cast<std::size_t>(std::floor(tol.max_mismatch_fraction * static_cast<double>(actual.size)));

  const std::vector<std::size_t>& shape = actual.extents;
  if (r.nan_in_expected > 0 && !tol.equal_nan) {
    r.reasons.push_back("the reference holds " + std::to_string(r.nan_in_expected) + " NaN (first at " +
                        format_index(r.first_nan_in_expected, shape) +
                        "): fix the reference, or add tol::equal_nan if NaN is the expected result");
  }
  if (r.never_written > 0) {
    r.reasons.push_back(std::to_string(r.never_written) + " of " + std::to_string(r.size) + " elements (" +
                        detail::percent(r.never_written, r.size) + ") were never written (first at " +
                        format_index(r.first_never_written, shape) + ")");
  }
  if (r.nonfinite_mismatches > r.never_written) {
    r.reasons.push_back(std::to_string(r.nonfinite_mismatches) + " elements are NaN or Inf where the other side " +
                        "differs (first at " + format_index(r.first_nonfinite_mismatch, shape) + ")");
  }
  if (r.mismatches > r.allowed_mismatches) {
    r.reasons.push_back(std::to_string(r.mismatches) + " of " + std::to_string(r.size) + " elements (" +
                        detail::percent(r.mismatches, r.size) + ") mismatch, " +
                        std::to_string(r.allowed_mismatches) + " allowed; worst abs error " +
                        detail::format_number(r.max_abs_error) + " at " + format_index(r.max_abs_index, shape));
  }
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
  return r;
}

}  // namespace kbench
