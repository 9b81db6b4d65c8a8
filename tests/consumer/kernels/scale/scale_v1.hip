// kernels/scale/scale_v1.hip
#pragma once
#include <kbench/compare.hpp>

namespace scale_v1 {
__global__ void scale_kernel(const float* x, float* y, float a, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
inline void launch(const float* x, float* y, float a, std::int64_t n, hipStream_t s) {
  hipLaunchKernelGGL(scale_kernel, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0, s, x, y, a, n);
  KBENCH_HIP_CHECK_LAUNCH();  // the launch's own error, and the last one
}
}  // namespace scale_v1
