// kernels/common/block_reduce.hpp: block-wide reductions for the shipped kernels, on kbench's platform
// layer (no hard-coded wave size).
#pragma once

#include <kbench/platform.hpp>

namespace kernels {

// Sum of `value` over the block, returned to every thread. Every thread of the block must call it;
// blockDim.x must be a multiple of the wave size.
__device__ inline float block_sum(float value) {
  __shared__ float partial[kbench::max_waves_per_block];
  const int wave = static_cast<int>(threadIdx.x) / kbench::wave_size();
  const int lane = static_cast<int>(threadIdx.x) % kbench::wave_size();
  value = kbench::wave_sum(value);
  if (lane == 0) partial[wave] = value;
  __syncthreads();
  const int waves = static_cast<int>(blockDim.x) / kbench::wave_size();
  float total = 0.0f;
  for (int i = 0; i < waves; ++i) total += partial[i];
  __syncthreads();  // partial[] may be reused by the next call
  return total;
}

}  // namespace kernels
