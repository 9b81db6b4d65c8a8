// kernels/common/block_reduce.hpp: block-wide reductions for the shipped kernels, on kbench's platform
// layer (no hard-coded wave size).
#pragma once

#include <kbench/contract/platform.hpp>

namespace kernels {

namespace detail {

// Combines one value per wave through shared memory; every thread gets the block's result.
template <class T, class Combine>
__device__ inline T block_combine(T value, T identity, Combine combine) {
  __shared__ T partial[kbench::max_waves_per_block];
  const int wave = static_cast<int>(threadIdx.x) / kbench::wave_size();
  const int lane = static_cast<int>(threadIdx.x) % kbench::wave_size();
  if (lane == 0) partial[wave] = value;
  __syncthreads();
  const int waves = (static_cast<int>(blockDim.x) + kbench::wave_size() - 1) / kbench::wave_size();
  T total = identity;
  for (int i = 0; i < waves; ++i) total = combine(total, partial[i]);
  __syncthreads();  // partial[] may be reused by the next call
  return total;
}

}  // namespace detail

// Sum of `value` over the block, returned to every thread. Every thread of the block must call it;
// blockDim.x must be a multiple of the wave size.
__device__ inline float block_sum(float value) {
  return detail::block_combine(kbench::wave_sum(value), 0.0f, [](float a, float b) { return a + b; });
}

// Maximum of `value` over the block, returned to every thread. Same rules as block_sum.
__device__ inline float block_max(float value) {
  return detail::block_combine(kbench::wave_max(value), -__builtin_huge_valf(),
                               [](float a, float b) { return a > b ? a : b; });
}

}  // namespace kernels
