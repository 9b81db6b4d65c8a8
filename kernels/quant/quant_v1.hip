// quant v1: per-token (per-row) dynamic quantization, the straightforward two-pass version, kept as the
// reference for later ones.
//   x [rows, cols] fp16 (or bf16) -> codes [rows, cols] int8 or fp8 e4m3, scales [rows] fp32
//   amax  = max_j |x[r, j]|
//   scale = amax / qmax                          (qmax: 127 for int8, 448 for fp8 e4m3); x ~ code * scale
//   inv   = amax > 0 ? qmax / amax : 0           (an all-zero row gives scale 0 and all-zero codes)
//   codes[r, j] = int8: clamp(rintf(x * inv), -127, 127)      rintf: ties to even
//                 fp8:  float_to_fp8_e4m3(x * inv)             ties to even, saturating at 448
// Tie policy: the quotient is x * inv (one fp32 multiply, nothing to contract) and every version computes
// amax, scale, inv and the quotient with exactly these fp32 operations, so codes agree bit for bit even on
// rounding ties.
// One block per row; scalar loads; a shared-memory tree for the maximum; x is read twice.
#pragma once

#include <cstdint>

#include <kbench/contract/fp8.hpp>
#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

namespace quant_v1 {

constexpr int block_size = 256;

template <class Code>
struct codec;

template <>
struct codec<std::int8_t> {
  static constexpr float qmax = 127.0f;
  __device__ static std::int8_t encode(float v) {
    return static_cast<std::int8_t>(fminf(fmaxf(rintf(v), -qmax), qmax));
  }
};

template <>
struct codec<kbench::fp8_e4m3> {
  static constexpr float qmax = 448.0f;
  __device__ static kbench::fp8_e4m3 encode(float v) { return kbench::fp8_e4m3{kbench::float_to_fp8_e4m3(v)}; }
};

template <class T, class Code>
__global__ void __launch_bounds__(block_size)
quant_kernel(const T* x, Code* codes, float* scales, std::int64_t cols) {
  __shared__ float partial[block_size];
  const std::int64_t row = blockIdx.x;
  const T* x_row = x + row * cols;
  Code* code_row = codes + row * cols;
  float amax = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
    amax = fmaxf(amax, fabsf(kbench::to_float(x_row[j])));
  }
  partial[threadIdx.x] = amax;
  __syncthreads();
  for (int stride = block_size / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) {
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + stride]);
    }
    __syncthreads();
  }
  amax = partial[0];
  const float scale = amax / codec<Code>::qmax;
  const float inv = amax > 0.0f ? codec<Code>::qmax / amax : 0.0f;
  if (threadIdx.x == 0) scales[row] = scale;
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
    code_row[j] = codec<Code>::encode(kbench::to_float(x_row[j]) * inv);
  }
}

// Code: std::int8_t or kbench::fp8_e4m3; T: kbench::fp16_t or kbench::bf16_t.
template <class Code, class T>
void launch(const T* x, Code* codes, float* scales, std::int64_t rows, std::int64_t cols, hipStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  hipLaunchKernelGGL((quant_kernel<T, Code>), dim3(static_cast<unsigned int>(rows)), dim3(block_size), 0, stream, x,
                     codes, scales, cols);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace quant_v1
