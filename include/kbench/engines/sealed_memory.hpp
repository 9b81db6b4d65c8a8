// kbench/engines/sealed_memory.hpp: device memory kept out of the optimized side's reach while it runs. The
// reference's outputs sit in device memory beside the optimized side's later launches on the same inputs (a
// launch off its alignment, one against unmapped memory, the last launch of a run), and a launcher that
// finds them (an allocation of the same size next to its own, a walk over the address space) could copy them
// as its own, or write its outputs into them. Sealed, every word holds its value XOR a key stream drawn for
// this seal: no value of the reference is there to copy. Unsealed, the words get their values back, and a
// fingerprint of the sealed words under a key drawn for this seal, taken at both ends, shows whether anything
// wrote to them meanwhile; it can be taken in between too, the memory left sealed (intact()). Each end is one
// pass over the memory, the fingerprint taken as the words go by. The fingerprint counters start at a canary,
// not at 0, so a counter zeroed by anyone else does not read as a match.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../contract/device_buffer.hpp"
#include "../contract/hip_check.hpp"
#include "../detail/entropy.hpp"
#include "../detail/host_device.hpp"
#include "integrity.hpp"

namespace kbench {
namespace detail {

// Each of `words` words at `data` XOR the key stream of `key` (sealing and unsealing are the same), the
// fingerprint under `fingerprint_key` of the sealed words (written when `sealing`, else read) added to `sum`;
// and `count` fingerprint counters set to `canary`: kernels, so that sealing waits for nothing (between the
// two sides of a timed sample the stream is held behind a gate, and a wait there would never end). Queued on
// `stream`; defined with kbench's small kernels (small_kernels.hpp).
void seal_pass_on_device(void* data, std::size_t words, std::uint64_t key, unsigned long long* sum,
                         std::uint64_t fingerprint_key, bool sealing, hipStream_t stream);
void set_canary_on_device(unsigned long long* counters, int count, unsigned long long canary, hipStream_t stream);

// Device memory to seal (`bytes` from `data`, on the current device, its work on `stream`): whole words, so
// a span that ends inside a word takes the whole word, which reaches into the guard after an output;
// sealing and unsealing put its bytes back. Made apart from seal() (which only queues work on the stream);
// once sealed, unsealed by unseal() or by the destructor. Its two fingerprint counters are device words the
// caller keeps for it (a timed sample seals anew each time: an allocation, and the free that waits for the
// whole device, would come between every two samples), or its own.
class sealed_memory {
 public:
  sealed_memory(void* data, std::size_t bytes, hipStream_t stream, unsigned long long* counters)
      : data_(data), words_((bytes + 3) / 4), stream_(stream), counters_(counters) {}
  sealed_memory(void* data, std::size_t bytes, hipStream_t stream)
      : data_(data), words_((bytes + 3) / 4), stream_(stream), own_counters_(2), counters_(own_counters_.data()) {}
  sealed_memory(const sealed_memory&) = delete;
  sealed_memory& operator=(const sealed_memory&) = delete;
  ~sealed_memory() {
    if (!sealed_) return;
    try {
      (void)unseal();
    } catch (...) {  // a destructor must not throw: the error that unwinds is the one to report
    }
  }

  // Every word XOR a key stream drawn now, and its fingerprint taken; queued on the stream, not waited for.
  void seal() {
    key_ = entropy_word();
    fingerprint_key_ = entropy_word();
    canary_ = static_cast<unsigned long long>(entropy_word());
    set_canary_on_device(counters_, 2, canary_, stream_);
    seal_pass_on_device(data_, words_, key_, counters_, fingerprint_key_, true, stream_);
    sealed_ = true;
  }

  // Whether no word changed since sealing, the memory left sealed: one pass that reads it. Call once the
  // optimized side's work is done (the device waited for), on the device the memory is on; waits for the
  // stream.
  [[nodiscard]] bool intact() const {
    set_canary_on_device(counters_ + 1, 1, canary_, stream_);
    add_fingerprint(data_, words_ * 4, counters_ + 1, stream_, fingerprint_key_);
    return sums_agree();
  }

  // The values back; whether no word changed while sealed. Call as intact() is; waits for the stream.
  [[nodiscard]] bool unseal() {
    sealed_ = false;
    set_canary_on_device(counters_ + 1, 1, canary_, stream_);
    seal_pass_on_device(data_, words_, key_, counters_ + 1, fingerprint_key_, false, stream_);
    return sums_agree();
  }

 private:
  [[nodiscard]] bool sums_agree() const {
    unsigned long long sums[2] = {0, 0};
    KBENCH_HIP_CHECK(hipMemcpyAsync(sums, counters_, sizeof sums, hipMemcpyDeviceToHost, stream_));
    KBENCH_HIP_CHECK(hipStreamSynchronize(stream_));
    return sums[0] == sums[1];
  }

  void* data_;
  std::size_t words_;
  hipStream_t stream_;
  device_buffer<unsigned long long> own_counters_;  // when the caller keeps none
  unsigned long long* counters_;  // the fingerprints of the sealed words: at sealing, and at the check or unsealing
  std::uint64_t key_ = 0, fingerprint_key_ = 0;
  unsigned long long canary_ = 0;
  bool sealed_ = false;
};

}  // namespace detail
}  // namespace kbench
