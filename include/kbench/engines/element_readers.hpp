// kbench/engines/element_readers.hpp: how the host engine reads an element (comparison.hpp): the storage word
// of each dtype and its value, the distance of two elements in units of the output's dtype, and whether a
// pair meets the element rules. The element loop, the slack audit's gathering and the bias audit's row sums
// read elements the same way. HIP-free: see dtype.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../contract/dtype.hpp"
#include "../contract/tolerance.hpp"
#include "ulp.hpp"

namespace kbench {
namespace detail {

// Typed readers of the element loop: the storage word of each dtype and its value. Floats are read as
// their bits, so the poison and ulp checks compare words, and the loop never calls a codec.
template <class Bits, dtype T>
struct float_reader {
  using storage = Bits;
  static constexpr bool is_float = true;
  static constexpr Bits sign_bit = Bits{1} << (8 * sizeof(Bits) - 1);
  static double value(Bits b) noexcept {
    if constexpr (T == dtype::f64) {
      double d;
      std::memcpy(&d, &b, 8);
      return d;
    } else if constexpr (T == dtype::f32) {
      float f;
      std::memcpy(&f, &b, 4);
      return f;
    } else if constexpr (T == dtype::bf16) {
      const std::uint32_t wide = std::uint32_t{b} << 16;
      float f;
      std::memcpy(&f, &wide, 4);
      return f;
    } else if constexpr (T == dtype::f8e4m3) {
      return fp8_e4m3_to_float(b);
    } else {
      return fp16_table()[b];
    }
  }
  // |ulps| between two words of this format, through zero for opposite signs (-0 == +0).
  static std::uint64_t ulps(Bits a, Bits b) noexcept {
    const std::uint64_t ma = a & static_cast<Bits>(~sign_bit), mb = b & static_cast<Bits>(~sign_bit);
    const bool na = (a & sign_bit) && ma != 0, nb = (b & sign_bit) && mb != 0;
    if (na == nb) return ma > mb ? ma - mb : mb - ma;
    return ma + mb;
  }
  static const double* fp16_table() noexcept {
    static const std::vector<double> table = [] {
      std::vector<double> t(65536);
      for (std::uint32_t i = 0; i < 65536; ++i) t[i] = fp16_to_double(static_cast<std::uint16_t>(i));
      return t;
    }();
    return table.data();
  }
};

template <class Int>
struct integer_reader {
  using storage = Int;
  static constexpr bool is_float = false;
  static double value(Int v) noexcept { return static_cast<double>(v); }
};

// The distance of two finite elements in units of the output dtype (a host reference rounded to it first:
// 0 means the correctly rounded value); integers: their difference.
template <class A, class E>
inline std::uint64_t element_ulps(typename A::storage sa, typename E::storage se, double a, double e, double abs_err,
                                  std::uint64_t int_diff, dtype actual_type) {
  constexpr bool same = std::is_same_v<A, E>;
  if constexpr (A::is_float && same) {
    return A::ulps(sa, se);
  } else if constexpr (A::is_float) {
    return ulp_distance(a, e, actual_type);
  } else if constexpr (same) {
    return int_diff;
  } else {
    return abs_err < 1.8e19 ? static_cast<std::uint64_t>(std::ceil(abs_err)) : ~std::uint64_t{0};
  }
}

// Whether a finite pair meets every element rule of the tolerance.
inline bool meets_rules(const element_rule* rules, std::size_t rule_count, bool identical, double abs_err, double e,
                        std::uint64_t ulps) {
  bool ok = true;
  for (std::size_t k = 0; k < rule_count; ++k) {
    const element_rule& rule = rules[k];
    switch (rule.rule) {
      case element_rule::kind::exact: ok = ok && identical; break;
      case element_rule::kind::within: ok = ok && abs_err <= rule.atol + rule.rtol * std::fabs(e); break;
      case element_rule::kind::ulp: ok = ok && ulps <= rule.max_ulps; break;
    }
  }
  return ok;
}

// The reader of each dtype's storage: floats by their bits, integers as themselves.
template <dtype D>
using reader_of = std::conditional_t<info(D).is_float, float_reader<storage_t<D>, D>, integer_reader<storage_t<D>>>;

}  // namespace detail
}  // namespace kbench
