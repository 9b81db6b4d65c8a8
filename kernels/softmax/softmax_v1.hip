// softmax v1: the straightforward version, kept as the reference for later ones.
//   y[r, j] = exp(x[r, j] - m[r]) / sum_k exp(x[r, k] - m[r]),  m[r] = max_k x[r, k]
// fp16 in, fp16 out, fp32 math. Subtracting the row max keeps exp() <= 1, so large logits cannot
// overflow. One block per row, scalar accesses, three passes over the row in global memory: max, sum of
// exponentials, write.
#pragma once

#include <algorithm>
#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

#include "../common/block_reduce.hpp"

namespace softmax_v1 {

constexpr int block_size = 256;
constexpr std::int64_t max_grid = 1 << 20;  // rows beyond it are taken by a grid-stride loop

__global__ void __launch_bounds__(block_size)
softmax_kernel(const kbench::fp16_t* x, kbench::fp16_t* y, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const kbench::fp16_t* x_row = x + row * cols;
    kbench::fp16_t* y_row = y + row * cols;
    float m = -__builtin_huge_valf();
    for (std::int64_t j = threadIdx.x; j < cols; j += block_size) m = fmaxf(m, kbench::to_float(x_row[j]));
    const float row_max = kernels::block_max(m);
    float s = 0.0f;
    for (std::int64_t j = threadIdx.x; j < cols; j += block_size) s += expf(kbench::to_float(x_row[j]) - row_max);
    const float inv_sum = 1.0f / kernels::block_sum(s);
    for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
      y_row[j] = kbench::from_float<kbench::fp16_t>(expf(kbench::to_float(x_row[j]) - row_max) * inv_sum);
    }
  }
}

// x, y: [rows, cols], softmax over each row.
inline void launch(const kbench::fp16_t* x, kbench::fp16_t* y, std::int64_t rows, std::int64_t cols,
                   hipStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 grid(static_cast<unsigned int>(std::min(rows, max_grid)));
  hipLaunchKernelGGL(softmax_kernel, grid, dim3(block_size), 0, stream, x, y, rows, cols);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace softmax_v1
