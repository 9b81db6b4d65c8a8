// kbench/engines/fingerprint_terms.hpp: the terms of kbench's fingerprints of device memory, and a block's
// share of their sum: the fingerprint kernel (small_kernels.hpp), the seals and the draw of timed input sets
// (procedure/random_kernels.hpp, which fingerprints the words it writes as it writes them) add the same terms,
// so that any of them can vouch for what another saw.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../contract/platform.hpp"

namespace kbench {
namespace detail {

inline constexpr unsigned int fingerprint_threads = 256;

// One word's share of a fingerprint: the (word, index) pair hashed under `key` (splitmix64's finaliser).
__device__ inline unsigned long long fingerprint_term(std::uint32_t word, std::size_t index, unsigned long long key) {
  unsigned long long z = (static_cast<unsigned long long>(word) << 32 ^ index ^ key) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A block's terms added to `sum` once (blockDim.x == fingerprint_threads): an atomic per thread on one
// address would serialise a million of them (about 1 ms on an H200).
__device__ inline void add_block_sum(unsigned long long mine, unsigned long long* sum) {
  __shared__ unsigned long long partial[fingerprint_threads];
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned int width = fingerprint_threads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) partial[threadIdx.x] += partial[threadIdx.x + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

}  // namespace detail
}  // namespace kbench
