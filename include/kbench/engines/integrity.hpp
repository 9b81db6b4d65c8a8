// kbench/engines/integrity.hpp: device-side defences around every launch kbench runs. Outputs are poisoned before
// each run and framed by guard regions that must be untouched after it; inputs are compared with a
// pristine copy, so a kernel that writes out of bounds or changes its inputs is named.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../contract/device_buffer.hpp"
#include "../contract/dtype.hpp"
#include "../contract/hip_check.hpp"

namespace kbench {
namespace detail {

inline constexpr unsigned char guard_byte = 0xB7;
inline constexpr std::size_t guard_bytes = 64 * 1024;  // each side; catches overruns of up to a large row

// Fills `count` elements of type Word with `value`. kbench's own kernel rather than hipMemsetD16/D32,
// which map to the CUDA driver API on the NVIDIA platform: the runtime API alone keeps programs
// startable on machines without a driver, where they must report "skipped".
template <class Word>
__global__ void fill_words(Word* data, std::size_t count, Word value) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    data[i] = value;
  }
}

template <class Word>
void launch_fill_words(void* data, std::size_t count, Word value, hipStream_t stream) {
  if (count == 0) return;
  const auto blocks = static_cast<unsigned int>(std::min<std::size_t>((count + 255) / 256, 4096));
  hipLaunchKernelGGL(fill_words<Word>, dim3(blocks), dim3(256), 0, stream, static_cast<Word*>(data), count, value);
  KBENCH_HIP_CHECK_LAUNCH();
}

// Writes the poison pattern of `type` over `size` elements.
inline void poison(void* data, dtype type, std::size_t size, hipStream_t stream) {
  visit_dtype(type, [&](auto d) {
    using Word = word_t<decltype(d)::value>;
    if constexpr (sizeof(Word) == 1) {
      KBENCH_HIP_CHECK(hipMemsetAsync(data, poison_as<Word>(type), size, stream));
    } else {
      launch_fill_words<Word>(data, size, poison_as<Word>(type), stream);
    }
  });
}

// Device memory for one output with a guard region on each side.
class guarded_output {
 public:
  guarded_output() = default;
  explicit guarded_output(std::size_t bytes) : memory_(bytes + 2 * guard_bytes), bytes_(bytes) {}

  [[nodiscard]] void* data() const { return static_cast<unsigned char*>(memory_.data()) + guard_bytes; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

  // Poisons the output and re-arms both guards.
  void prepare(dtype type, std::size_t size, hipStream_t stream) {
    auto* base = static_cast<unsigned char*>(memory_.data());
    KBENCH_HIP_CHECK(hipMemsetAsync(base, guard_byte, guard_bytes, stream));
    KBENCH_HIP_CHECK(hipMemsetAsync(base + guard_bytes + bytes_, guard_byte, guard_bytes, stream));
    poison(data(), type, size, stream);
  }
  // Poisons the output only: what the guards caught since they were armed stays visible.
  void poison_contents(dtype type, std::size_t size, hipStream_t stream) { poison(data(), type, size, stream); }

  // Empty when both guards are intact; otherwise where the first stray write landed, in bytes relative
  // to the start or the end of the output. Call after the stream is synchronised.
  [[nodiscard]] std::string check_guards() const {
    std::vector<unsigned char> before(guard_bytes), after(guard_bytes);
    const auto* base = static_cast<const unsigned char*>(memory_.data());
    KBENCH_HIP_CHECK(hipMemcpy(before.data(), base, guard_bytes, hipMemcpyDeviceToHost));
    KBENCH_HIP_CHECK(hipMemcpy(after.data(), base + guard_bytes + bytes_, guard_bytes, hipMemcpyDeviceToHost));
    std::size_t changed_before = 0, changed_after = 0, last_before = 0, first_after = guard_bytes;
    for (std::size_t i = 0; i < guard_bytes; ++i) {
      if (before[i] != guard_byte) ++changed_before, last_before = i;
      if (after[i] != guard_byte) {
        if (changed_after++ == 0) first_after = i;
      }
    }
    std::string found;
    if (changed_before) {
      found += std::to_string(changed_before) + " bytes changed before the start (nearest at offset -" +
               std::to_string(guard_bytes - last_before) + ")";
    }
    if (changed_after) {
      found += std::string(found.empty() ? "" : "; ") + std::to_string(changed_after) +
               " bytes changed past the end (first at byte " + std::to_string(bytes_ + first_after) + ", the end is " +
               std::to_string(bytes_) + ")";
    }
    return found;
  }

 private:
  device_allocation memory_;
  std::size_t bytes_ = 0;
};

// A template so that the header can be included by several translation units of one program.
template <class Word>
__global__ void count_changed_words(const Word* a, const Word* b, std::size_t words,
                                           unsigned long long* changed, unsigned long long* first) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (a[i] != b[i]) {
      atomicAdd(changed, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
  }
}

inline constexpr unsigned int fingerprint_threads = 256;

// An order-independent 64-bit fingerprint of `words` 4-byte words: a sum of hashed (word, index) pairs,
// so one changed word changes it (but for a 2^-64 chance), whatever the grid. Each block adds its sum
// once: an atomic per thread on one address would serialise a million of them (about 1 ms on an H200).
// `key` keys the hash: under a key drawn at random and never shown, no one can make other words whose sum
// is the same on purpose.
template <int Unused = 0>
__global__ void fingerprint_kernel(const std::uint32_t* words, std::size_t count, unsigned long long* sum,
                                   unsigned long long key) {
  __shared__ unsigned long long partial[fingerprint_threads];
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    unsigned long long z = (static_cast<unsigned long long>(words[i]) << 32 ^ i ^ key) + 0x9E3779B97F4A7C15ull;  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    mine += z ^ (z >> 31);
  }
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned int width = fingerprint_threads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) partial[threadIdx.x] += partial[threadIdx.x + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

// Adds the fingerprint of `bytes` (a multiple of 4) of device memory, under `key`, to the device counter
// `sum`, without waiting: fingerprints add, so two sums over the same draws agree unless a word changed.
inline void add_fingerprint(const void* data, std::size_t bytes, unsigned long long* sum, hipStream_t stream,
                            std::uint64_t key = 0) {
  const std::size_t words = bytes / 4;
  const auto blocks = static_cast<unsigned int>(std::clamp<std::size_t>((words + 255) / 256, 1, 4096));
  hipLaunchKernelGGL(fingerprint_kernel<>, dim3(blocks), dim3(fingerprint_threads), 0, stream, static_cast<const std::uint32_t*>(data),
                     words, sum, static_cast<unsigned long long>(key));
  KBENCH_HIP_CHECK_LAUNCH();
}

// The fingerprint of `bytes` (a multiple of 4) of device memory under `key`, with `counter` (a device word)
// to sum it in; waits for `stream`.
[[nodiscard]] inline std::uint64_t fingerprint_of(const void* data, std::size_t bytes, std::uint64_t key,
                                                  unsigned long long* counter, hipStream_t stream) {
  KBENCH_HIP_CHECK(hipMemsetAsync(counter, 0, sizeof *counter, stream));
  add_fingerprint(data, bytes, counter, stream, key);
  unsigned long long sum = 0;
  KBENCH_HIP_CHECK(hipMemcpyAsync(&sum, counter, sizeof sum, hipMemcpyDeviceToHost, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));
  return sum;
}

// How many 4-byte words differ between `a` and `b` (`bytes`, a multiple of 4, of device memory), and the
// byte offset of the first (0 when none); synchronises `stream`.
[[nodiscard]] inline std::size_t count_differing_words(const void* a, const void* b, std::size_t bytes,
                                                       hipStream_t stream, std::size_t& first_byte) {
  unsigned long long* const counters = kept_counters();
  const unsigned long long init[2] = {0ull, ~0ull};
  KBENCH_HIP_CHECK(hipMemcpyAsync(counters, init, sizeof init, hipMemcpyHostToDevice, stream));
  const std::size_t words = bytes / 4;
  const auto blocks = static_cast<unsigned int>(std::clamp<std::size_t>((words + 255) / 256, 1, 4096));
  hipLaunchKernelGGL(count_changed_words<std::uint32_t>, dim3(blocks), dim3(256), 0, stream,
                     static_cast<const std::uint32_t*>(a), static_cast<const std::uint32_t*>(b), words, counters,
                     counters + 1);
  KBENCH_HIP_CHECK_LAUNCH();
  unsigned long long result[2];
  KBENCH_HIP_CHECK(hipMemcpyAsync(result, counters, sizeof result, hipMemcpyDeviceToHost, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));
  first_byte = result[0] ? static_cast<std::size_t>(result[1]) * 4 : 0;
  return static_cast<std::size_t>(result[0]);
}

// An input buffer and its pristine copy, to prove that no launch changed it.
class checked_input {
 public:
  explicit checked_input(std::size_t bytes)
      : memory_(round_up(bytes)), pristine_(round_up(bytes)), bytes_(bytes) {}

  [[nodiscard]] void* data() const { return memory_.data(); }

  // Records the current contents as the ones every later launch must leave in place.
  void snapshot(hipStream_t stream) {
    // The padding up to a whole word is zeroed in both copies, so it never reads as a change.
    if (memory_.bytes() > bytes_) {
      KBENCH_HIP_CHECK(hipMemsetAsync(static_cast<unsigned char*>(memory_.data()) + bytes_, 0, memory_.bytes() - bytes_, stream));
    }
    KBENCH_HIP_CHECK(hipMemcpyAsync(pristine_.data(), memory_.data(), memory_.bytes(), hipMemcpyDeviceToDevice, stream));
  }

  // Bytes (counted by 4-byte words) that differ from the snapshot; 0 when untouched.
  [[nodiscard]] std::size_t changed_words(hipStream_t stream, std::size_t& first_byte) const {
    return count_differing_words(memory_.data(), pristine_.data(), memory_.bytes(), stream, first_byte);
  }

 private:
  static std::size_t round_up(std::size_t bytes) { return (bytes + 3) / 4 * 4; }
  device_allocation memory_;
  device_allocation pristine_;
  std::size_t bytes_;
};

}  // namespace detail
}  // namespace kbench
