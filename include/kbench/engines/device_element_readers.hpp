// kbench/engines/device_element_readers.hpp: the device comparison's element readers, as the host's
// element_readers.hpp: an output's storage word as double, whether it is finite, and how far apart two
// words are. Read by the comparison's element loop (device_compare_loop.hpp) and the rows' signed sums
// (device_row_sums.hpp).
#pragma once

#include <type_traits>

#include "../contract/dtype.hpp"
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
    } else if constexpr (T == dtype::f32 || T == dtype::bf16) {
      return static_cast<double>(__uint_as_float(static_cast<unsigned int>(w) << (T == dtype::bf16 ? 16 : 0)));
    } else if constexpr (T == dtype::f16) {
      // Two exact conversions: fp16 to float (every fp16 value, subnormals too, is a normal float or zero),
      // float to double; fewer instructions than the bits' rebuilding below, which fp8 keeps (it has no
      // conversion on every platform).
      return static_cast<double>(__half2float(__ushort_as_half(static_cast<unsigned short>(w))));
    } else if constexpr (T == dtype::f8e4m3) {
      return narrow_float<3, 4, false>(w);
    } else {
      return static_cast<double>(w);
    }
  }
  // A float of `Mantissa` and `Exponent` bits with a sign bit above them (fp8) as double, exactly, built from
  // its bits without a branch or a conversion: the exponent rebiased, and a subnormal's m * 2^(1 - bias -
  // Mantissa) as the difference of two doubles whose last mantissa bit is worth that much. Inf and NaN: an
  // exponent of all ones (IEEE), or, for e4m3fn (no infinity), only all ones in exponent and mantissa (NaN).
  template <int Mantissa, int Exponent, bool Ieee>
  __device__ static double narrow_float(Word w) {
    using u64 = unsigned long long;
    constexpr u64 all_ones = (u64{1} << Exponent) - 1, bias = all_ones / 2;
    const u64 bits = static_cast<u64>(w);
    const u64 m = bits & ((u64{1} << Mantissa) - 1), e = (bits >> Mantissa) & all_ones;
    const u64 sign = ((bits >> (Mantissa + Exponent)) & 1) << 63;
    const bool special = Ieee ? e == all_ones : (e == all_ones && m == (u64{1} << Mantissa) - 1);
    const u64 exponent = special ? u64{0x7FF} : e + 1023 - bias;
    const u64 normal = sign | (exponent << 52) | (m << (52 - Mantissa));
    constexpr u64 unit = u64{1075 + 1 - bias - Mantissa} << 52;  // a double whose last mantissa bit is the step
    const double subnormal = __longlong_as_double(static_cast<long long>(unit | m)) - __longlong_as_double(static_cast<long long>(unit));
    return e == 0 ? __longlong_as_double(static_cast<long long>(sign | __double_as_longlong(subnormal)))
                  : __longlong_as_double(static_cast<long long>(normal));
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
  // How far apart two words are: floats in units in the last place, integers by their difference. In the
  // narrowest unsigned type that holds it: 32 bits up to 4-byte words (the distance through zero of two
  // 32-bit magnitudes, or between two 32-bit integers, is below 2^32), 64 above. A float becomes its place on
  // the number line (the magnitude, negated for a negative sign; both zeros at 0), and the distance is the
  // difference of the places.
  using distance = std::conditional_t<(sizeof(Word) <= 4), unsigned int, unsigned long long>;
  __device__ static distance ulps(Word a, Word b) {
    if constexpr (!is_float) {
      return a > b ? static_cast<distance>(a) - static_cast<distance>(b) : static_cast<distance>(b) - static_cast<distance>(a);
    } else {
      using place = std::make_signed_t<distance>;
      constexpr distance sign = distance{1} << (8 * sizeof(Word) - 1);
      const auto place_of = [](Word w) {
        const distance magnitude = static_cast<distance>(w) & (sign - 1);
        return (static_cast<distance>(w) & sign) ? distance{0} - magnitude : magnitude;
      };
      const distance pa = place_of(a), pb = place_of(b);
      return static_cast<place>(pa) > static_cast<place>(pb) ? pa - pb : pb - pa;
    }
  }
};

}  // namespace detail
}  // namespace kbench
