// rope v2: rotary position embedding on q and k in place, one pass over DRAM with 16-byte accesses.
//   Same contract and arithmetic as rope_v1 (see there): fp16 or bf16 q and k updated in place, int32
//   positions, fp32 cos/sin caches [max_pos, head_dim / 2], half-split (neox) or interleaved (GPT-J) pairs.
// What changed from v1, and why:
// - 16-byte accesses instead of 2-byte scalars, each contiguous across the wave. Half-split: a thread owns
//   8 pairs, elements [i0, i0+8) and [i0+d/2, i0+d/2+8), with cos/sin[i0, i0+8). Interleaved: 4 pairs,
//   elements [2*p0, 2*p0+8), with cos/sin[p0, p0+4). (Interleaved at 8 pairs a thread read two halves
//   of a 32-byte run per wave access: 69% of copy bandwidth on the H200 against 90% half-split.)
// - The layout is a template parameter, so the pairing is resolved at compile time.
// - The block is sized to the token's work (a multiple of 64 lanes, at most 512): with 32 + 8 heads of 128
//   one token is 320 units, one block of 320 threads, no idle second round.
// - Each element is read once and written once; cos/sin rows are shared by all heads of a token (L1/L2).
// The vector path needs head_dim % 16 == 0 (64, 80, 96, 128, 256: every common model) and 16-byte aligned
// q, k, cos and sin; any other shape takes the scalar path, which computes the same thing pair by pair.
#pragma once

#include <cstdint>
#include <stdexcept>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

namespace rope_v2 {

constexpr int max_block_size = 512;
constexpr int pairs_per_unit = 8;  // per thread and step: 16 elements of q or k

template <class T>
struct alignas(16) vector8 {
  T v[8];
};

struct alignas(16) float4_block {
  float v[4];
};

// Exactly rope_v1's rotation (explicit fmaf: no contraction freedom), so the outputs are bit-identical.
__device__ inline void rotate(float x1, float x2, float c, float s, float& y1, float& y2) {
  y1 = fmaf(x1, c, -(x2 * s));
  y2 = fmaf(x2, c, x1 * s);
}

// The start of head `head` of token `token`, counting q's heads first, then k's.
template <class T>
__device__ inline T* head_start(T* q, T* k, std::int64_t token, int head, int q_heads, int kv_heads, int head_dim) {
  return head < q_heads ? q + (token * q_heads + head) * static_cast<std::int64_t>(head_dim)
                        : k + (token * kv_heads + (head - q_heads)) * static_cast<std::int64_t>(head_dim);
}

// Elements of q or k one thread rotates per step: 8 pairs half-split (two 16-byte accesses, each
// coalesced across the wave), 4 pairs interleaved (one 16-byte access: contiguous across the wave too).
template <bool Neox>
constexpr int elements_per_unit = Neox ? 16 : 8;

// One block per token; thread u handles unit u of the token's (q_heads + kv_heads) heads.
template <class T, bool Neox>
__global__ void __launch_bounds__(max_block_size)
rope_vector_kernel(T* q, T* k, const std::int32_t* positions, const float* cos_cache, const float* sin_cache,
                   int q_heads, int kv_heads, int head_dim) {
  using vec = vector8<T>;
  const std::int64_t token = blockIdx.x;
  const int half = head_dim / 2;
  const int units_per_head = head_dim / elements_per_unit<Neox>;
  const int units = (q_heads + kv_heads) * units_per_head;
  const std::int64_t position = positions[token];
  for (int u = static_cast<int>(threadIdx.x); u < units; u += static_cast<int>(blockDim.x)) {
    const int head = u / units_per_head;
    const int unit = u - head * units_per_head;
    T* x = head_start(q, k, token, head, q_heads, kv_heads, head_dim);
    if constexpr (Neox) {
      // Pairs (i0 + j, i0 + j + d/2) for j < 8, with cos/sin[i0 + j].
      const int i0 = unit * pairs_per_unit;
      vec* first = reinterpret_cast<vec*>(x + i0);
      vec* second = reinterpret_cast<vec*>(x + i0 + half);
      const vec a = *first, b = *second;
      const auto* cos4 = reinterpret_cast<const float4_block*>(cos_cache + position * half + i0);
      const auto* sin4 = reinterpret_cast<const float4_block*>(sin_cache + position * half + i0);
      const float4_block c_lo = cos4[0], c_hi = cos4[1], s_lo = sin4[0], s_hi = sin4[1];
      vec out_a, out_b;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float c = j < 4 ? c_lo.v[j] : c_hi.v[j - 4], s = j < 4 ? s_lo.v[j] : s_hi.v[j - 4];
        float y1, y2;
        rotate(kbench::to_float(a.v[j]), kbench::to_float(b.v[j]), c, s, y1, y2);
        out_a.v[j] = kbench::from_float<T>(y1);
        out_b.v[j] = kbench::from_float<T>(y2);
      }
      *first = out_a;
      *second = out_b;
    } else {
      // Pairs (2p, 2p + 1) for p = 4 * unit + j, j < 4, with cos/sin[p].
      const int p0 = unit * 4;
      vec* chunk = reinterpret_cast<vec*>(x + 2 * p0);
      const vec a = *chunk;
      const float4_block c = *reinterpret_cast<const float4_block*>(cos_cache + position * half + p0);
      const float4_block s = *reinterpret_cast<const float4_block*>(sin_cache + position * half + p0);
      vec out;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float y1, y2;
        rotate(kbench::to_float(a.v[2 * j]), kbench::to_float(a.v[2 * j + 1]), c.v[j], s.v[j], y1, y2);
        out.v[2 * j] = kbench::from_float<T>(y1);
        out.v[2 * j + 1] = kbench::from_float<T>(y2);
      }
      *chunk = out;
    }
  }
}

// Any even head_dim, any alignment: one thread per pair, one block per token.
template <class T, bool Neox>
__global__ void __launch_bounds__(max_block_size)
rope_scalar_kernel(T* q, T* k, const std::int32_t* positions, const float* cos_cache, const float* sin_cache,
                   int q_heads, int kv_heads, int head_dim) {
  const std::int64_t token = blockIdx.x;
  const int half = head_dim / 2;
  const int pairs = (q_heads + kv_heads) * half;
  const std::int64_t position = positions[token];
  for (int j = static_cast<int>(threadIdx.x); j < pairs; j += static_cast<int>(blockDim.x)) {
    const int head = j / half, i = j - head * half;
    T* x = head_start(q, k, token, head, q_heads, kv_heads, head_dim);
    const int a = Neox ? i : 2 * i;
    const int b = Neox ? i + half : 2 * i + 1;
    float y1, y2;
    rotate(kbench::to_float(x[a]), kbench::to_float(x[b]), cos_cache[position * half + i],
           sin_cache[position * half + i], y1, y2);
    x[a] = kbench::from_float<T>(y1);
    x[b] = kbench::from_float<T>(y2);
  }
}

// Threads for `work` items per block: as few rounds as max_block_size allows, a multiple of 64 lanes (whole
// waves on both wave sizes), so the last round is not mostly idle.
inline int block_size_for(std::int64_t work) {
  const std::int64_t rounds = (work + max_block_size - 1) / max_block_size;
  const std::int64_t per_round = (work + rounds - 1) / rounds;
  return static_cast<int>((per_round + 63) / 64 * 64);
}

// Positions must lie in [0, max_pos); head_dim must be even.
template <class T>
void launch(T* q, T* k, const std::int32_t* positions, const float* cos_cache, const float* sin_cache,
            std::int64_t tokens, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim, bool neox,
            hipStream_t stream) {
  if (head_dim % 2 != 0) throw std::invalid_argument("rope: head_dim must be even");
  if (tokens <= 0 || head_dim <= 0 || q_heads + kv_heads <= 0) return;
  if ((q_heads + kv_heads) * head_dim > (std::int64_t{1} << 30)) throw std::invalid_argument("rope: token too large");
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vectorizable = head_dim % (2 * pairs_per_unit) == 0 && aligned(q) && aligned(k) && aligned(cos_cache) &&
                            aligned(sin_cache);
  const int hq = static_cast<int>(q_heads), hk = static_cast<int>(kv_heads), d = static_cast<int>(head_dim);
  const dim3 grid(static_cast<unsigned int>(tokens));
  if (vectorizable) {
    const dim3 block(block_size_for((q_heads + kv_heads) * head_dim / (neox ? elements_per_unit<true> : elements_per_unit<false>)));
    if (neox) {
      hipLaunchKernelGGL((rope_vector_kernel<T, true>), grid, block, 0, stream, q, k, positions, cos_cache, sin_cache,
                         hq, hk, d);
    } else {
      hipLaunchKernelGGL((rope_vector_kernel<T, false>), grid, block, 0, stream, q, k, positions, cos_cache, sin_cache,
                         hq, hk, d);
    }
  } else {
    const dim3 block(block_size_for((q_heads + kv_heads) * head_dim / 2));
    if (neox) {
      hipLaunchKernelGGL((rope_scalar_kernel<T, true>), grid, block, 0, stream, q, k, positions, cos_cache, sin_cache,
                         hq, hk, d);
    } else {
      hipLaunchKernelGGL((rope_scalar_kernel<T, false>), grid, block, 0, stream, q, k, positions, cos_cache, sin_cache,
                         hq, hk, d);
    }
  }
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace rope_v2
