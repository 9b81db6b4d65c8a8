// gemv v2: decode GEMV (M = 1) at DRAM bandwidth.
//   y[r] = sum_j w[r, j] * x[j]          w row-major [n, k] fp16, x [k] fp16, y [n] fp16, fp32 accumulation
// What changed from v1, and why:
// - 16-byte loads of w and x (8 halves) when k % 8 == 0 and w, x are 16-byte aligned: a wave reads 512 B
//   (32 lanes) or 1 KiB (64 lanes) of a row per instruction instead of 64 or 128 B.
// - A wave works on rows_per_pass rows at once and issues `unroll` loads per row before using any:
//   rows_per_pass * unroll = 8 independent 16-byte loads of w in flight per lane, which with a few
//   blocks per SM covers DRAM latency. Each x load feeds rows_per_pass rows, halving x's cache traffic.
// - x is read through the caches (16 KiB for k = 8192: it stays in L1/L2 and costs no DRAM traffic);
//   w is read exactly once. The only DRAM traffic is w, x once and y.
// - Blocks of 256 threads cover rows_per_block = 16 rows whatever the wave size: n = 28672 gives 1792
//   blocks, several waves of blocks over 132 SMs, so the tail is short.
// Every other shape (k % 8 != 0, misaligned w or x) takes the same kernel with 2-byte packs.
#pragma once

#include <cstdint>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

namespace gemv_v2 {

constexpr int block_size = 256;
constexpr int rows_per_block = 16;
constexpr int rows_per_pass = 2;  // rows a wave reduces together: each x pack feeds both
constexpr int unroll = 4;         // packs per row loaded before any is used

// `width` halves loaded as one access: 16 bytes for width 8, a plain half for width 1.
template <int width>
struct alignas(2 * width) pack {
  __half v[width];
};

template <int width>
__global__ void __launch_bounds__(block_size)
gemv_kernel(const __half* __restrict__ w, const __half* __restrict__ x, __half* __restrict__ y, std::int64_t n,
            std::int64_t k) {
  using pack_t = pack<width>;
  const int wave_size = kbench::wave_size();
  const int lane = static_cast<int>(threadIdx.x) % wave_size;
  const int waves = static_cast<int>(blockDim.x) / wave_size;
  const std::int64_t packs = k / width;  // exact: launch() picks width among the divisors of k
  const auto* x_packs = reinterpret_cast<const pack_t*>(x);

  for (int group = static_cast<int>(threadIdx.x) / wave_size; group < rows_per_block / rows_per_pass; group += waves) {
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block + group * rows_per_pass;
    if (first >= n) break;  // wave-uniform: the whole wave leaves together
    const pack_t* rows[rows_per_pass];
#pragma unroll
    for (int r = 0; r < rows_per_pass; ++r) {
      const std::int64_t row = first + r < n ? first + r : n - 1;  // past the end: re-read the last row, no store
      rows[r] = reinterpret_cast<const pack_t*>(w + row * k);
    }
    float sum[rows_per_pass] = {};

    std::int64_t i = lane;
    const std::int64_t stride = static_cast<std::int64_t>(unroll) * wave_size;  // packs per lane per step
    for (; i + stride - wave_size < packs; i += stride) {
      pack_t xv[unroll];
      pack_t wv[rows_per_pass][unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) xv[u] = x_packs[i + u * wave_size];
#pragma unroll
      for (int r = 0; r < rows_per_pass; ++r) {
#pragma unroll
        for (int u = 0; u < unroll; ++u) wv[r][u] = rows[r][i + u * wave_size];
      }
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
#pragma unroll
        for (int e = 0; e < width; ++e) {
          const float xe = kbench::to_float(xv[u].v[e]);
#pragma unroll
          for (int r = 0; r < rows_per_pass; ++r) sum[r] += kbench::to_float(wv[r][u].v[e]) * xe;
        }
      }
    }
    for (; i < packs; i += wave_size) {  // fewer than unroll packs per lane left
      const pack_t xv = x_packs[i];
#pragma unroll
      for (int r = 0; r < rows_per_pass; ++r) {
        const pack_t wv = rows[r][i];
#pragma unroll
        for (int e = 0; e < width; ++e) sum[r] += kbench::to_float(wv.v[e]) * kbench::to_float(xv.v[e]);
      }
    }

#pragma unroll
    for (int r = 0; r < rows_per_pass; ++r) {
      const float total = kbench::wave_sum(sum[r]);  // every lane of the wave takes part
      if (lane == 0 && first + r < n) y[first + r] = kbench::from_float<__half>(total);
    }
  }
}

inline void launch(const __half* w, const __half* x, __half* y, std::int64_t n, std::int64_t k, hipStream_t stream) {
  if (n <= 0) return;
  if (k <= 0) {
    KBENCH_HIP_CHECK(hipMemsetAsync(y, 0, static_cast<std::size_t>(n) * sizeof(__half), stream));  // empty sums
    return;
  }
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const dim3 grid(static_cast<unsigned int>((n + rows_per_block - 1) / rows_per_block));
  if (k % 8 == 0 && aligned(w) && aligned(x)) {
    hipLaunchKernelGGL(gemv_kernel<8>, grid, dim3(block_size), 0, stream, w, x, y, n, k);
  } else {
    hipLaunchKernelGGL(gemv_kernel<1>, grid, dim3(block_size), 0, stream, w, x, y, n, k);
  }
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace gemv_v2
