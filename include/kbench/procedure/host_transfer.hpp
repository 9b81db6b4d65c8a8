// kbench/procedure/host_transfer.hpp: a buffer's values brought to a host function (the host reference, the
// oracle) as double, fast: copied through pinned memory in chunks, each chunk converted on every host
// thread while the next one is in flight, into host memory kept from one run to the next (so that its
// pages are touched once per case, not once per seed).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>

#include "../contract/dtype.hpp"
#include "../contract/hip_check.hpp"
#include "../contract/kernel_case.hpp"
#include "../detail/parallel.hpp"
#include "../engines/timing.hpp"

namespace kbench {
namespace detail {

// Pinned host memory, freed on every path.
class pinned_allocation {
 public:
  pinned_allocation() = default;
  explicit pinned_allocation(std::size_t bytes) : bytes_(bytes) { KBENCH_HIP_CHECK(hipHostMalloc(&data_, bytes, 0)); }
  pinned_allocation(pinned_allocation&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  pinned_allocation& operator=(pinned_allocation&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  pinned_allocation(const pinned_allocation&) = delete;
  pinned_allocation& operator=(const pinned_allocation&) = delete;
  ~pinned_allocation() {
    if (data_) (void)hipHostFree(data_);
  }
  [[nodiscard]] unsigned char* data() const { return static_cast<unsigned char*>(data_); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Doubles on the host, left uninitialised until written (a std::vector would zero them first, on one
// thread, which for a GiB of inputs costs more than the copy).
struct host_doubles {
  std::unique_ptr<double[]> values;
  std::size_t size = 0;
  void resize(std::size_t n) {
    if (n != size) values.reset(new double[n]), size = n;
  }
  [[nodiscard]] double* data() const { return values.get(); }
};

// Converts `count` elements of type D at `bits` into `out`, on every host thread.
template <dtype D>
void decode_all(const unsigned char* bits, std::size_t count, double* out) {
  constexpr std::size_t piece = std::size_t{1} << 18;
  parallel_for((count + piece - 1) / piece, [&](std::size_t p) {
    const std::size_t end = std::min(count, (p + 1) * piece);
    for (std::size_t i = p * piece; i < end; ++i) {
      storage_t<D> word;
      std::memcpy(&word, bits + i * sizeof word, sizeof word);
      out[i] = decode<D>(word);
    }
  });
}

// The two pinned chunks a transfer alternates between, and an event per chunk.
class host_staging {
 public:
  static constexpr std::size_t chunk_bytes = std::size_t{64} << 20;

  // The values of `slot` at `device` (its rows only, when padded) into `out`, as double.
  void to_doubles(const void* device, const buffer_slot& slot, host_doubles& out, hipStream_t stream) {
    out.resize(slot.size);
    visit_dtype(slot.type, [&](auto d) { transfer<decltype(d)::value>(device, slot, out.data(), stream); });
  }

 private:
  template <dtype D>
  void transfer(const void* device, const buffer_slot& slot, double* out, hipStream_t stream) {
    constexpr std::size_t width = sizeof(storage_t<D>);
    const std::size_t per_chunk = slot.padded() ? std::max<std::size_t>(1, chunk_bytes / (slot.row() * width)) * slot.row()
                                                : chunk_bytes / width;  // elements; whole rows when padded
    const std::size_t chunks = (slot.size + per_chunk - 1) / per_chunk;
    prepare(std::min(slot.size, per_chunk) * width);
    auto enqueue = [&](std::size_t c) {
      const std::size_t first = c * per_chunk, count = std::min(slot.size - first, per_chunk);
      unsigned char* into = chunk_[c % 2].data();
      if (slot.padded()) {
        const std::size_t row_bytes = slot.row() * width;
        const auto* from = static_cast<const unsigned char*>(device) + first / slot.row() * slot.pitch * width;
        KBENCH_HIP_CHECK(hipMemcpy2DAsync(into, row_bytes, from, slot.pitch * width, row_bytes, count / slot.row(),
                                          hipMemcpyDeviceToHost, stream));
      } else {
        KBENCH_HIP_CHECK(hipMemcpyAsync(into, static_cast<const unsigned char*>(device) + first * width, count * width,
                                        hipMemcpyDeviceToHost, stream));
      }
      copied_[c % 2].record(stream);
    };
    if (chunks > 0) enqueue(0);
    for (std::size_t c = 0; c < chunks; ++c) {
      if (c + 1 < chunks) enqueue(c + 1);  // into the other chunk, converted already
      copied_[c % 2].synchronize();
      const std::size_t first = c * per_chunk;
      decode_all<D>(chunk_[c % 2].data(), std::min(slot.size - first, per_chunk), out + first);
    }
  }

  void prepare(std::size_t bytes) {
    if (chunk_[0].bytes() >= bytes) return;
    chunk_[0] = pinned_allocation(bytes);
    chunk_[1] = pinned_allocation(bytes);
  }

  pinned_allocation chunk_[2];
  event copied_[2];
};

}  // namespace detail
}  // namespace kbench
