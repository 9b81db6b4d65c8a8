// rmsnorm v1: the straightforward version, kept as the reference for later ones.
//   y[r, j] = x[r, j] * w[j] / sqrt(mean_j(x[r, j]^2) + eps)        fp16 in/out, fp32 math
// One block per row; scalar loads; a shared-memory tree reduction; x is read twice.
// Compiled as a source of its own; rmsnorm_v1.hpp declares its launcher for the test file.

#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

#include "rmsnorm_v1.hpp"

namespace rmsnorm_v1 {

constexpr int block_size = 256;

__global__ void __launch_bounds__(block_size)
rmsnorm_kernel(const __half* x, const __half* w, __half* y, std::int64_t cols, float eps) {
  __shared__ float partial[block_size];
  const __half* x_row = x + blockIdx.x * cols;
  __half* y_row = y + blockIdx.x * cols;
  float sum_of_squares = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
    const float v = kbench::to_float(x_row[j]);
    sum_of_squares += v * v;
  }
  partial[threadIdx.x] = sum_of_squares;
  __syncthreads();
  for (int stride = block_size / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float inv_rms = rsqrtf(partial[0] / static_cast<float>(cols) + eps);
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
    y_row[j] = kbench::from_float<__half>(kbench::to_float(x_row[j]) * inv_rms * kbench::to_float(w[j]));
  }
}

void launch(const kbench::fp16_t* x, const kbench::fp16_t* w, kbench::fp16_t* y, std::int64_t rows,
            std::int64_t cols, float eps, hipStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  hipLaunchKernelGGL(rmsnorm_kernel, dim3(static_cast<unsigned int>(rows)), dim3(block_size), 0, stream, x, w, y, cols,
                     eps);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace rmsnorm_v1
