// kbench/engines/small_kernels.hpp: kbench's own small kernels (poison, fingerprints, changed words, seals,
// the launch gate, spins, cache flushes, clock stamps) and the functions that launch them. The engines
// declare those functions; they are defined here, in one device unit of each program
// (procedure/device_ceilings_definitions.hpp), so that the stages of the procedure, which hold no kernel of
// their own, compile as plain C++ without the GPU compiler's passes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "../contract/hip_check.hpp"
#include "../contract/platform.hpp"
#include "../detail/host_device.hpp"
#include "clock_stamps.hpp"
#include "device_compare.hpp"
#include "device_pass.hpp"
#include "integrity.hpp"
#include "launch_gate.hpp"
#include "measure.hpp"
#include "sealed_memory.hpp"

namespace kbench {
namespace detail {

// Blocks for a grid-stride loop over `items`: one per 256, at least 1, at most `most`.
inline unsigned int grid_for(std::size_t items, std::size_t most = 4096) {
  return static_cast<unsigned int>(std::clamp<std::size_t>((items + 255) / 256, 1, most));
}

template <class Word>
__global__ void fill_words(Word* data, std::size_t count, Word value) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    data[i] = value;
  }
}

template <class Word>
void fill_words_as(void* data, std::size_t count, std::uint64_t value, hipStream_t stream) {
  hipLaunchKernelGGL(fill_words<Word>, dim3(grid_for(count)), dim3(256), 0, stream, static_cast<Word*>(data), count,
                     static_cast<Word>(value));
  KBENCH_HIP_CHECK_LAUNCH();
}

void fill_words_on_device(void* data, std::size_t count, std::size_t word_bytes, std::uint64_t value, hipStream_t stream) {
  if (count == 0) return;
  switch (word_bytes) {
    case 2: return fill_words_as<std::uint16_t>(data, count, value, stream);
    case 4: return fill_words_as<std::uint32_t>(data, count, value, stream);
    case 8: return fill_words_as<std::uint64_t>(data, count, value, stream);
    default: throw usage_error("fill_words_on_device: words of 2, 4 or 8 bytes, not " + std::to_string(word_bytes));
  }
}

__global__ void count_changed_words(const std::uint32_t* a, const std::uint32_t* b, std::size_t words,
                                    unsigned long long* changed, unsigned long long* first) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (a[i] != b[i]) {
      atomicAdd(changed, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

std::size_t count_differing_words(const void* a, const void* b, std::size_t bytes, hipStream_t stream,
                                  std::size_t& first_byte) {
  unsigned long long* const counters = kept_counters();
  const unsigned long long init[2] = {0ull, ~0ull};
  KBENCH_HIP_CHECK(hipMemcpyAsync(counters, init, sizeof init, hipMemcpyHostToDevice, stream));
  const std::size_t words = bytes / 4;
  hipLaunchKernelGGL(count_changed_words, dim3(grid_for(words)), dim3(256), 0, stream, static_cast<const std::uint32_t*>(a),
                     static_cast<const std::uint32_t*>(b), words, counters, counters + 1);
  KBENCH_HIP_CHECK_LAUNCH();
  unsigned long long result[2];
  KBENCH_HIP_CHECK(hipMemcpyAsync(result, counters, sizeof result, hipMemcpyDeviceToHost, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));
  first_byte = result[0] ? static_cast<std::size_t>(result[1]) * 4 : 0;
  return static_cast<std::size_t>(result[0]);
}

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

// An order-independent 64-bit fingerprint of `count` 4-byte words: a sum of hashed (word, index) pairs, so
// one changed word changes it (but for a 2^-64 chance), whatever the grid and however the words are loaded.
// `key` keys the hash: under a key drawn at random and never shown, no one can make other words whose sum
// is the same on purpose.
__global__ void fingerprint_kernel(const std::uint32_t* words, std::size_t count, unsigned long long* sum,
                                   unsigned long long key) {
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = on_quads(words) ? count / 4 : 0;
  unsigned long long mine = 0;
  for (std::size_t q = first; q < quads; q += stride) {
    const uint4 v = reinterpret_cast<const uint4*>(words)[q];
    mine += fingerprint_term(v.x, 4 * q, key) + fingerprint_term(v.y, 4 * q + 1, key) +
            fingerprint_term(v.z, 4 * q + 2, key) + fingerprint_term(v.w, 4 * q + 3, key);
  }
  for (std::size_t i = 4 * quads + first; i < count; i += stride) mine += fingerprint_term(words[i], i, key);
  add_block_sum(mine, sum);
}

// Blocks for a pass over `words` 4-byte words at `data`, four at a time where they are 16-byte aligned.
inline unsigned int grid_for_words(const void* data, std::size_t words) {
  return grid_for(on_quads(data) ? (words + 3) / 4 : words);
}

void add_fingerprint(const void* data, std::size_t bytes, unsigned long long* sum, hipStream_t stream, std::uint64_t key) {
  const std::size_t words = bytes / 4;
  hipLaunchKernelGGL(fingerprint_kernel, dim3(grid_for_words(data, words)), dim3(fingerprint_threads), 0, stream,
                     static_cast<const std::uint32_t*>(data), words, sum, static_cast<unsigned long long>(key));
  KBENCH_HIP_CHECK_LAUNCH();
}

template <class Word>
__global__ void count_words_equal(const Word* data, std::size_t n, Word value, unsigned long long* count) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    mine += data[i] == value;
  }
  if (mine) atomicAdd(count, mine);
}

}  // namespace detail

std::size_t count_poison_on_device(const void* data, dtype t, std::size_t size, hipStream_t stream) {
  unsigned long long* const count = detail::kept_counters();
  KBENCH_HIP_CHECK(hipMemsetAsync(count, 0, sizeof(unsigned long long), stream));
  visit_dtype(t, [&](auto d) {
    using Word = word_t<decltype(d)::value>;
    hipLaunchKernelGGL(detail::count_words_equal<Word>, dim3(1024), dim3(256), 0, stream, static_cast<const Word*>(data),
                       size, poison_as<Word>(t), count);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  unsigned long long result = 0;
  KBENCH_HIP_CHECK(hipMemcpyAsync(&result, count, sizeof result, hipMemcpyDeviceToHost, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));
  return static_cast<std::size_t>(result);
}

namespace detail {

// The key stream of `key`: word i is XORed with one half of the hash of its pair, i / 2 (one hash for
// two words).
__device__ inline std::uint32_t key_half(std::uint64_t pair_hash, std::size_t i) {
  return static_cast<std::uint32_t>(pair_hash >> (32 * (i & 1)));
}

// Word i sealed or unsealed (XOR its share of the pair's hash): its fingerprint term, of the sealed word.
__device__ inline unsigned long long seal_word(std::uint32_t& word, std::size_t i, std::uint64_t pair_hash,
                                               unsigned long long fingerprint_key, bool sealing) {
  const std::uint32_t before = word;
  word = before ^ key_half(pair_hash, i);
  return fingerprint_term(sealing ? word : before, i, fingerprint_key);
}

// Each word XOR the key stream, and the fingerprint of the sealed words (the words written when sealing,
// the words read when unsealing) added to `sum`: one pass over the memory, where a pass for each would read
// it twice more; four words at a time where the memory is 16-byte aligned (on_quads).
__global__ void seal_kernel(std::uint32_t* words, std::size_t count, std::uint64_t key, unsigned long long* sum,
                            unsigned long long fingerprint_key, bool sealing) {
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t quads = on_quads(words) ? count / 4 : 0;
  unsigned long long mine = 0;
  for (std::size_t q = first; q < quads; q += stride) {
    uint4 v = reinterpret_cast<uint4*>(words)[q];
    const std::uint64_t low = mix_seed(key ^ (2 * q)), high = mix_seed(key ^ (2 * q + 1));
    mine += seal_word(v.x, 4 * q, low, fingerprint_key, sealing) + seal_word(v.y, 4 * q + 1, low, fingerprint_key, sealing);
    mine += seal_word(v.z, 4 * q + 2, high, fingerprint_key, sealing) + seal_word(v.w, 4 * q + 3, high, fingerprint_key, sealing);
    reinterpret_cast<uint4*>(words)[q] = v;
  }
  for (std::size_t i = 4 * quads + first; i < count; i += stride) {
    mine += seal_word(words[i], i, mix_seed(key ^ (i >> 1)), fingerprint_key, sealing);
  }
  add_block_sum(mine, sum);
}

void seal_pass_on_device(void* data, std::size_t words, std::uint64_t key, unsigned long long* sum,
                         std::uint64_t fingerprint_key, bool sealing, hipStream_t stream) {
  if (words == 0) return;
  hipLaunchKernelGGL(seal_kernel, dim3(grid_for_words(data, words)), dim3(fingerprint_threads), 0, stream,
                     static_cast<std::uint32_t*>(data), words, key, sum, static_cast<unsigned long long>(fingerprint_key),
                     sealing);
  KBENCH_HIP_CHECK_LAUNCH();
}

__global__ void canary_kernel(unsigned long long* counters, int count, unsigned long long canary) {
  for (int i = 0; i < count; ++i) counters[i] = canary;
}

void set_canary_on_device(unsigned long long* counters, int count, unsigned long long canary, hipStream_t stream) {
  hipLaunchKernelGGL(canary_kernel, dim3(1), dim3(1), 0, stream, counters, count, canary);
  KBENCH_HIP_CHECK_LAUNCH();
}

__global__ void gate_kernel(const volatile unsigned int* opened, unsigned int ticket, long long timeout_cycles,
                            volatile unsigned int* timed_out) {
  const long long start = clock64();
  while (*opened < ticket) {
    if (clock64() - start > timeout_cycles) {
      *timed_out = 1;
      return;
    }
  }
}

void launch_gate_wait(const unsigned int* opened, unsigned int ticket, long long timeout_cycles, unsigned int* timed_out,
                      hipStream_t stream) {
  hipLaunchKernelGGL(gate_kernel, dim3(1), dim3(1), 0, stream, opened, ticket, timeout_cycles, timed_out);
  KBENCH_HIP_CHECK_LAUNCH();
}

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

void launch_spin(long long cycles, unsigned int blocks, unsigned int threads, hipStream_t stream) {
  hipLaunchKernelGGL(spin_kernel, dim3(blocks), dim3(threads), 0, stream, cycles);
  KBENCH_HIP_CHECK_LAUNCH();
}

int spin_blocks_per_multiprocessor(int threads) {
  int fit = 0;
  if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&fit, reinterpret_cast<const void*>(spin_kernel), threads, 0) != hipSuccess) {
    (void)hipGetLastError();
    return 0;
  }
  return fit;
}

__global__ void empty_kernel() {}

void launch_empty(hipStream_t stream) {
  hipLaunchKernelGGL(empty_kernel, dim3(1), dim3(1), 0, stream);
  KBENCH_HIP_CHECK_LAUNCH();
}

// Reads every 16 bytes of `data`; the sink write (practically never taken) keeps the reads alive.
__global__ void flush_kernel(const uint4* data, std::size_t count, unsigned int* sink) {
  unsigned int folded = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = data[i];
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (folded == 0x9E3779B9u) *sink = folded;
}

void launch_flush(const void* data, std::size_t count, unsigned int* sink, unsigned int blocks, hipStream_t stream) {
  hipLaunchKernelGGL(flush_kernel, dim3(blocks), dim3(256), 0, stream, static_cast<const uint4*>(data), count, sink);
  KBENCH_HIP_CHECK_LAUNCH();
}

// The first block to claim `claim` writes the stamp; a closing stamp (`opening_claim` set) only from the
// multiprocessor that wrote the opening one.
__global__ void clock_stamp_kernel(clock_stamp* out, unsigned int* claim, const unsigned int* opening_claim) {
  const unsigned int unit = multiprocessor_id() + 1;  // a claim of 0 is no claim
  if (opening_claim != nullptr && *opening_claim != unit) return;
  if (atomicCAS(claim, 0u, unit) != 0u) return;
  const long long cycles = clock64();
  out->wall = device_wall_ticks();
  out->cycles = static_cast<unsigned long long>(cycles);
}

void launch_clock_stamp(clock_stamp* out, unsigned int* claim, const unsigned int* opening_claim, unsigned int blocks,
                        hipStream_t stream) {
  hipLaunchKernelGGL(clock_stamp_kernel, dim3(blocks), dim3(1), 0, stream, out, claim, opening_claim);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace kbench
