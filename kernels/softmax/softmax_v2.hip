// softmax v2: one read of x from DRAM when the row fits in registers.
//   y[r, j] = exp(x[r, j] - m[r]) / sum_k exp(x[r, k] - m[r]),  m[r] = max_k x[r, k]
// fp16 in, fp16 out, fp32 math; the row max is subtracted, so large logits cannot overflow.
// What changed from v1, and why:
// - Rows of up to 512 threads * 8 packs * W elements (32768 when W = 8) are loaded once into registers
//   (as fp16) and the max, the sum and the output are all computed from there: x is read once and y
//   written once, the minimum traffic. All loads of a thread are issued before any is used.
// - 16-byte accesses (packs of W = 8 elements) when cols % 8 == 0 and x, y are 16-byte aligned; other
//   sizes take the same kernels with W = 1.
// - exp(t) as exp2f(t * log2(e)): one hardware exp2 plus a multiply instead of expf's range reduction,
//   because the kernel computes two exponentials per element (sum, then output: keeping 64 fp32 values per
//   thread would halve the blocks per SM). The difference from v1's expf is about 1e-6 relative for the
//   arguments that matter (t > -30), far below fp16's 2^-11 step.
// - PER_THREAD (1, 2, 4, 8) is a template parameter picked from cols, the block size a constant: every
//   cached access has a constant offset. No grid-stride loop (it costs registers); more rows than one
//   launch takes are split across launches.
// - Longer rows (e.g. a 128256-entry vocabulary): a streaming kernel with an online max and sum (one
//   read), then a second read that writes y; correct for any length, 1.5x the minimum traffic.
#pragma once

#include <algorithm>
#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

#include "../common/block_reduce.hpp"

namespace softmax_v2 {

using half_t = kbench::fp16_t;

constexpr int block_size = 512;
constexpr int vector_width = 8;    // elements per 16-byte access
constexpr int max_per_thread = 8;  // packs cached in registers per thread
constexpr std::int64_t max_rows_per_launch = 1 << 20;
constexpr float log2e = 1.44269504088896340736f;

// W elements moved as one access (16 bytes for W = 8).
template <int W>
struct alignas(sizeof(half_t) * W) pack {
  half_t v[W];
};

// exp(x - row_max), as exp2.
__device__ inline float exp_shifted(half_t x, float row_max) {
  return exp2f((kbench::to_float(x) - row_max) * log2e);
}

template <int W>
__device__ inline pack<W> normalized(const pack<W>& p, float row_max, float inv_sum) {
  pack<W> out;
#pragma unroll
  for (int e = 0; e < W; ++e) out.v[e] = kbench::from_float<half_t>(exp_shifted(p.v[e], row_max) * inv_sum);
  return out;
}

// One block per row, the row in registers. Requires cols / W <= PER_THREAD * block_size, cols % W == 0
// and pointers aligned to the pack.
template <int W, int PER_THREAD>
__global__ void __launch_bounds__(block_size)
softmax_cached_kernel(const half_t* x, half_t* y, std::int64_t cols) {
  using P = pack<W>;
  const std::int64_t packs = cols / W;
  const P* x_row = reinterpret_cast<const P*>(x + blockIdx.x * cols);
  P* y_row = reinterpret_cast<P*>(y + blockIdx.x * cols);
  const half_t neg_inf = kbench::from_float<half_t>(-__builtin_huge_valf());  // exp of it adds 0

  P v[PER_THREAD];
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(k) * block_size;
    if (i < packs) {
      v[k] = x_row[i];
    } else {
#pragma unroll
      for (int e = 0; e < W; ++e) v[k].v[e] = neg_inf;
    }
  }
  float m = -__builtin_huge_valf();
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
#pragma unroll
    for (int e = 0; e < W; ++e) m = fmaxf(m, kbench::to_float(v[k].v[e]));
  }
  const float row_max = kernels::block_max(m);
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
#pragma unroll
    for (int e = 0; e < W; ++e) s += exp_shifted(v[k].v[e], row_max);
  }
  const float inv_sum = 1.0f / kernels::block_sum(s);
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const std::int64_t i = threadIdx.x + static_cast<std::int64_t>(k) * block_size;
    if (i < packs) y_row[i] = normalized(v[k], row_max, inv_sum);
  }
}

// One block per row of any length: pass 1 keeps a running max m and a sum s of exp(x - m) per thread
// (rescaling s when m grows), the block combines them; pass 2 reads x again and writes y.
template <int W>
__global__ void __launch_bounds__(block_size)
softmax_streaming_kernel(const half_t* x, half_t* y, std::int64_t cols) {
  using P = pack<W>;
  const std::int64_t packs = cols / W;
  const P* x_row = reinterpret_cast<const P*>(x + blockIdx.x * cols);
  P* y_row = reinterpret_cast<P*>(y + blockIdx.x * cols);

  // A finite start, not -inf: a thread whose elements so far are all -inf then adds exp(-inf) = 0
  // instead of exp(-inf - -inf) = NaN.
  constexpr float lowest = -3.402823466e38f;
  float m = lowest;
  float s = 0.0f;
  for (std::int64_t i = threadIdx.x; i < packs; i += block_size) {
    const P p = x_row[i];
    float pack_max = lowest;
#pragma unroll
    for (int e = 0; e < W; ++e) pack_max = fmaxf(pack_max, kbench::to_float(p.v[e]));
    if (pack_max > m) {
      s *= exp2f((m - pack_max) * log2e);
      m = pack_max;
    }
#pragma unroll
    for (int e = 0; e < W; ++e) s += exp_shifted(p.v[e], m);
  }
  const float row_max = kernels::block_max(m);
  const float inv_sum = 1.0f / kernels::block_sum(s * exp2f((m - row_max) * log2e));
  for (std::int64_t i = threadIdx.x; i < packs; i += block_size) {
    const P p = x_row[i];
    y_row[i] = normalized(p, row_max, inv_sum);
  }
}

template <class Launch>
void for_each_launch(std::int64_t rows, std::int64_t cols, const half_t* x, half_t* y, Launch launch_rows) {
  for (std::int64_t first = 0; first < rows; first += max_rows_per_launch) {
    const dim3 grid(static_cast<unsigned int>(std::min(rows - first, max_rows_per_launch)));
    launch_rows(grid, x + first * cols, y + first * cols);
    KBENCH_HIP_CHECK_LAUNCH();
  }
}

template <int W, int PER_THREAD>
void launch_cached(const half_t* x, half_t* y, std::int64_t rows, std::int64_t cols, hipStream_t stream) {
  for_each_launch(rows, cols, x, y, [&](dim3 grid, const half_t* xs, half_t* ys) {
    hipLaunchKernelGGL(HIP_KERNEL_NAME(softmax_cached_kernel<W, PER_THREAD>), grid, dim3(block_size), 0, stream, xs,
                       ys, cols);
  });
}

// Rows that fit: the fewest packs per thread (1, 2, 4, 8) that cover them; longer rows stream.
template <int W>
void launch_width(const half_t* x, half_t* y, std::int64_t rows, std::int64_t cols, hipStream_t stream) {
  const std::int64_t packs = cols / W;
  if (packs > static_cast<std::int64_t>(block_size) * max_per_thread) {
    for_each_launch(rows, cols, x, y, [&](dim3 grid, const half_t* xs, half_t* ys) {
      hipLaunchKernelGGL(softmax_streaming_kernel<W>, grid, dim3(block_size), 0, stream, xs, ys, cols);
    });
  } else if (packs > 4 * block_size) {
    launch_cached<W, 8>(x, y, rows, cols, stream);
  } else if (packs > 2 * block_size) {
    launch_cached<W, 4>(x, y, rows, cols, stream);
  } else if (packs > block_size) {
    launch_cached<W, 2>(x, y, rows, cols, stream);
  } else {
    launch_cached<W, 1>(x, y, rows, cols, stream);
  }
}

// x, y: [rows, cols], softmax over each row.
inline void launch(const half_t* x, half_t* y, std::int64_t rows, std::int64_t cols, hipStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (cols % vector_width == 0 && aligned(x) && aligned(y)) {
    launch_width<vector_width>(x, y, rows, cols, stream);
  } else {
    launch_width<1>(x, y, rows, cols, stream);
  }
}

}  // namespace softmax_v2
