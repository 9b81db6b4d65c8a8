// add_rmsnorm v2: one pass over DRAM.
//   h = T(x + residual); residual = h; x = T(h * inv_rms * w), inv_rms = 1 / sqrt(mean_j(h^2) + eps)
// in place, fp16 or bf16 in memory, fp32 math; the same per-element expressions as v1, so only the order
// of the sum of squares differs.
// What changed from v1, and why:
// - 16-byte accesses (8 elements) when cols % 8 == 0 and every pointer is 16-byte aligned; other sizes
//   take the same kernel with 1-element accesses (W = 1), so odd rows are still read from DRAM once.
// - Each thread issues all its loads of x and residual before using any (the stores to residual may
//   alias them as far as the compiler knows, so it would not hoist them itself): 2 * PER_THREAD
//   accesses in flight per thread.
// - h stays in registers from the add to the scaling (rows up to 256 threads * 8 packs * W elements);
//   residual is stored as soon as h is known, so those writes drain during the reduction. Longer rows
//   read the rest of h back from residual (just written by the same thread, so still in L2).
// - PER_THREAD (1, 2, 4, 8) is a template parameter picked from cols, and the block size a constant, so
//   every cached access has a constant offset; no grid-stride loop (see the kernel). Registers on sm_90
//   at cols = 8192: 63 (fp16) / 80 (bf16), i.e. 4 / 3 blocks of 256 threads per SM.
// - w is loaded after the reduction: loading it before cost fp16 8 more registers (one block per SM
//   less); it comes from L2 (16 KiB shared by every row).
#pragma once

#include <algorithm>
#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

#include "../common/block_reduce.hpp"

namespace add_rmsnorm_v2 {

constexpr int block_size = 256;
constexpr int vector_width = 8;    // elements per 16-byte access
constexpr int max_per_thread = 8;  // packs cached in registers per thread
constexpr std::int64_t max_rows_per_launch = 1 << 20;  // more rows take several launches (grid limits)

// W elements moved as one access (16 bytes for W = 8).
template <class T, int W>
struct alignas(sizeof(T) * W) pack {
  T v[W];
};

template <class T, int W>
__device__ inline pack<T, W> add_and_square(const pack<T, W>& a, const pack<T, W>& b, float& sum_of_squares) {
  pack<T, W> h;
#pragma unroll
  for (int k = 0; k < W; ++k) {
    h.v[k] = kbench::from_float<T>(kbench::to_float(a.v[k]) + kbench::to_float(b.v[k]));
    const float hf = kbench::to_float(h.v[k]);
    sum_of_squares += hf * hf;
  }
  return h;
}

template <class T, int W>
__device__ inline pack<T, W> scale(const pack<T, W>& h, const pack<T, W>& weight, float inv_rms) {
  pack<T, W> out;
#pragma unroll
  for (int k = 0; k < W; ++k) {
    out.v[k] = kbench::from_float<T>(kbench::to_float(h.v[k]) * inv_rms * kbench::to_float(weight.v[k]));
  }
  return out;
}

// One block per row; requires cols % W == 0 and pointers aligned to the pack. PER_THREAD packs per
// thread stay in registers; packs past PER_THREAD * block_size go through the remainder loops.
template <class T, int W, int PER_THREAD>
__global__ void __launch_bounds__(block_size)
add_rmsnorm_kernel(T* x, T* residual, const T* w, std::int64_t cols, float eps) {
  using P = pack<T, W>;
  const std::int64_t packs = cols / W;
  constexpr std::int64_t stride = block_size;
  const std::int64_t first_uncached = threadIdx.x + PER_THREAD * stride;
  const P* weight = reinterpret_cast<const P*>(w);
  // One row per block, no grid-stride loop: around this body it made ptxas use ~75% more registers.
  const std::int64_t row = blockIdx.x;
  P* x_row = reinterpret_cast<P*>(x + row * cols);
  P* r_row = reinterpret_cast<P*>(residual + row * cols);

  P a[PER_THREAD], b[PER_THREAD];  // every load issued before any store to residual
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const std::int64_t i = threadIdx.x + k * stride;
    if (i < packs) {
      a[k] = x_row[i];
      b[k] = r_row[i];
    }
  }
  float sum = 0.0f;
  P h[PER_THREAD];
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const std::int64_t i = threadIdx.x + k * stride;
    if (i < packs) {
      h[k] = add_and_square(a[k], b[k], sum);
      r_row[i] = h[k];
    }
  }
#pragma unroll 1
  for (std::int64_t i = first_uncached; i < packs; i += stride) {
    const P xi = x_row[i], ri = r_row[i];  // whole-pack loads (passing x_row[i] by reference splits them)
    r_row[i] = add_and_square(xi, ri, sum);
  }

  const float inv_rms = rsqrtf(kernels::block_sum(sum) / static_cast<float>(cols) + eps);
  P wk[PER_THREAD];
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const std::int64_t i = threadIdx.x + k * stride;
    if (i < packs) wk[k] = weight[i];
  }
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const std::int64_t i = threadIdx.x + k * stride;
    if (i < packs) x_row[i] = scale(h[k], wk[k], inv_rms);
  }
#pragma unroll 1
  for (std::int64_t i = first_uncached; i < packs; i += stride) {
    const P hi = r_row[i], wi = weight[i];
    x_row[i] = scale(hi, wi, inv_rms);
  }
}

template <class T, int W, int PER_THREAD>
void launch_kernel(T* x, T* residual, const T* w, std::int64_t rows, std::int64_t cols, float eps,
                   hipStream_t stream) {
  for (std::int64_t first = 0; first < rows; first += max_rows_per_launch) {
    const dim3 grid(static_cast<unsigned int>(std::min(rows - first, max_rows_per_launch)));
    hipLaunchKernelGGL(HIP_KERNEL_NAME(add_rmsnorm_kernel<T, W, PER_THREAD>), grid, dim3(block_size), 0, stream,
                       x + first * cols, residual + first * cols, w, cols, eps);
    KBENCH_HIP_CHECK_LAUNCH();
  }
}

// Packs per thread: the fewest (1, 2, 4, 8) that cover the row, else 8 and the remainder loops.
template <class T, int W>
void launch_packs(T* x, T* residual, const T* w, std::int64_t rows, std::int64_t cols, float eps,
                  hipStream_t stream) {
  const std::int64_t packs = cols / W;
  int per_thread = 1;
  while (per_thread < max_per_thread && packs > static_cast<std::int64_t>(block_size) * per_thread) per_thread *= 2;
  switch (per_thread) {
    case 1: launch_kernel<T, W, 1>(x, residual, w, rows, cols, eps, stream); break;
    case 2: launch_kernel<T, W, 2>(x, residual, w, rows, cols, eps, stream); break;
    case 4: launch_kernel<T, W, 4>(x, residual, w, rows, cols, eps, stream); break;
    default: launch_kernel<T, W, max_per_thread>(x, residual, w, rows, cols, eps, stream); break;
  }
}

// x: [rows, cols], becomes y; residual: [rows, cols], becomes x + residual; w: [cols].
template <class T>
void launch(T* x, T* residual, const T* w, std::int64_t rows, std::int64_t cols, float eps, hipStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (cols % vector_width == 0 && aligned(x) && aligned(residual) && aligned(w)) {
    launch_packs<T, vector_width>(x, residual, w, rows, cols, eps, stream);
  } else {
    launch_packs<T, 1>(x, residual, w, rows, cols, eps, stream);
  }
}

}  // namespace add_rmsnorm_v2
