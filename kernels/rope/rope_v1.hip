// rope v1: rotary position embedding applied to q and k in place (as vLLM's rotary_embedding op does), the
// straightforward version, kept as the reference for later ones.
//   q [tokens, q_heads, head_dim], k [tokens, kv_heads, head_dim]: fp16 or bf16, updated in place
//   positions [tokens] int32; cos_cache, sin_cache [max_pos, head_dim / 2] fp32 (precomputed, as vLLM's
//   cos_sin_cache; the kernel computes no trigonometry)
//   For token t, every head, pair index i in [0, head_dim / 2), c = cos_cache[positions[t], i], s = sin_cache[...]:
//     (a, b) = neox ? (i, i + head_dim / 2)      half-split, GPT-NeoX / Llama style
//                   : (2i, 2i + 1)               interleaved, GPT-J style
//     x[a] <- x[a] * c - x[b] * s,   x[b] <- x[b] * c + x[a] * s        fp32 math, one rounding to T at the end
// One block per token, one thread per pair, scalar accesses.
#pragma once

#include <cstdint>
#include <stdexcept>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

namespace rope_v1 {

constexpr int block_size = 256;

// The rotation of one pair. Written with explicit fmaf so that no contraction choice of the compiler can
// change the rounding: every version evaluates exactly these two expressions, so results are bit-identical.
__device__ inline void rotate(float x1, float x2, float c, float s, float& y1, float& y2) {
  y1 = fmaf(x1, c, -(x2 * s));
  y2 = fmaf(x2, c, x1 * s);
}

template <class T>
__global__ void __launch_bounds__(block_size)
rope_kernel(T* q, T* k, const std::int32_t* positions, const float* cos_cache, const float* sin_cache,
            std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim, bool neox) {
  const std::int64_t token = blockIdx.x;
  const std::int64_t half = head_dim / 2;
  const std::int64_t position = positions[token];
  const float* cos_row = cos_cache + position * half;
  const float* sin_row = sin_cache + position * half;
  const std::int64_t pairs = (q_heads + kv_heads) * half;
  for (std::int64_t j = threadIdx.x; j < pairs; j += block_size) {
    const std::int64_t head = j / half, i = j % half;
    T* x = head < q_heads ? q + (token * q_heads + head) * head_dim
                          : k + (token * kv_heads + (head - q_heads)) * head_dim;
    const std::int64_t a = neox ? i : 2 * i;
    const std::int64_t b = neox ? i + half : 2 * i + 1;
    float y1, y2;
    rotate(kbench::to_float(x[a]), kbench::to_float(x[b]), cos_row[i], sin_row[i], y1, y2);
    x[a] = kbench::from_float<T>(y1);
    x[b] = kbench::from_float<T>(y2);
  }
}

// Positions must lie in [0, max_pos); head_dim must be even.
template <class T>
void launch(T* q, T* k, const std::int32_t* positions, const float* cos_cache, const float* sin_cache,
            std::int64_t tokens, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim, bool neox,
            hipStream_t stream) {
  if (head_dim % 2 != 0) throw std::invalid_argument("rope: head_dim must be even");
  if (tokens <= 0 || head_dim <= 0 || q_heads + kv_heads <= 0) return;
  hipLaunchKernelGGL(rope_kernel<T>, dim3(static_cast<unsigned int>(tokens)), dim3(block_size), 0, stream, q, k,
                     positions, cos_cache, sin_cache, q_heads, kv_heads, head_dim, neox);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace rope_v1
