// kbench/contract/tolerance.hpp: tolerance policies, composable with &&, lowered to one plain description that
// the comparison engine applies.
//
//   c.tolerance(kbench::tol::allclose{1e-3, 1e-5});                                  // elementwise
//   c.tolerance(kbench::tol::allclose{1e-2, 1e-2} && kbench::tol::max_mismatch{0.05}); // aiter style
//   c.tolerance(kbench::tol::ulp{2} && kbench::tol::cosine{0.999});
//
// Rules every policy obeys (and the unit tests check): NaN never matches unless tol::equal_nan is part of
// the policy; an infinity matches only the same infinity; -0 equals +0; every parameter must be finite
// and non-negative, or kbench::usage_error is thrown when the policy is applied.
//
// HIP-free: see dtype.hpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "dtype.hpp"
#include "error.hpp"

namespace kbench {

// One elementwise rule. An element passes when it satisfies every rule of the tolerance.
struct element_rule {
  enum class kind : std::uint8_t {
    exact,   // actual == expected (integers compared as integers, floats as values: -0 == +0)
    within,  // |actual - expected| <= atol + rtol * |expected|
    ulp,     // distance in units in the last place of the output's dtype <= max_ulps
  };
  kind rule = kind::exact;
  double atol = 0.0;
  double rtol = 0.0;
  std::uint64_t max_ulps = 0;
};

// The default of max_mismatch's bound: what an element it lets through may be off by, in multiples of the
// element rules. A rounding outlier of a correct kernel (an fp8/bf16 value one code away, a sum in another
// order) is a few times the rule; junk (a stale, zero or skipped value) is about the output's own size.
inline constexpr double default_slack_bound = 10.0;

// What a comparison applies, as plain data: the engine is not a template, and results can record it.
struct tolerance {
  std::vector<element_rule> element_rules;  // all must hold for an element to match
  bool equal_nan = false;                   // NaN in both actual and expected counts as a match
  double max_mismatch_fraction = 0.0;       // share of elements that may fail the element rules
  // What that share lets through must stay near and scattered: each element within slack_bound times the
  // element rules (infinity: any value), and no row, column or tile holding more of them than the share
  // spread at random would (unless slack_may_cluster). engines/slack_audit.hpp checks both.
  double slack_bound = default_slack_bound;
  bool slack_may_cluster = false;
  std::optional<double> min_cosine;         // cosine similarity of the finite elements
  std::optional<double> max_relative_l2;    // ||actual - expected|| / ||expected||
  std::string description;                  // e.g. "allclose(rtol=0.001, atol=1e-05) && cosine(>=0.99)"
};

namespace detail {

inline std::string format_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

inline void append_description(tolerance& t, const std::string& part) {
  if (!t.description.empty()) t.description += " && ";
  t.description += part;
}

inline void require_non_negative(double value, const char* what) {
  if (!std::isfinite(value) || value < 0.0) {
    throw usage_error(std::string("tolerance: ") + what + " must be finite and >= 0, got " + format_number(value));
  }
}

}  // namespace detail

namespace tol {

// Marks a type as a tolerance policy for operator&& and kernel_case::tolerance().
struct policy {};

struct exact : policy {
  void apply(tolerance& t) const {
    t.element_rules.push_back({element_rule::kind::exact});
    detail::append_description(t, "exact");
  }
};

struct absolute : policy {
  double atol;
  explicit constexpr absolute(double atol_) : atol(atol_) {}
  void apply(tolerance& t) const {
    detail::require_non_negative(atol, "absolute: atol");
    t.element_rules.push_back({element_rule::kind::within, atol, 0.0});
    detail::append_description(t, "absolute(atol=" + detail::format_number(atol) + ")");
  }
};

struct relative : policy {
  double rtol;
  explicit constexpr relative(double rtol_) : rtol(rtol_) {}
  void apply(tolerance& t) const {
    detail::require_non_negative(rtol, "relative: rtol");
    t.element_rules.push_back({element_rule::kind::within, 0.0, rtol});
    detail::append_description(t, "relative(rtol=" + detail::format_number(rtol) + ")");
  }
};

// torch.testing.assert_close's rule: |actual - expected| <= atol + rtol * |expected|.
struct allclose : policy {
  double rtol;
  double atol;
  constexpr allclose(double rtol_, double atol_) : rtol(rtol_), atol(atol_) {}
  void apply(tolerance& t) const {
    detail::require_non_negative(rtol, "allclose: rtol");
    detail::require_non_negative(atol, "allclose: atol");
    t.element_rules.push_back({element_rule::kind::within, atol, rtol});
    detail::append_description(
        t, "allclose(rtol=" + detail::format_number(rtol) + ", atol=" + detail::format_number(atol) + ")");
  }
};

// Distance in representable values of the output's dtype (for integers: the difference). Against a host
// reference in double, the expected value is first rounded to the output's dtype.
struct ulp : policy {
  std::uint64_t max_ulps;
  explicit constexpr ulp(std::uint64_t max_ulps_) : max_ulps(max_ulps_) {}
  void apply(tolerance& t) const {
    t.element_rules.push_back({element_rule::kind::ulp, 0.0, 0.0, max_ulps});
    detail::append_description(t, "ulp(<=" + std::to_string(max_ulps) + ")");
  }
};

// Cosine similarity of the whole output (decode paths in aiter and SGLang use >= 0.99). Weak alone: one
// wrong element barely moves it, so combine it with an elementwise rule.
struct cosine : policy {
  double min_similarity;
  explicit constexpr cosine(double min_similarity_ = 0.99) : min_similarity(min_similarity_) {}
  void apply(tolerance& t) const {
    if (!std::isfinite(min_similarity) || min_similarity < -1.0 || min_similarity > 1.0) {
      throw usage_error("tolerance: cosine: min_similarity must be in [-1, 1], got " +
                        detail::format_number(min_similarity));
    }
    t.min_cosine = min_similarity;
    detail::append_description(t, "cosine(>=" + detail::format_number(min_similarity) + ")");
  }
};

// ||actual - expected||_2 / ||expected||_2 over the whole output.
struct relative_l2 : policy {
  double max_error;
  explicit constexpr relative_l2(double max_error_) : max_error(max_error_) {}
  void apply(tolerance& t) const {
    detail::require_non_negative(max_error, "relative_l2: max_error");
    t.max_relative_l2 = max_error;
    detail::append_description(t, "relative_l2(<=" + detail::format_number(max_error) + ")");
  }
};

// max_mismatch{f, tol::any_value}: no bound on what the allowance lets through (position-insensitive data).
inline constexpr double any_value = std::numeric_limits<double>::infinity();

// Lets a fraction of the elements fail the elementwise rules (aiter's checkAllclose allows 5%), each within
// `bound` times the rules, the relative part measured at no less than the reference's RMS (so that a sum
// that cancels to near zero is judged at the size of its terms), and scattered: a row, column or tile
// holding more of them than the allowance spread at random would is a finding, unless may_cluster().
struct max_mismatch : policy {
  double fraction;
  double bound;
  bool clusters_allowed = false;
  explicit constexpr max_mismatch(double fraction_, double bound_ = default_slack_bound)
      : fraction(fraction_), bound(bound_) {}
  // Mismatches may gather in a row, column or tile: the data is position-insensitive (sorted ties, ...).
  [[nodiscard]] constexpr max_mismatch may_cluster() const {
    max_mismatch m = *this;
    m.clusters_allowed = true;
    return m;
  }
  void apply(tolerance& t) const {
    if (!std::isfinite(fraction) || fraction < 0.0 || fraction >= 1.0) {
      throw usage_error("tolerance: max_mismatch: fraction must be in [0, 1), got " + detail::format_number(fraction));
    }
    if (std::isnan(bound) || bound < 1.0) {
      throw usage_error("tolerance: max_mismatch: bound must be >= 1 (times the element rules) or tol::any_value, got " +
                        detail::format_number(bound));
    }
    t.max_mismatch_fraction = fraction;
    t.slack_bound = bound;
    t.slack_may_cluster = clusters_allowed;
    const std::string within = std::isinf(bound) ? "any value" : "each within " + detail::format_number(bound) + "x";
    detail::append_description(t, "max_mismatch(" + detail::format_number(fraction * 100.0) + "%, " + within +
                                       (clusters_allowed ? ", may cluster)" : ")"));
  }
};

// NaN in both actual and expected at the same index counts as a match.
struct equal_nan : policy {
  void apply(tolerance& t) const {
    t.equal_nan = true;
    detail::append_description(t, "equal_nan");
  }
};

template <class P>
inline constexpr bool is_policy_v = std::is_base_of_v<policy, P>;

// Both policies hold.
template <class A, class B>
struct all_of : policy {
  A first;
  B second;
  constexpr all_of(A a, B b) : first(a), second(b) {}
  void apply(tolerance& t) const {
    first.apply(t);
    second.apply(t);
  }
};

template <class A, class B, class = std::enable_if_t<is_policy_v<A> && is_policy_v<B>>>
constexpr all_of<A, B> operator&&(const A& a, const B& b) {
  return {a, b};
}

}  // namespace tol

// Checks that a lowered tolerance can reject something; throws usage_error otherwise.
inline void validate(const tolerance& t) {
  if (t.element_rules.empty() && !t.min_cosine && !t.max_relative_l2) {
    throw usage_error("tolerance '" + t.description + "' has no criterion: add an elementwise rule, cosine or relative_l2");
  }
  if (t.max_mismatch_fraction > 0.0 && t.element_rules.empty()) {
    throw usage_error("tolerance '" + t.description + "': max_mismatch needs an elementwise rule to count mismatches");
  }
}

// Lowers a policy (or a composition of policies) to the engine's tolerance, validating it.
template <class Policy, class = std::enable_if_t<tol::is_policy_v<Policy>>>
[[nodiscard]] tolerance make_tolerance(const Policy& p) {
  tolerance t;
  p.apply(t);
  validate(t);
  return t;
}

// Defaults by output dtype, those of torch.testing.assert_close: fp64 (rtol 1e-7, atol 1e-7),
// fp32 (1.3e-6, 1e-5), fp16 (1e-3, 1e-5), bf16 (1.6e-2, 1e-5); integers exact.
[[nodiscard]] inline tolerance default_tolerance(dtype t) {
  switch (t) {
    case dtype::f64: return make_tolerance(tol::allclose{1e-7, 1e-7});
    case dtype::f32: return make_tolerance(tol::allclose{1.3e-6, 1e-5});
    case dtype::f16: return make_tolerance(tol::allclose{1e-3, 1e-5});
    case dtype::bf16: return make_tolerance(tol::allclose{1.6e-2, 1e-5});
    default: return make_tolerance(tol::exact{});
  }
}

}  // namespace kbench
