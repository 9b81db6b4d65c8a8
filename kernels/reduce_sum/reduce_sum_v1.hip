// reduce_sum v1: the straightforward version, kept as a baseline for later ones.
//   sum[0] = sum_i x[i]                                             fp32 in, fp32 out, fp32 accumulation
// Two kernels: a fixed grid of grid_size blocks walks x with scalar grid-stride loads, each block reduces
// its threads' sums with a shared-memory tree into one partial; then one block adds the partials.
// Deterministic (no atomics). Every element passes through at most ceil(n / 2^18) per-thread additions
// plus 8 (tree) + 4 (partials per final thread) + 8 (final tree): the error bound in NOTES.md.
// The partials live in a device global, so launches of this version must not run concurrently.
#pragma once

#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

namespace reduce_sum_v1 {

constexpr int block_size = 256;
constexpr int grid_size = 1024;  // 2^18 threads in all; keeps each thread's chain at n / 2^18 additions

static __device__ float block_partials[grid_size];

// Shared-memory tree over one block; the result is in partial[0] after the last barrier.
__device__ inline void tree_reduce(float* partial) {
  const int t = static_cast<int>(threadIdx.x);
  for (int stride = block_size / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
}

__global__ void __launch_bounds__(block_size) partial_sums(const float* x, std::int64_t n) {
  __shared__ float partial[block_size];
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * block_size;
  float sum = 0.0f;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * block_size + threadIdx.x; i < n; i += stride) {
    sum += x[i];
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  tree_reduce(partial);
  if (threadIdx.x == 0) block_partials[blockIdx.x] = partial[0];
}

__global__ void __launch_bounds__(block_size) final_sum(float* out, int blocks) {
  __shared__ float partial[block_size];
  float sum = 0.0f;
  for (int b = static_cast<int>(threadIdx.x); b < blocks; b += block_size) sum += block_partials[b];
  partial[threadIdx.x] = sum;
  __syncthreads();
  tree_reduce(partial);
  if (threadIdx.x == 0) out[0] = partial[0];
}

// out[0] = sum of x[0 .. n); an empty x sums to 0.
inline void launch(const float* x, float* out, std::int64_t n, hipStream_t stream) {
  if (n <= 0) {
    KBENCH_HIP_CHECK(hipMemsetAsync(out, 0, sizeof(float), stream));
    return;
  }
  const std::int64_t needed = (n + block_size - 1) / block_size;
  const int blocks = static_cast<int>(needed < grid_size ? needed : grid_size);
  hipLaunchKernelGGL(partial_sums, dim3(static_cast<unsigned int>(blocks)), dim3(block_size), 0, stream, x, n);
  KBENCH_HIP_CHECK_LAUNCH();
  hipLaunchKernelGGL(final_sum, dim3(1), dim3(block_size), 0, stream, out, blocks);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace reduce_sum_v1
