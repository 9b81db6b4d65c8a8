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

// Fills `count` words of `word_bytes` (2, 4 or 8) with `value`: kbench's own kernel rather than
// hipMemsetD16/D32, which map to the CUDA driver API on the NVIDIA platform: the runtime API alone keeps
// programs startable on machines without a driver, where they must report "skipped". (This function and the
// others below that launch a kernel are defined with kbench's small kernels: small_kernels.hpp.)
void fill_words_on_device(void* data, std::size_t count, std::size_t word_bytes, std::uint64_t value, hipStream_t stream);

template <class Word>
void launch_fill_words(void* data, std::size_t count, Word value, hipStream_t stream) {
  fill_words_on_device(data, count, sizeof(Word), static_cast<std::uint64_t>(value), stream);
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

// Adds the fingerprint of `bytes` (a multiple of 4) of device memory, under `key`, to the device counter
// `sum`, without waiting: fingerprints add, so two sums over the same draws agree unless a word changed. The
// fingerprint is an order-independent sum of hashed (word, index) pairs under the key: one changed word
// changes it (but for a 2^-64 chance), and under a key drawn at random and never shown, no one can make other
// words whose sum is the same on purpose.
void add_fingerprint(const void* data, std::size_t bytes, unsigned long long* sum, hipStream_t stream, std::uint64_t key = 0);

// The fingerprint of `bytes` (a multiple of 4) of device memory under `key`, summed in a kept device word
// (kept_counters()); waits for `stream`.
[[nodiscard]] inline std::uint64_t fingerprint_of(const void* data, std::size_t bytes, std::uint64_t key, hipStream_t stream) {
  unsigned long long* const counter = kept_counters();
  KBENCH_HIP_CHECK(hipMemsetAsync(counter, 0, sizeof *counter, stream));
  add_fingerprint(data, bytes, counter, stream, key);
  unsigned long long sum = 0;
  KBENCH_HIP_CHECK(hipMemcpyAsync(&sum, counter, sizeof sum, hipMemcpyDeviceToHost, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));
  return sum;
}

// How many 4-byte words differ between `a` and `b` (`bytes`, a multiple of 4, of device memory), and the
// byte offset of the first (0 when none); synchronises `stream`.
[[nodiscard]] std::size_t count_differing_words(const void* a, const void* b, std::size_t bytes, hipStream_t stream,
                                                std::size_t& first_byte);

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
