// reduce_sum v2: one pass over x at DRAM bandwidth, one launch, deterministic.
//   sum[0] = sum_i x[i]                                             fp32 in, fp32 out, fp32 accumulation
// What changed from v1, and why:
// - 16-byte loads (4 floats), `unroll` of them in flight per thread before any is added: fewer, wider
//   transactions and enough bytes in flight per SM to cover DRAM latency.
// - The grid is sized to the device (whole waves of resident blocks, at least min_grid blocks) and walks
//   x grid-stride, so every block streams for the whole kernel and there is no tail of small blocks.
// - Four fp32 accumulators per thread (one per vector lane): with >= min_grid * 256 * 4 = 2^20
//   accumulators, each sums at most ceil(n / 2^20) values, which bounds the rounding error (NOTES.md).
// - Wave shuffles (kbench::wave_sum) inside kernels::block_sum instead of a shared-memory tree.
// - No second kernel: each block publishes its partial, and the block that finishes last (an atomic
//   counter) adds the partials in block order, so the result does not depend on scheduling.
// x is split into a scalar head up to the first 16-byte boundary, the 16-byte body and a scalar tail
// (< 4 elements): any n and any float-aligned x. The partials and the counter are device globals, so
// launches of this version must not run concurrently (one stream, or a workspace argument if they must).
#pragma once

#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

#include "../common/block_reduce.hpp"

namespace reduce_sum_v2 {

constexpr int block_size = 256;
constexpr int vector_width = 4;  // floats per 16-byte access
constexpr int unroll = 4;        // 16-byte loads in flight per thread
constexpr int min_grid = 1024;   // 1024 * 256 threads * 4 accumulators = 2^20 accumulators
constexpr int max_grid = 4096;   // the last block adds at most 16 partials per thread

struct alignas(16) vector4 {
  float v[vector_width];
};

static __device__ float block_partials[max_grid];
static __device__ unsigned int blocks_done;  // zero at load; back to zero after every launch (atomicInc wraps)

// head: elements before the first 16-byte boundary of x (0..3, computed by launch()).
__global__ void __launch_bounds__(block_size)
reduce_kernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t n, std::int64_t head) {
  const std::int64_t vectors = (n - head) / vector_width;
  const std::int64_t tail_start = head + vectors * vector_width;
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * block_size;
  const std::int64_t tid = static_cast<std::int64_t>(blockIdx.x) * block_size + threadIdx.x;
  const vector4* body = reinterpret_cast<const vector4*>(x + head);

  float acc[vector_width] = {0.0f, 0.0f, 0.0f, 0.0f};
  std::int64_t i = tid;
  for (; i + (unroll - 1) * threads < vectors; i += unroll * threads) {
    vector4 v[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) v[u] = body[i + u * threads];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
#pragma unroll
      for (int c = 0; c < vector_width; ++c) acc[c] += v[u].v[c];
    }
  }
  for (; i < vectors; i += threads) {
    const vector4 v = body[i];
#pragma unroll
    for (int c = 0; c < vector_width; ++c) acc[c] += v.v[c];
  }
  float sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  if (tid < head) sum += x[tid];
  if (tid < n - tail_start) sum += x[tail_start + tid];

  const float block_total = kernels::block_sum(sum);
  __shared__ bool last_block;
  if (threadIdx.x == 0) {
    block_partials[blockIdx.x] = block_total;
    __threadfence();  // the partial is visible device-wide before this block counts as done
    // atomicInc stores 0 instead of gridDim.x: the counter is ready for the next launch, whatever its grid.
    last_block = atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block) return;  // block-uniform
  __threadfence();
  const volatile float* partials = block_partials;  // written by other blocks: bypass any stale cache line
  float total = 0.0f;
  for (int b = static_cast<int>(threadIdx.x); b < static_cast<int>(gridDim.x); b += block_size) total += partials[b];
  total = kernels::block_sum(total);
  if (threadIdx.x == 0) out[0] = total;
}

// Blocks that keep every SM streaming: whole waves of resident blocks, at least min_grid, at most max_grid.
// Queried once per device.
inline int device_grid() {
  constexpr int max_devices = 64;
  static int cached[max_devices] = {};
  int device = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  if (device >= 0 && device < max_devices && cached[device] != 0) return cached[device];
  int sms = 0, per_sm = 0;
  KBENCH_HIP_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device));
  KBENCH_HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, block_size, 0));
  const int resident = sms * per_sm > 0 ? sms * per_sm : 1;
  int grid = resident * ((min_grid + resident - 1) / resident);
  if (grid > max_grid) grid = max_grid;  // only when more than max_grid blocks are resident at once
  if (device >= 0 && device < max_devices) cached[device] = grid;
  return grid;
}

// out[0] = sum of x[0 .. n); an empty x sums to 0. x must be float-aligned (any float* is).
inline void launch(const float* x, float* out, std::int64_t n, hipStream_t stream) {
  if (n <= 0) {
    KBENCH_HIP_CHECK(hipMemsetAsync(out, 0, sizeof(float), stream));
    return;
  }
  const auto misalignment = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(x) % 16);  // 0, 4, 8, 12
  const std::int64_t to_boundary = misalignment == 0 ? 0 : (16 - misalignment) / 4;
  const std::int64_t head = to_boundary < n ? to_boundary : n;
  // Fewer blocks when x is small: one vector per thread at most, so the error bound above still holds.
  const std::int64_t needed = ((n - head) / vector_width + block_size - 1) / block_size;
  const int grid_cap = device_grid();
  const int blocks = needed < 1 ? 1 : static_cast<int>(needed < grid_cap ? needed : grid_cap);
  hipLaunchKernelGGL(reduce_kernel, dim3(static_cast<unsigned int>(blocks)), dim3(block_size), 0, stream, x, out, n,
                     head);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace reduce_sum_v2
