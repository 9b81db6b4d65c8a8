// quant v2: per-token dynamic quantization in one pass over DRAM, the row held in registers.
//   Same contract and arithmetic as quant_v1 (see there): fp16 (or bf16) x [rows, cols] -> int8 or fp8 e4m3
//   codes [rows, cols] and fp32 scales [rows]; scale = amax / qmax, codes = encode(x * (qmax / amax)).
// What changed from v1, and why:
// - The row is loaded once into registers (16-byte loads of 8 elements; up to 256 * 8 * 4 = 8192 elements,
//   longer rows re-read the rest, which the block has just touched and L2 still holds), reduced to its
//   maximum, then encoded from the registers: x crosses DRAM once instead of twice.
// - Codes leave as 8-byte stores (8 codes packed into two 32-bit words) instead of single bytes.
// - Wave shuffles for the maximum (kernels::block_max) instead of a shared-memory tree.
// The arithmetic is v1's operation for operation (fabsf, max, amax / qmax, qmax / amax, x * inv, rintf or
// float_to_fp8_e4m3), so codes and scales are bit-identical to v1's, rounding ties included.
// The vector path needs cols % 8 == 0, x 16-byte and codes 8-byte aligned; every other shape takes the
// scalar path, which keeps up to 256 * 16 = 4096 elements of the row in registers the same way.
#pragma once

#include <cstdint>

#include <kbench/contract/fp8.hpp>
#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

#include "../common/block_reduce.hpp"

namespace quant_v2 {

constexpr int block_size = 256;
constexpr int vector_width = 8;    // elements per 16-byte load
constexpr int cached_vectors = 4;  // vector path: rows up to 256 * 8 * 4 = 8192 elements stay in registers
constexpr int cached_scalars = 16; // scalar path: rows up to 256 * 16 = 4096 elements stay in registers

template <class T>
struct alignas(16) vector8 {
  T v[vector_width];
};

// Codes as their byte patterns, for packing.
template <class Code>
struct codec;

template <>
struct codec<std::int8_t> {
  static constexpr float qmax = 127.0f;
  __device__ static std::uint8_t encode(float v) {
    return static_cast<std::uint8_t>(static_cast<std::int8_t>(fminf(fmaxf(rintf(v), -qmax), qmax)));
  }
};

template <>
struct codec<kbench::fp8_e4m3> {
  static constexpr float qmax = 448.0f;
  __device__ static std::uint8_t encode(float v) { return kbench::float_to_fp8_e4m3(v); }
};

template <class T>
__device__ inline float abs_max(const vector8<T>& a) {
  float m = 0.0f;
#pragma unroll
  for (int k = 0; k < vector_width; ++k) m = fmaxf(m, fabsf(kbench::to_float(a.v[k])));
  return m;
}

// Eight codes, packed little-endian into one 8-byte store.
template <class Code, class T>
__device__ inline uint2 encode8(const vector8<T>& a, float inv) {
  unsigned int word[2] = {0u, 0u};
#pragma unroll
  for (int k = 0; k < vector_width; ++k) {
    word[k / 4] |= static_cast<unsigned int>(codec<Code>::encode(kbench::to_float(a.v[k]) * inv)) << (8 * (k % 4));
  }
  return make_uint2(word[0], word[1]);
}

template <class T, class Code>
__global__ void __launch_bounds__(block_size)
quant_vector_kernel(const T* x, Code* codes, float* scales, std::int64_t cols) {
  using vec = vector8<T>;
  const std::int64_t row = blockIdx.x;
  const vec* x_row = reinterpret_cast<const vec*>(x + row * cols);
  uint2* code_row = reinterpret_cast<uint2*>(codes + row * cols);
  const std::int64_t vectors = cols / vector_width;

  vec cached[cached_vectors];
  float amax = 0.0f;
#pragma unroll
  for (int k = 0; k < cached_vectors; ++k) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(k) * block_size;
    if (i < vectors) {
      cached[k] = x_row[i];
      amax = fmaxf(amax, abs_max(cached[k]));
    }
  }
  for (std::int64_t i = threadIdx.x + cached_vectors * block_size; i < vectors; i += block_size) {
    const vec v = x_row[i];  // a copy, so the load is one 16-byte access
    amax = fmaxf(amax, abs_max(v));
  }
  amax = kernels::block_max(amax);
  const float scale = amax / codec<Code>::qmax;
  const float inv = amax > 0.0f ? codec<Code>::qmax / amax : 0.0f;
  if (threadIdx.x == 0) scales[row] = scale;
#pragma unroll
  for (int k = 0; k < cached_vectors; ++k) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(k) * block_size;
    if (i < vectors) code_row[i] = encode8<Code>(cached[k], inv);
  }
  for (std::int64_t i = threadIdx.x + cached_vectors * block_size; i < vectors; i += block_size) {
    const vec v = x_row[i];
    code_row[i] = encode8<Code>(v, inv);
  }
}

template <class T, class Code>
__global__ void __launch_bounds__(block_size)
quant_scalar_kernel(const T* x, Code* codes, float* scales, std::int64_t cols) {
  const std::int64_t row = blockIdx.x;
  const T* x_row = x + row * cols;
  std::uint8_t* code_row = reinterpret_cast<std::uint8_t*>(codes + row * cols);

  T cached[cached_scalars];
  float amax = 0.0f;
#pragma unroll
  for (int k = 0; k < cached_scalars; ++k) {
    const std::int64_t j = threadIdx.x + static_cast<std::int64_t>(k) * block_size;
    if (j < cols) {
      cached[k] = x_row[j];
      amax = fmaxf(amax, fabsf(kbench::to_float(cached[k])));
    }
  }
  for (std::int64_t j = threadIdx.x + cached_scalars * block_size; j < cols; j += block_size) {
    amax = fmaxf(amax, fabsf(kbench::to_float(x_row[j])));
  }
  amax = kernels::block_max(amax);
  const float scale = amax / codec<Code>::qmax;
  const float inv = amax > 0.0f ? codec<Code>::qmax / amax : 0.0f;
  if (threadIdx.x == 0) scales[row] = scale;
#pragma unroll
  for (int k = 0; k < cached_scalars; ++k) {
    const std::int64_t j = threadIdx.x + static_cast<std::int64_t>(k) * block_size;
    if (j < cols) code_row[j] = codec<Code>::encode(kbench::to_float(cached[k]) * inv);
  }
  for (std::int64_t j = threadIdx.x + cached_scalars * block_size; j < cols; j += block_size) {
    code_row[j] = codec<Code>::encode(kbench::to_float(x_row[j]) * inv);
  }
}

// Code: std::int8_t or kbench::fp8_e4m3 (one byte each); T: kbench::fp16_t or kbench::bf16_t.
template <class Code, class T>
void launch(const T* x, Code* codes, float* scales, std::int64_t rows, std::int64_t cols, hipStream_t stream) {
  static_assert(sizeof(Code) == 1, "codes are bytes");
  if (rows <= 0 || cols <= 0) return;
  auto aligned = [](const void* p, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; };
  const bool vectorizable = cols % vector_width == 0 && aligned(x, 16) && aligned(codes, 8);
  const dim3 grid(static_cast<unsigned int>(rows));
  if (vectorizable) {
    hipLaunchKernelGGL((quant_vector_kernel<T, Code>), grid, dim3(block_size), 0, stream, x, codes, scales, cols);
  } else {
    hipLaunchKernelGGL((quant_scalar_kernel<T, Code>), grid, dim3(block_size), 0, stream, x, codes, scales, cols);
  }
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace quant_v2
