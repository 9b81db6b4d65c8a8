// kbench/engines/device_element_readers.hpp: the device comparison's element readers, as the host's
// element_readers.hpp: an output's storage word as double, whether it is finite, and how far apart two
// words are. Read by the comparison's element loop (device_compare_loop.hpp) and the rows' signed sums
// (device_row_sums.hpp).
#pragma once

#include <type_traits>

#include "../contract/dtype.hpp"
#include "../contract/fp8.hpp"
#include "../contract/platform.hpp"

namespace kbench {
namespace detail {

// Device element readers, as comparison.hpp's: the storage word and its value as double.
template <class Word, dtype T>
struct device_reader {
  using storage = Word;
  static constexpr bool is_float = info(T).is_float;
  __device__ static double value(Word w) {
    if constexpr (T == dtype::f64) {
      return __longlong_as_double(static_cast<long long>(w));
    } else if constexpr (T == dtype::f32) {
      return static_cast<double>(__uint_as_float(w));
    } else if constexpr (T == dtype::f16) {
      // Through the fp32 encoding, exactly: no platform half intrinsic needed.
      const unsigned int sign = (static_cast<unsigned int>(w) & 0x8000u) << 16;
      const unsigned int e = (w >> 10) & 0x1Fu, m = w & 0x3FFu;
      if (e == 0) return (sign ? -1.0 : 1.0) * static_cast<double>(m) * 5.9604644775390625e-08;  // m * 2^-24
      if (e == 31) return static_cast<double>(__uint_as_float(sign | 0x7F800000u | (m << 13)));
      return static_cast<double>(__uint_as_float(sign | ((e + 112u) << 23) | (m << 13)));
    } else if constexpr (T == dtype::bf16) {
      return static_cast<double>(__uint_as_float(static_cast<unsigned int>(w) << 16));
    } else if constexpr (T == dtype::f8e4m3) {
      return static_cast<double>(fp8_e4m3_to_float(w));
    } else {
      return static_cast<double>(w);
    }
  }
  // False for NaN and Inf, from the bits alone (integer types: always true).
  __device__ static bool finite_bits(Word w) {
    if constexpr (T == dtype::f64) {
      return ((static_cast<unsigned long long>(w) >> 52) & 0x7FFu) != 0x7FFu;
    } else if constexpr (T == dtype::f32) {
      return (w & 0x7F800000u) != 0x7F800000u;
    } else if constexpr (T == dtype::f16) {
      return (w & 0x7C00u) != 0x7C00u;
    } else if constexpr (T == dtype::bf16) {
      return (w & 0x7F80u) != 0x7F80u;
    } else if constexpr (T == dtype::f8e4m3) {
      return (w & 0x7Fu) != 0x7Fu;  // e4m3fn: no infinity, one NaN per sign
    } else {
      return true;
    }
  }
  // The ulps arithmetic in the narrowest unsigned type that holds it: 32 bits up to 4-byte words (the
  // distance through zero of two 32-bit magnitudes is below 2^32), 64 above.
  using distance = std::conditional_t<(sizeof(Word) <= 4), unsigned int, unsigned long long>;
  __device__ static distance ulps(Word a, Word b) {
    constexpr distance sign = distance{1} << (8 * sizeof(Word) - 1);
    constexpr distance mask = sign | (sign - 1);
    const distance ua = static_cast<distance>(a) & mask;
    const distance ub = static_cast<distance>(b) & mask;
    const distance ma = ua & ~sign, mb = ub & ~sign;
    const bool na = (ua & sign) && ma != 0, nb = (ub & sign) && mb != 0;
    if (na == nb) return ma > mb ? ma - mb : mb - ma;
    return ma + mb;
  }
};

}  // namespace detail
}  // namespace kbench
