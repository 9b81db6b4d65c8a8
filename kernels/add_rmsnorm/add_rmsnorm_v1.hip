// add_rmsnorm v1: the straightforward version, kept as the reference for later ones.
// Fused residual add + RMSNorm, in place as vLLM's fused_add_rms_norm:
//   h[r, j]        = T(x[r, j] + residual[r, j])                    (rounded to T, as an unfused add stores it)
//   residual[r, j] = h[r, j]
//   x[r, j]        = T(h[r, j] * inv_rms[r] * w[j]),  inv_rms[r] = 1 / sqrt(mean_j(h[r, j]^2) + eps)
// T is fp16 or bf16; the math is fp32. One block per row, scalar accesses; pass 1 writes h to residual,
// pass 2 reads it back (each thread only its own elements, so the in-place update has no race).
#pragma once

#include <algorithm>
#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

#include "../common/block_reduce.hpp"

namespace add_rmsnorm_v1 {

constexpr int block_size = 256;
constexpr std::int64_t max_grid = 1 << 20;  // rows beyond it are taken by a grid-stride loop

template <class T>
__global__ void __launch_bounds__(block_size)
add_rmsnorm_kernel(T* x, T* residual, const T* w, std::int64_t rows, std::int64_t cols, float eps) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    T* x_row = x + row * cols;
    T* r_row = residual + row * cols;
    float sum_of_squares = 0.0f;
    for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
      const T h = kbench::from_float<T>(kbench::to_float(x_row[j]) + kbench::to_float(r_row[j]));
      r_row[j] = h;
      const float hf = kbench::to_float(h);
      sum_of_squares += hf * hf;
    }
    const float inv_rms = rsqrtf(kernels::block_sum(sum_of_squares) / static_cast<float>(cols) + eps);
    for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
      x_row[j] = kbench::from_float<T>(kbench::to_float(r_row[j]) * inv_rms * kbench::to_float(w[j]));
    }
  }
}

template <class T>
void launch(T* x, T* residual, const T* w, std::int64_t rows, std::int64_t cols, float eps, hipStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 grid(static_cast<unsigned int>(std::min(rows, max_grid)));
  hipLaunchKernelGGL(add_rmsnorm_kernel<T>, grid, dim3(block_size), 0, stream, x, residual, w, rows, cols, eps);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace add_rmsnorm_v1
