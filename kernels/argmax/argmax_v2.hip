// argmax v2: the greedy sampling step with 16-byte loads, rows split across blocks when the batch is small.
//   Same contract as argmax_v1 (see there): logits [batch, vocab] fp32 or fp16 -> int32 index of each row's
//   maximum, ties to the smallest index, NaN never selected, a row of only NaN gives 0.
// What changed from v1, and why:
// - 16-byte loads (4 fp32 or 8 fp16 logits), 4 in flight per thread: enough bytes in flight to saturate DRAM.
//   Rows need not start 16-byte aligned (vocab % 4 or % 8 != 0): the few elements before the first 16-byte
//   boundary of a row and after its last full vector are taken by scalar loads.
// - A small batch does not fill the GPU with one block per row (batch 1 would run on one SM), so each row is
//   split into blocks_per_row contiguous ranges of vectors, up to 8 blocks per SM in all (one wave). Each
//   block publishes its best (value, index) to a device workspace; the last block of the row to arrive (an
//   atomic counter) reduces the row's candidates and writes the index: one launch, no second kernel.
// - Wave shuffles for the block reduction of (value, index) pairs.
// The comparison is v1's total order, so the result does not depend on the split or on reduction order.
// Workspace: static device arrays shared by all launches in the process; the counters reset themselves. Two
// launches that split rows must not run concurrently (on different streams) on the same device.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

namespace argmax_v2 {

constexpr int block_size = 256;
constexpr int unroll = 4;                     // 16-byte loads in flight per thread
constexpr int blocks_per_multiprocessor = 8;  // 8 * 256 = 2048 threads: what one SM (or CU) holds at once
constexpr int no_index = 0x7FFFFFFF;          // the identity's index: loses every comparison with a candidate
constexpr std::int64_t workspace_capacity = 16384;

// Split rows only: block b's candidate in slot b, and per row the count of blocks that have published.
static __device__ float partial_value[workspace_capacity];
static __device__ int partial_index[workspace_capacity];
static __device__ unsigned int arrivals[workspace_capacity];

template <class T>
struct alignas(16) vector16 {
  static constexpr int width = 16 / static_cast<int>(sizeof(T));
  T v[width];
};

// Keeps (v, i) if it beats (best_v, best_i): a larger value, or the same value at a smaller index.
__device__ inline void keep_better(float& best_v, int& best_i, float v, int i) {
  if (v > best_v || (v == best_v && i < best_i)) {
    best_v = v;
    best_i = i;
  }
}

// The block's best pair, returned to every thread. Every thread must call it; blockDim.x is a multiple of
// the wave size.
__device__ inline void block_argmax(float& v, int& i) {
  __shared__ float wave_value[kbench::max_waves_per_block];
  __shared__ int wave_index[kbench::max_waves_per_block];
  for (int offset = kbench::wave_size() / 2; offset > 0; offset /= 2) {
    const float other_v = kbench::shfl_xor(v, offset);
    const int other_i = kbench::shfl_xor(i, offset);
    keep_better(v, i, other_v, other_i);
  }
  const int wave = static_cast<int>(threadIdx.x) / kbench::wave_size();
  if (static_cast<int>(threadIdx.x) % kbench::wave_size() == 0) {
    wave_value[wave] = v;
    wave_index[wave] = i;
  }
  __syncthreads();
  const int waves = static_cast<int>(blockDim.x) / kbench::wave_size();
  v = wave_value[0];
  i = wave_index[0];
  for (int w = 1; w < waves; ++w) keep_better(v, i, wave_value[w], wave_index[w]);
  __syncthreads();  // the arrays may be reused by the next call
}

// Block b handles part (b % blocks_per_row) of row (b / blocks_per_row).
template <class T>
__global__ void __launch_bounds__(block_size)
argmax_kernel(const T* logits, std::int32_t* out, std::int64_t vocab, int blocks_per_row) {
  using vec = vector16<T>;
  constexpr int width = vec::width;
  __shared__ bool last_to_arrive;
  const std::int64_t row = blockIdx.x / blocks_per_row;
  const int part = static_cast<int>(blockIdx.x % blocks_per_row);
  const T* x = logits + row * vocab;

  // The row: `head` scalars up to the first 16-byte boundary, `vectors` full vectors, then a scalar tail.
  const auto misalignment = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(x) % 16 / sizeof(T));
  const std::int64_t head = misalignment == 0 ? 0 : (width - misalignment < vocab ? width - misalignment : vocab);
  const std::int64_t vectors = (vocab - head) / width;
  const std::int64_t tail = head + vectors * width;
  const vec* body = reinterpret_cast<const vec*>(x + head);
  const std::int64_t begin = vectors * part / blocks_per_row;
  const std::int64_t end = vectors * (part + 1) / blocks_per_row;

  float best_v = -__builtin_huge_valf();
  int best_i = no_index;
  if (part == 0) {  // head and tail: fewer than `width` elements each
    const std::int64_t t = threadIdx.x;
    if (t < head) keep_better(best_v, best_i, kbench::to_float(x[t]), static_cast<int>(t));
    if (tail + t < vocab) keep_better(best_v, best_i, kbench::to_float(x[tail + t]), static_cast<int>(tail + t));
  }
  for (std::int64_t i = begin + threadIdx.x; i < end; i += block_size * unroll) {
    vec loaded[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      if (i + u * block_size < end) loaded[u] = body[i + u * block_size];
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      if (i + u * block_size < end) {
        const int first = static_cast<int>(head + (i + u * block_size) * width);
#pragma unroll
        for (int k = 0; k < width; ++k) keep_better(best_v, best_i, kbench::to_float(loaded[u].v[k]), first + k);
      }
    }
  }
  block_argmax(best_v, best_i);
  if (blocks_per_row == 1) {
    if (threadIdx.x == 0) out[row] = best_i == no_index ? 0 : best_i;
    return;
  }

  // Publish this block's candidate; the last block of the row to arrive reduces the row's candidates.
  if (threadIdx.x == 0) {
    partial_value[blockIdx.x] = best_v;
    partial_index[blockIdx.x] = best_i;
    __threadfence();  // the candidate is visible device-wide before the arrival is counted
    const unsigned int arrived = atomicAdd(&arrivals[row], 1u);
    last_to_arrive = arrived == static_cast<unsigned int>(blocks_per_row - 1);
  }
  __syncthreads();
  if (!last_to_arrive) return;
  __threadfence();
  const volatile float* values = partial_value;  // volatile: read from L2, not a stale L1 line
  const volatile int* indices = partial_index;
  best_v = -__builtin_huge_valf();
  best_i = no_index;
  for (int p = static_cast<int>(threadIdx.x); p < blocks_per_row; p += block_size) {
    const std::int64_t slot = row * blocks_per_row + p;
    keep_better(best_v, best_i, values[slot], indices[slot]);
  }
  block_argmax(best_v, best_i);
  if (threadIdx.x == 0) {
    out[row] = best_i == no_index ? 0 : best_i;
    arrivals[row] = 0;  // ready for the next launch (which starts after this kernel on the stream)
  }
}

inline int multiprocessors() {
  static const int count = [] {
    int device = 0, n = 0;
    KBENCH_HIP_CHECK(hipGetDevice(&device));
    KBENCH_HIP_CHECK(hipDeviceGetAttribute(&n, hipDeviceAttributeMultiprocessorCount, device));
    return n > 0 ? n : 1;
  }();
  return count;
}

// T: float or kbench::fp16_t.
template <class T>
void launch(const T* logits, std::int32_t* out, std::int64_t batch, std::int64_t vocab, hipStream_t stream) {
  if (vocab >= no_index) throw std::invalid_argument("argmax: vocab must be below 2^31 - 1");
  if (batch <= 0 || vocab <= 0) return;
  // Blocks per row: as many as fit on the GPU at once (blocks_per_multiprocessor per SM) over the whole
  // batch, rounded down so they run as one wave; but at least one vector per thread in each block, and the
  // candidates must fit the workspace.
  const std::int64_t resident = static_cast<std::int64_t>(blocks_per_multiprocessor) * multiprocessors();
  std::int64_t blocks_per_row = resident / batch;
  const std::int64_t vectors = vocab / vector16<T>::width;
  blocks_per_row = std::min(blocks_per_row, std::max<std::int64_t>(vectors / block_size, 1));
  blocks_per_row = std::min(blocks_per_row, workspace_capacity / batch);
  blocks_per_row = std::max<std::int64_t>(blocks_per_row, 1);
  const std::int64_t blocks = batch * blocks_per_row;
  if (blocks > 0x7FFFFFFF) throw std::invalid_argument("argmax: batch too large for one grid");
  hipLaunchKernelGGL(argmax_kernel<T>, dim3(static_cast<unsigned int>(blocks)), dim3(block_size), 0, stream, logits,
                     out, vocab, static_cast<int>(blocks_per_row));
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace argmax_v2
