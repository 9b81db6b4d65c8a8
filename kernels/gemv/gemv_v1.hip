// gemv v1: the straightforward decode GEMV (M = 1), kept as the reference for later versions.
//   y[r] = sum_j w[r, j] * x[j]          w row-major [n, k] fp16, x [k] fp16, y [n] fp16, fp32 accumulation
// One wave per output row: lane l adds the products of columns l, l + wave, ... with scalar (2-byte)
// coalesced loads, then the wave adds its lanes with kbench::wave_sum. A block of 256 threads covers
// rows_per_block rows whatever the wave size (a wave takes the block's rows in turn).
#pragma once

#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

namespace gemv_v1 {

constexpr int block_size = 256;
constexpr int rows_per_block = 8;  // one row per wave on 32-wide waves, two on 64-wide ones

__global__ void __launch_bounds__(block_size)
gemv_kernel(const __half* w, const __half* x, __half* y, std::int64_t n, std::int64_t k) {
  const int wave_size = kbench::wave_size();
  const int lane = static_cast<int>(threadIdx.x) % wave_size;
  const int waves = static_cast<int>(blockDim.x) / wave_size;
  for (int local = static_cast<int>(threadIdx.x) / wave_size; local < rows_per_block; local += waves) {
    const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * rows_per_block + local;
    if (row >= n) break;  // wave-uniform: the whole wave leaves together
    const __half* w_row = w + row * k;
    float sum = 0.0f;
    for (std::int64_t j = lane; j < k; j += wave_size) sum += kbench::to_float(w_row[j]) * kbench::to_float(x[j]);
    sum = kbench::wave_sum(sum);
    if (lane == 0) y[row] = kbench::from_float<__half>(sum);
  }
}

inline void launch(const __half* w, const __half* x, __half* y, std::int64_t n, std::int64_t k, hipStream_t stream) {
  if (n <= 0) return;
  if (k <= 0) {
    KBENCH_HIP_CHECK(hipMemsetAsync(y, 0, static_cast<std::size_t>(n) * sizeof(__half), stream));  // empty sums
    return;
  }
  const std::int64_t blocks = (n + rows_per_block - 1) / rows_per_block;
  hipLaunchKernelGGL(gemv_kernel, dim3(static_cast<unsigned int>(blocks)), dim3(block_size), 0, stream, w, x, y, n, k);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace gemv_v1
