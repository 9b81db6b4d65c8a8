// kbench/dtype.hpp: element types as runtime values, and exact host-side codecs for the 16-bit floats.
//
// HIP-free on purpose: the tolerance engine, the reports and their unit tests work on raw bytes plus a
// dtype, so they compile with any C++17 compiler and run on machines without a GPU. platform.hpp maps the
// platform's __half and bfloat16 types onto dtype::f16 and dtype::bf16.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "fp8.hpp"

namespace kbench {

enum class dtype : std::uint8_t { f64, f32, f16, bf16, f8e4m3, i8, u8, i16, u16, i32, u32, i64, u64 };

struct dtype_info {
  std::string_view name;
  std::size_t size;        // bytes per element
  bool is_float;
  bool is_signed;
  int mantissa_bits;       // explicit fraction bits (floats only)
  int exponent_bits;       // (floats only)
};

[[nodiscard]] constexpr dtype_info info(dtype t) noexcept {
  switch (t) {
    case dtype::f64: return {"fp64", 8, true, true, 52, 11};
    case dtype::f32: return {"fp32", 4, true, true, 23, 8};
    case dtype::f16: return {"fp16", 2, true, true, 10, 5};
    case dtype::bf16: return {"bf16", 2, true, true, 7, 8};
    case dtype::f8e4m3: return {"fp8_e4m3", 1, true, true, 3, 4};
    case dtype::i8: return {"int8", 1, false, true, 0, 0};
    case dtype::u8: return {"uint8", 1, false, false, 0, 0};
    case dtype::i16: return {"int16", 2, false, true, 0, 0};
    case dtype::u16: return {"uint16", 2, false, false, 0, 0};
    case dtype::i32: return {"int32", 4, false, true, 0, 0};
    case dtype::u32: return {"uint32", 4, false, false, 0, 0};
    case dtype::i64: return {"int64", 8, false, true, 0, 0};
    case dtype::u64: return {"uint64", 8, false, false, 0, 0};
  }
  return {"?", 0, false, false, 0, 0};
}

// dtype_of<T>::value names the dtype of a C++ element type. platform.hpp adds the GPU half types.
template <class T, class = void>
struct dtype_of;  // no dtype: the element type is not supported

template <> struct dtype_of<double> { static constexpr dtype value = dtype::f64; };
template <> struct dtype_of<float> { static constexpr dtype value = dtype::f32; };
template <> struct dtype_of<fp8_e4m3> { static constexpr dtype value = dtype::f8e4m3; };
template <> struct dtype_of<std::int8_t> { static constexpr dtype value = dtype::i8; };
template <> struct dtype_of<std::uint8_t> { static constexpr dtype value = dtype::u8; };
template <> struct dtype_of<std::int16_t> { static constexpr dtype value = dtype::i16; };
template <> struct dtype_of<std::uint16_t> { static constexpr dtype value = dtype::u16; };
template <> struct dtype_of<std::int32_t> { static constexpr dtype value = dtype::i32; };
template <> struct dtype_of<std::uint32_t> { static constexpr dtype value = dtype::u32; };
template <> struct dtype_of<std::int64_t> { static constexpr dtype value = dtype::i64; };
template <> struct dtype_of<std::uint64_t> { static constexpr dtype value = dtype::u64; };

template <class T>
inline constexpr dtype dtype_v = dtype_of<std::remove_cv_t<T>>::value;

namespace detail {

// Bits of an IEEE-754 binary format with `mant` fraction bits and `expo` exponent bits, read as double.
// Exact for every format up to fp32 (their values are all representable in double).
[[nodiscard]] inline double decode_binary(std::uint32_t bits, int mant, int expo) noexcept {
  const std::uint32_t mant_mask = (1u << mant) - 1u;
  const std::uint32_t exp_max = (1u << expo) - 1u;
  const int bias = static_cast<int>(exp_max >> 1);
  const bool negative = (bits >> (mant + expo)) & 1u;
  const std::uint32_t e = (bits >> mant) & exp_max;
  const std::uint32_t f = bits & mant_mask;
  double magnitude;
  if (e == exp_max) {
    magnitude = f ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    magnitude = std::ldexp(static_cast<double>(f), 1 - bias - mant);  // subnormal or zero
  } else {
    magnitude = std::ldexp(static_cast<double>(f | (1u << mant)), static_cast<int>(e) - bias - mant);
  }
  return negative ? -magnitude : magnitude;
}

// The nearest value of the binary format to x, ties to even, overflow to infinity, as in an IEEE
// conversion. Rounds once, from double, so there is no double rounding through float.
[[nodiscard]] inline std::uint32_t encode_binary(double x, int mant, int expo) noexcept {
  const std::uint32_t exp_max = (1u << expo) - 1u;
  const int bias = static_cast<int>(exp_max >> 1);
  const std::uint32_t sign = std::signbit(x) ? (1u << (mant + expo)) : 0u;
  if (std::isnan(x)) return sign | (exp_max << mant) | (1u << (mant - 1));  // quiet NaN
  const double a = std::fabs(x);
  if (std::isinf(a)) return sign | (exp_max << mant);
  if (a == 0.0) return sign;
  int e2 = 0;
  std::frexp(a, &e2);                 // a = m * 2^e2, m in [0.5, 1)
  int e = e2 - 1;                     // a in [2^e, 2^(e+1))
  const int e_min = 1 - bias;
  if (e < e_min) e = e_min;           // subnormal range shares the smallest quantum
  // q counts quanta of 2^(e - mant); nearbyint rounds ties to even in the default rounding mode.
  const double q = std::nearbyint(std::ldexp(a, mant - e));
  // Biased exponent field for the normal case, or 0 for subnormals; a carry out of the fraction
  // (q == 2^(mant+1)) moves into the exponent field by plain addition, and past the largest
  // exponent it lands exactly on the infinity encoding.
  std::uint64_t field;
  if (q < std::ldexp(1.0, mant)) {
    field = static_cast<std::uint64_t>(q);  // subnormal (only possible when e == e_min)
  } else {
    field = (static_cast<std::uint64_t>(e + bias) << mant) + (static_cast<std::uint64_t>(q) - (1ull << mant));
  }
  if (field >= (static_cast<std::uint64_t>(exp_max) << mant)) return sign | (exp_max << mant);
  return sign | static_cast<std::uint32_t>(field);
}

}  // namespace detail

[[nodiscard]] inline double fp16_to_double(std::uint16_t bits) noexcept { return detail::decode_binary(bits, 10, 5); }
[[nodiscard]] inline double bf16_to_double(std::uint16_t bits) noexcept { return detail::decode_binary(bits, 7, 8); }
[[nodiscard]] inline std::uint16_t double_to_fp16(double x) noexcept {
  return static_cast<std::uint16_t>(detail::encode_binary(x, 10, 5));
}
[[nodiscard]] inline std::uint16_t double_to_bf16(double x) noexcept {
  return static_cast<std::uint16_t>(detail::encode_binary(x, 7, 8));
}

// The nearest float to x, ties to even; beyond the float range, infinity (a plain cast would be
// undefined there).
[[nodiscard]] inline float double_to_float(double x) noexcept {
  constexpr double overflow = 3.4028235677973366e38;  // FLT_MAX + half an ulp: from here on, infinity
  if (x >= overflow) return std::numeric_limits<float>::infinity();
  if (x <= -overflow) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(x);
}

// fp8 E4M3 (see fp8.hpp) from double: nearest, ties to even, saturating to +-448; NaN stays NaN (0x7F).
// Rounds once, from double.
[[nodiscard]] inline std::uint8_t double_to_fp8_e4m3(double x) noexcept {
  if (std::isnan(x)) return 0x7F;
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::fabs(x);
  if (a >= 448.0) return sign | 0x7E;
  if (a == 0.0) return sign;
  int e2 = 0;
  std::frexp(a, &e2);
  const int e = std::max(e2 - 1, -6);                        // a in [2^e, 2^(e+1)), subnormals share 2^-6
  const double q = std::nearbyint(std::ldexp(a, 3 - e));     // quanta of 2^(e-3)
  const int field = q < 8.0 ? static_cast<int>(q) : ((e + 7) << 3) + static_cast<int>(q) - 8;
  return sign | static_cast<std::uint8_t>(std::min(field, 0x7E));
}

[[nodiscard]] inline double fp8_e4m3_to_double(std::uint8_t bits) noexcept { return fp8_e4m3_to_float(bits); }

// Element i of an array of dtype t, as double (exact for all floats; integers beyond 2^53 round).
[[nodiscard]] inline double load_as_double(const void* data, dtype t, std::size_t i) noexcept {
  const auto* bytes = static_cast<const unsigned char*>(data) + i * info(t).size;
  auto read = [bytes](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, bytes, sizeof v);
    return v;
  };
  switch (t) {
    case dtype::f64: return read(double{});
    case dtype::f32: return read(float{});
    case dtype::f16: return fp16_to_double(read(std::uint16_t{}));
    case dtype::bf16: return bf16_to_double(read(std::uint16_t{}));
    case dtype::f8e4m3: return fp8_e4m3_to_double(read(std::uint8_t{}));
    case dtype::i8: return read(std::int8_t{});
    case dtype::u8: return read(std::uint8_t{});
    case dtype::i16: return read(std::int16_t{});
    case dtype::u16: return read(std::uint16_t{});
    case dtype::i32: return read(std::int32_t{});
    case dtype::u32: return read(std::uint32_t{});
    case dtype::i64: return static_cast<double>(read(std::int64_t{}));
    case dtype::u64: return static_cast<double>(read(std::uint64_t{}));
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// Stores v as element i: floats round to nearest even; integers round to nearest and saturate.
inline void store_from_double(void* data, dtype t, std::size_t i, double v) noexcept {
  auto* bytes = static_cast<unsigned char*>(data) + i * info(t).size;
  auto write = [bytes](auto value) { std::memcpy(bytes, &value, sizeof value); };
  auto to_int = [v](auto zero) {
    using I = decltype(zero);
    if (std::isnan(v)) return I{0};
    const double r = std::nearbyint(v);
    if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    return static_cast<I>(r);
  };
  switch (t) {
    case dtype::f64: write(v); break;
    case dtype::f32: write(double_to_float(v)); break;
    case dtype::f16: write(double_to_fp16(v)); break;
    case dtype::bf16: write(double_to_bf16(v)); break;
    case dtype::f8e4m3: write(double_to_fp8_e4m3(v)); break;
    case dtype::i8: write(to_int(std::int8_t{})); break;
    case dtype::u8: write(to_int(std::uint8_t{})); break;
    case dtype::i16: write(to_int(std::int16_t{})); break;
    case dtype::u16: write(to_int(std::uint16_t{})); break;
    case dtype::i32: write(to_int(std::int32_t{})); break;
    case dtype::u32: write(to_int(std::uint32_t{})); break;
    case dtype::i64: write(to_int(std::int64_t{})); break;
    case dtype::u64: write(to_int(std::uint64_t{})); break;
  }
}

// The pattern written over every output before a kernel runs. For floats it is a signalling NaN with a
// payload no arithmetic produces, so an element still holding it after a run was never written and can
// be named as such; for integers it is 0xA5 in every byte. One 32-bit word repeated fills any type, so a
// device memset can write it.
[[nodiscard]] constexpr std::uint32_t poison_word(dtype t) noexcept {
  switch (t) {
    case dtype::f64: return 0x7FF4BADBu;  // as f64: 0x7FF4BADB7FF4BADB, a NaN
    case dtype::f32: return 0x7FBADBADu;
    case dtype::f16: return 0x7D5B7D5Bu;
    case dtype::bf16: return 0x7FAD7FADu;
    case dtype::f8e4m3: return 0x7F7F7F7Fu;  // the format's only NaN: a computed NaN reads as unwritten too
    default: return 0xA5A5A5A5u;
  }
}

// The poison pattern as a Word of the element's width (the 32-bit word repeated, truncated).
template <class Word>
[[nodiscard]] inline Word poison_as(dtype t) noexcept {
  const std::uint32_t word = poison_word(t);
  const std::uint64_t wide = (std::uint64_t{word} << 32) | word;
  Word value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

// True when element i holds the poison pattern bit for bit.
[[nodiscard]] inline bool holds_poison(const void* data, dtype t, std::size_t i) noexcept {
  const std::size_t size = info(t).size;
  const auto* bytes = static_cast<const unsigned char*>(data) + i * size;
  const auto pattern = poison_as<std::uint64_t>(t);
  return std::memcmp(bytes, &pattern, size) == 0;
}

// How many of `size` elements hold the poison pattern.
[[nodiscard]] inline std::size_t count_poison(const void* data, dtype t, std::size_t size) noexcept {
  auto count = [&](auto zero) {
    using Word = decltype(zero);
    const Word poison = poison_as<Word>(t);
    const auto* p = static_cast<const Word*>(data);
    std::size_t n = 0;
    for (std::size_t i = 0; i < size; ++i) n += p[i] == poison;
    return n;
  };
  switch (info(t).size) {
    case 1: return count(std::uint8_t{});
    case 2: return count(std::uint16_t{});
    case 4: return count(std::uint32_t{});
    default: return count(std::uint64_t{});
  }
}

}  // namespace kbench
