// argmax v1: the greedy sampling step, the straightforward version, kept as the reference for later ones.
//   logits [batch, vocab] fp32 or fp16 -> out [batch] int32: the index of each row's maximum.
//   Ties go to the smallest index (as torch.argmax). NaN logits are never selected; a row with no
//   selectable value (only NaN) gives 0. vocab must be below 2^31 - 1.
// The order (value descending, then index ascending) is total on the candidates, so any reduction order
// picks the same element: every version agrees exactly, ties included.
// One block per row; scalar loads; each thread keeps its best (value, index); a shared-memory tree.
#pragma once

#include <cstdint>
#include <stdexcept>

#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

namespace argmax_v1 {

constexpr int block_size = 256;
constexpr int no_index = 0x7FFFFFFF;  // the identity's index: loses every comparison with a real candidate

// (v, i) beats (best_v, best_i): a larger value, or the same value at a smaller index.
__device__ inline bool beats(float v, int i, float best_v, int best_i) {
  return v > best_v || (v == best_v && i < best_i);
}

template <class T>
__global__ void __launch_bounds__(block_size) argmax_kernel(const T* logits, std::int32_t* out, std::int64_t vocab) {
  __shared__ float values[block_size];
  __shared__ int indices[block_size];
  const std::int64_t row = blockIdx.x;
  const T* x = logits + row * vocab;
  float best_v = -__builtin_huge_valf();
  int best_i = no_index;
  for (std::int64_t j = threadIdx.x; j < vocab; j += block_size) {
    const float v = kbench::to_float(x[j]);
    if (beats(v, static_cast<int>(j), best_v, best_i)) {
      best_v = v;
      best_i = static_cast<int>(j);
    }
  }
  values[threadIdx.x] = best_v;
  indices[threadIdx.x] = best_i;
  __syncthreads();
  for (int stride = block_size / 2; stride > 0; stride /= 2) {
    const int t = static_cast<int>(threadIdx.x);
    if (t < stride && beats(values[t + stride], indices[t + stride], values[t], indices[t])) {
      values[t] = values[t + stride];
      indices[t] = indices[t + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[row] = indices[0] == no_index ? 0 : indices[0];
}

// T: float or kbench::fp16_t.
template <class T>
void launch(const T* logits, std::int32_t* out, std::int64_t batch, std::int64_t vocab, hipStream_t stream) {
  if (vocab >= no_index) throw std::invalid_argument("argmax: vocab must be below 2^31 - 1");
  if (batch <= 0 || vocab <= 0) return;
  hipLaunchKernelGGL(argmax_kernel<T>, dim3(static_cast<unsigned int>(batch)), dim3(block_size), 0, stream, logits, out,
                     vocab);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace argmax_v1
