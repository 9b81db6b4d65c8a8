// kbench/engines/ulp.hpp: units in the last place of an output's dtype: the distance of two values in
// representable steps (the ulp rule of the comparison) and the size of one step at a magnitude (the slack
// bound of max_mismatch, slack_audit.hpp). HIP-free: see dtype.hpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "../contract/dtype.hpp"

namespace kbench {
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
      const float f = double_to_float(v);
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      return b & 0x7FFFFFFFu;
    }
    case dtype::f16: return double_to_fp16(v) & 0x7FFFu;
    case dtype::bf16: return double_to_bf16(v) & 0x7FFFu;
    case dtype::f8e4m3: return double_to_fp8_e4m3(v) & 0x7Fu;
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

// The gap between representable values of t at `magnitude` (>= 0): 2^(exponent - mantissa bits), the
// exponent no lower than the smallest normal one (the subnormals' gap); integers: 1.
inline double ulp_size(double magnitude, dtype t) noexcept {
  const dtype_info d = info(t);
  if (!d.is_float) return 1.0;
  const int min_exponent = 2 - (1 << (d.exponent_bits - 1));  // of the smallest normal value, 1 - bias
  int exponent = min_exponent;
  if (magnitude > 0.0 && std::isfinite(magnitude)) {
    int e = 0;
    std::frexp(magnitude, &e);  // magnitude = f * 2^e, f in [0.5, 1): its exponent is e - 1
    exponent = e - 1 > min_exponent ? e - 1 : min_exponent;
  }
  return std::ldexp(1.0, exponent - d.mantissa_bits);
}

}  // namespace detail
}  // namespace kbench
