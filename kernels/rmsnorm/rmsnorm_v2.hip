// rmsnorm v2: one pass over x in DRAM.
//   y[r, j] = x[r, j] * w[j] / sqrt(mean_j(x[r, j]^2) + eps)        fp16 or bf16 in/out, fp32 math
// What changed from v1, and why:
// - 16-byte loads and stores (8 elements) when rows are 16-byte aligned: fewer, wider memory transactions.
// - The row stays in registers between the reduction and the scaling (rows up to block_size * 8 *
//   cached_vectors elements), so x is read from memory once; longer rows re-read the rest.
// - Wave shuffles for the reduction (kbench::wave_sum) instead of a shared-memory tree.
// Rows of any length: the vector path needs cols % 8 == 0 and aligned pointers, the scalar path takes
// everything else.
// Compiled as a source of its own; rmsnorm_v2.hpp declares its launcher for the test file.

#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

#include "../common/block_reduce.hpp"
#include "rmsnorm_v2.hpp"

namespace rmsnorm_v2 {

constexpr int block_size = 256;
constexpr int vector_width = 8;    // elements per 16-byte access
constexpr int cached_vectors = 4;  // per thread: rows up to 256 * 8 * 4 = 8192 elements stay in registers

template <class T>
struct alignas(16) vector8 {
  T v[vector_width];
};

template <class T>
__device__ inline float sum_of_squares(const vector8<T>& a) {
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < vector_width; ++k) {
    const float f = kbench::to_float(a.v[k]);
    s += f * f;
  }
  return s;
}

template <class T>
__device__ inline vector8<T> scale(const vector8<T>& a, const vector8<T>& weight, float inv_rms) {
  vector8<T> out;
#pragma unroll
  for (int k = 0; k < vector_width; ++k) {
    out.v[k] = kbench::from_float<T>(kbench::to_float(a.v[k]) * inv_rms * kbench::to_float(weight.v[k]));
  }
  return out;
}

template <class T>
__global__ void __launch_bounds__(block_size)
rmsnorm_vector_kernel(const T* x, const T* w, T* y, std::int64_t cols, float eps) {
  using vec = vector8<T>;
  const vec* x_row = reinterpret_cast<const vec*>(x + blockIdx.x * cols);
  const vec* weight = reinterpret_cast<const vec*>(w);
  vec* y_row = reinterpret_cast<vec*>(y + blockIdx.x * cols);
  const std::int64_t vectors = cols / vector_width;

  vec cached[cached_vectors];
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < cached_vectors; ++k) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(k) * block_size;
    if (i < vectors) {
      cached[k] = x_row[i];
      sum += sum_of_squares(cached[k]);
    }
  }
  for (std::int64_t i = threadIdx.x + cached_vectors * block_size; i < vectors; i += block_size) {
    sum += sum_of_squares(x_row[i]);
  }
  const float inv_rms = rsqrtf(kernels::block_sum(sum) / static_cast<float>(cols) + eps);
#pragma unroll
  for (int k = 0; k < cached_vectors; ++k) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(k) * block_size;
    if (i < vectors) y_row[i] = scale(cached[k], weight[i], inv_rms);
  }
  for (std::int64_t i = threadIdx.x + cached_vectors * block_size; i < vectors; i += block_size) {
    y_row[i] = scale(x_row[i], weight[i], inv_rms);
  }
}

template <class T>
__global__ void __launch_bounds__(block_size)
rmsnorm_scalar_kernel(const T* x, const T* w, T* y, std::int64_t cols, float eps) {
  const T* x_row = x + blockIdx.x * cols;
  T* y_row = y + blockIdx.x * cols;
  float sum = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
    const float v = kbench::to_float(x_row[j]);
    sum += v * v;
  }
  const float inv_rms = rsqrtf(kernels::block_sum(sum) / static_cast<float>(cols) + eps);
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
    y_row[j] = kbench::from_float<T>(kbench::to_float(x_row[j]) * inv_rms * kbench::to_float(w[j]));
  }
}

template <class T>
void launch(const T* x, const T* w, T* y, std::int64_t rows, std::int64_t cols, float eps, hipStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vectorizable = cols % vector_width == 0 && aligned(x) && aligned(w) && aligned(y);
  const dim3 grid(static_cast<unsigned int>(rows));
  if (vectorizable) {
    hipLaunchKernelGGL(rmsnorm_vector_kernel<T>, grid, dim3(block_size), 0, stream, x, w, y, cols, eps);
  } else {
    hipLaunchKernelGGL(rmsnorm_scalar_kernel<T>, grid, dim3(block_size), 0, stream, x, w, y, cols, eps);
  }
  KBENCH_HIP_CHECK_LAUNCH();
}

// The element types the test file launches, compiled here once (another type is one more line).
template void launch<kbench::fp16_t>(const kbench::fp16_t*, const kbench::fp16_t*, kbench::fp16_t*, std::int64_t,
                                     std::int64_t, float, hipStream_t);

}  // namespace rmsnorm_v2
