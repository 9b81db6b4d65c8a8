// kbench/contract/dtype.hpp: element types as runtime values, and exact host-side codecs for the 16-bit floats.
//
// HIP-free on purpose: the tolerance engine, the reports and their unit tests work on raw bytes plus a
// dtype, so they compile with any C++17 compiler and run on machines without a GPU. platform.hpp maps the
// platform's __half and bfloat16 types onto dtype::f16 and dtype::bf16.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "error.hpp"
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

// The largest finite value of a floating-point type (a larger one is stored as inf, or as fp8's NaN); for
// an integer type, the largest double, which bounds nothing (holds_value() says what an integer holds).
[[nodiscard]] inline double largest_finite(dtype t) noexcept {
  switch (t) {
    case dtype::f32: return std::numeric_limits<float>::max();
    case dtype::f16: return 65504.0;
    case dtype::bf16: return 0x1.fep127;
    case dtype::f8e4m3: return 448.0;
    default: return std::numeric_limits<double>::max();
  }
}

// Whether a value given for an input is one its type t holds: a number (never NaN); ±inf only in the float
// types that have it (not fp8 e4m3fn, which has none); finite floats within the largest finite value;
// integers whole and in range. Values that only round (0.1 in fp16) are held: every draw rounds.
[[nodiscard]] inline bool holds_value(dtype t, double v) noexcept {
  if (std::isnan(v)) return false;
  const dtype_info type = info(t);
  if (type.is_float) return std::isinf(v) ? t != dtype::f8e4m3 : std::fabs(v) <= largest_finite(t);
  // 2^bits values, from -2^(bits-1) or 0: bounds exact in double even for 64 bits, the upper one excluded.
  const double span = std::ldexp(1.0, 8 * static_cast<int>(type.size));
  const double lowest = type.is_signed ? -span / 2 : 0.0, beyond = type.is_signed ? span / 2 : span;
  return v == std::floor(v) && v >= lowest && v < beyond;  // ±inf fail here too
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

// The one dispatch from a runtime dtype to compile-time code: `f` is called with
// `dtype_constant<D>{}` for the dtype D of `t`. The comparison engines, the drawing of inputs, the tolerance
// probes and the codecs all go through it, so a dtype they do not handle cannot pass by falling through;
// a value outside the enumeration is a usage_error.
template <dtype D>
using dtype_constant = std::integral_constant<dtype, D>;

template <class F>
decltype(auto) visit_dtype(dtype t, F&& f) {
  switch (t) {
    case dtype::f64: return f(dtype_constant<dtype::f64>{});
    case dtype::f32: return f(dtype_constant<dtype::f32>{});
    case dtype::f16: return f(dtype_constant<dtype::f16>{});
    case dtype::bf16: return f(dtype_constant<dtype::bf16>{});
    case dtype::f8e4m3: return f(dtype_constant<dtype::f8e4m3>{});
    case dtype::i8: return f(dtype_constant<dtype::i8>{});
    case dtype::u8: return f(dtype_constant<dtype::u8>{});
    case dtype::i16: return f(dtype_constant<dtype::i16>{});
    case dtype::u16: return f(dtype_constant<dtype::u16>{});
    case dtype::i32: return f(dtype_constant<dtype::i32>{});
    case dtype::u32: return f(dtype_constant<dtype::u32>{});
    case dtype::i64: return f(dtype_constant<dtype::i64>{});
    case dtype::u64: return f(dtype_constant<dtype::u64>{});
  }
  char message[64];
  std::snprintf(message, sizeof message, "unknown dtype (value %d): not one kbench knows", static_cast<int>(t));
  throw usage_error(message);
}

// How an element of each dtype is stored: its bits as an unsigned word for floats, the integer itself
// otherwise. HIP-free; platform.hpp adds the element types kernels use (element_t).
template <dtype D> struct storage_of;
template <> struct storage_of<dtype::f64> { using type = std::uint64_t; };
template <> struct storage_of<dtype::f32> { using type = std::uint32_t; };
template <> struct storage_of<dtype::f16> { using type = std::uint16_t; };
template <> struct storage_of<dtype::bf16> { using type = std::uint16_t; };
template <> struct storage_of<dtype::f8e4m3> { using type = std::uint8_t; };
template <> struct storage_of<dtype::i8> { using type = std::int8_t; };
template <> struct storage_of<dtype::u8> { using type = std::uint8_t; };
template <> struct storage_of<dtype::i16> { using type = std::int16_t; };
template <> struct storage_of<dtype::u16> { using type = std::uint16_t; };
template <> struct storage_of<dtype::i32> { using type = std::int32_t; };
template <> struct storage_of<dtype::u32> { using type = std::uint32_t; };
template <> struct storage_of<dtype::i64> { using type = std::int64_t; };
template <> struct storage_of<dtype::u64> { using type = std::uint64_t; };
template <dtype D>
using storage_t = typename storage_of<D>::type;

// The same width as an unsigned word: what poison patterns and bitwise checks compare.
template <std::size_t Bytes> struct unsigned_word_of;
template <> struct unsigned_word_of<1> { using type = std::uint8_t; };
template <> struct unsigned_word_of<2> { using type = std::uint16_t; };
template <> struct unsigned_word_of<4> { using type = std::uint32_t; };
template <> struct unsigned_word_of<8> { using type = std::uint64_t; };
template <dtype D>
using word_t = typename unsigned_word_of<sizeof(storage_t<D>)>::type;

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

// The smallest normal magnitude of a floating-point type (fp16: 2^-14, fp8 e4m3: 2^-6).
[[nodiscard]] inline double smallest_normal(dtype t) { return std::ldexp(1.0, 2 - (1 << (info(t).exponent_bits - 1))); }

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
  const int e = e2 - 1 > -6 ? e2 - 1 : -6;                   // a in [2^e, 2^(e+1)), subnormals share 2^-6
  const double q = std::nearbyint(std::ldexp(a, 3 - e));     // quanta of 2^(e-3)
  const int field = q < 8.0 ? static_cast<int>(q) : ((e + 7) << 3) + static_cast<int>(q) - 8;
  return sign | static_cast<std::uint8_t>(field < 0x7E ? field : 0x7E);
}

[[nodiscard]] inline double fp8_e4m3_to_double(std::uint8_t bits) noexcept { return fp8_e4m3_to_float(bits); }

namespace detail {

// The value of a stored element as double (exact for all floats; integers beyond 2^53 round).
template <dtype D>
[[nodiscard]] inline double decode(storage_t<D> bits) noexcept {
  if constexpr (D == dtype::f64) {
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else if constexpr (D == dtype::f32) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else if constexpr (D == dtype::f16) {
    return fp16_to_double(bits);
  } else if constexpr (D == dtype::bf16) {
    return bf16_to_double(bits);
  } else if constexpr (D == dtype::f8e4m3) {
    return fp8_e4m3_to_double(bits);
  } else {
    return static_cast<double>(bits);
  }
}

// The stored element nearest to v: floats round to nearest even; integers round to nearest and saturate.
template <dtype D>
[[nodiscard]] inline storage_t<D> encode(double v) noexcept {
  using S = storage_t<D>;
  if constexpr (D == dtype::f64) {
    S bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
  } else if constexpr (D == dtype::f32) {
    const float f = double_to_float(v);
    S bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
  } else if constexpr (D == dtype::f16) {
    return double_to_fp16(v);
  } else if constexpr (D == dtype::bf16) {
    return double_to_bf16(v);
  } else if constexpr (D == dtype::f8e4m3) {
    return double_to_fp8_e4m3(v);
  } else {
    if (std::isnan(v)) return S{0};
    const double r = std::nearbyint(v);
    if (r <= static_cast<double>(std::numeric_limits<S>::min())) return std::numeric_limits<S>::min();
    if (r >= static_cast<double>(std::numeric_limits<S>::max())) return std::numeric_limits<S>::max();
    return static_cast<S>(r);
  }
}

}  // namespace detail

// Element i of an array of dtype t, as double (exact for all floats; integers beyond 2^53 round).
[[nodiscard]] inline double load_as_double(const void* data, dtype t, std::size_t i) {
  return visit_dtype(t, [&](auto d) {
    constexpr dtype D = decltype(d)::value;
    storage_t<D> bits;
    std::memcpy(&bits, static_cast<const unsigned char*>(data) + i * sizeof bits, sizeof bits);
    return detail::decode<D>(bits);
  });
}

// Stores v as element i: floats round to nearest even; integers round to nearest and saturate.
inline void store_from_double(void* data, dtype t, std::size_t i, double v) {
  visit_dtype(t, [&](auto d) {
    constexpr dtype D = decltype(d)::value;
    const storage_t<D> bits = detail::encode<D>(v);
    std::memcpy(static_cast<unsigned char*>(data) + i * sizeof bits, &bits, sizeof bits);
  });
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
[[nodiscard]] inline std::size_t count_poison(const void* data, dtype t, std::size_t size) {
  return visit_dtype(t, [&](auto d) {
    using Word = word_t<decltype(d)::value>;
    const Word poison = poison_as<Word>(t);
    const auto* p = static_cast<const Word*>(data);
    std::size_t n = 0;
    for (std::size_t i = 0; i < size; ++i) n += p[i] == poison;
    return n;
  });
}

}  // namespace kbench
