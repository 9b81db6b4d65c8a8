// kbench/contract/fp8.hpp: fp8 E4M3 (the OCP "e4m3fn" format of gfx950 and Hopper/Blackwell), emulated in our own
// code because HIP 5.2 has no fp8 type. Usable on the host and in kernels.
//
// Format: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities; S.1111.111 is NaN; the largest
// finite value is 448; subnormals step by 2^-9. Conversion from float rounds to nearest even and
// saturates to +-448 (infinities too), as the hardware "satfinite" conversions do. One step can be a 12.5%
// relative change (a 33% one among the subnormals): compare fp8 codes by ulps, not by rtol.
//
// Not the FNUZ variant of gfx942, which decodes the same bits differently (bias 8, 0x80 is NaN).
#pragma once

#include <cstdint>
#include <cstring>

#include "../detail/host_device.hpp"

namespace kbench {

struct fp8_e4m3 {
  std::uint8_t bits;
};

namespace detail {

// Bit casts. Device code puns through a union (std::memcpy is host-only in HIP 5.2's clang, and the
// device intrinsics are not declared where this header can be included first); GCC, clang and nvcc all
// define union punning.
union float_bits {
  float f;
  std::uint32_t u;
};
KBENCH_HOST_DEVICE inline float float_from_bits(std::uint32_t b) {
#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
  float_bits pun;
  pun.u = b;
  return pun.f;
#else
  float f;
  std::memcpy(&f, &b, 4);
  return f;
#endif
}
KBENCH_HOST_DEVICE inline std::uint32_t bits_from_float(float f) {
#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
  float_bits pun;
  pun.f = f;
  return pun.u;
#else
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
#endif
}

}  // namespace detail

KBENCH_HOST_DEVICE inline float fp8_e4m3_to_float(std::uint8_t v) {
  const std::uint32_t sign = static_cast<std::uint32_t>(v & 0x80u) << 24;
  const std::uint32_t e = (v >> 3) & 0xFu, m = v & 0x7u;
  if (e == 0xFu && m == 0x7u) return detail::float_from_bits(sign | 0x7FC00000u);  // NaN
  if (e == 0) {
    const float magnitude = static_cast<float>(m) * 0.001953125f;  // m * 2^-9, exact
    return sign ? -magnitude : magnitude;
  }
  return detail::float_from_bits(sign | ((e + 120u) << 23) | (m << 20));
}

// The conversion in software, everywhere: the definition the hardware path must match bit for bit.
KBENCH_HOST_DEVICE inline std::uint8_t float_to_fp8_e4m3_emulated(float f) {
  const std::uint32_t b = detail::bits_from_float(f);
  const std::uint8_t sign = static_cast<std::uint8_t>((b >> 24) & 0x80u);
  const std::uint32_t magnitude = b & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return 0x7F;                // NaN
  if (magnitude >= 0x43E00000u) return sign | 0x7E;         // >= 448 (and infinity): saturate
  if (magnitude < 0x3C800000u) {                            // below 2^-6: subnormal steps of 2^-9
    // magnitude * 2^9 as an integer, ties to even; 8 lands exactly on the smallest normal (0x08).
    const float scaled = detail::float_from_bits(magnitude) * 512.0f;  // exact: a power-of-two scaling
    const auto whole = static_cast<std::uint32_t>(scaled);
    const float fraction = scaled - static_cast<float>(whole);
    const std::uint32_t q = whole + ((fraction > 0.5f || (fraction == 0.5f && (whole & 1u))) ? 1u : 0u);
    return sign | static_cast<std::uint8_t>(q);
  }
  // Normal: keep 3 of the 23 mantissa bits, rounding to nearest even; a carry moves into the exponent.
  const std::uint32_t rounded = (magnitude + 0x7FFFFu + ((magnitude >> 20) & 1u)) >> 20;
  const std::uint32_t field = rounded - ((127u - 7u) << 3);
  return sign | static_cast<std::uint8_t>(field > 0x7Eu ? 0x7Eu : field);
}

// float to fp8 E4M3: one instruction where the GPU has it (NVIDIA sm_89 and later: cvt.rn.satfinite, the
// same rounding and saturation), the emulation elsewhere. AMD's gfx942 converts to the FNUZ variant, so
// AMD stays on the emulation. tests/harness/device_compare_test.hip checks the two agree on the GPU.
KBENCH_HOST_DEVICE inline std::uint8_t float_to_fp8_e4m3(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  unsigned short pair;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(0.0f), "f"(f));
  return static_cast<std::uint8_t>(pair & 0xFFu);
#else
  return float_to_fp8_e4m3_emulated(f);
#endif
}

KBENCH_HOST_DEVICE inline float to_float(fp8_e4m3 v) { return fp8_e4m3_to_float(v.bits); }

}  // namespace kbench
