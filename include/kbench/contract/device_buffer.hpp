// kbench/contract/device_buffer.hpp: RAII ownership of device memory. Freed on every path, exceptions included;
// an allocation that fails throws hip_error with the size asked for.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "hip_check.hpp"

namespace kbench {

// Untyped device memory.
class device_allocation {
 public:
  device_allocation() = default;
  explicit device_allocation(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    const hipError_t status = hipMalloc(&data_, bytes);
    if (status != hipSuccess) {
      data_ = nullptr;
      (void)hipGetLastError();  // clear the sticky error of a failed allocation on the NVIDIA platform
      throw hip_error(status, "hipMalloc of " + std::to_string(bytes) + " bytes failed: " + hipGetErrorName(status) +
                                  " (" + hipGetErrorString(status) + ")");
    }
  }
  device_allocation(device_allocation&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  device_allocation& operator=(device_allocation&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  device_allocation(const device_allocation&) = delete;
  device_allocation& operator=(const device_allocation&) = delete;
  ~device_allocation() { release(); }

  [[nodiscard]] void* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

 private:
  void release() noexcept {
    // At exit the runtime may unload before a static allocation is released; the driver frees it then.
    if (data_) {
      const hipError_t status = hipFree(data_);
      if (status != hipSuccess && status != hipErrorDeinitialized) detail::report_hip_error(status, "hipFree", __FILE__, __LINE__);
    }
    data_ = nullptr;
    bytes_ = 0;
  }
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Typed device memory of `size` elements.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t size) : memory_(size * sizeof(T)), size_(size) {}

  [[nodiscard]] T* data() const noexcept { return static_cast<T*>(memory_.data()); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return size_ * sizeof(T); }

  void copy_from_host(const std::vector<T>& values) {
    if (values.size() != size_) {
      throw usage_error("device_buffer: copying " + std::to_string(values.size()) + " elements into a buffer of " +
                        std::to_string(size_));
    }
    KBENCH_HIP_CHECK(hipMemcpy(data(), values.data(), bytes(), hipMemcpyHostToDevice));
  }
  [[nodiscard]] std::vector<T> to_host() const {
    std::vector<T> values(size_);
    KBENCH_HIP_CHECK(hipMemcpy(values.data(), data(), bytes(), hipMemcpyDeviceToHost));
    return values;
  }

 private:
  device_allocation memory_;
  std::size_t size_ = 0;
};

namespace detail {

// Two 64-bit words of device memory on the current device, kept for the process: for a count and a first
// index that a check reads back within one call (its stream synchronized before it returns). Allocating them
// per call would cost a free each time, and a free waits for the whole device.
[[nodiscard]] inline unsigned long long* kept_counters() {
  static std::vector<device_buffer<unsigned long long>> by_device;
  int device = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  const auto ordinal = static_cast<std::size_t>(device);
  if (by_device.size() <= ordinal) by_device.resize(ordinal + 1);
  device_buffer<unsigned long long>& words = by_device[ordinal];
  if (!words.data()) words = device_buffer<unsigned long long>(2);
  return words.data();
}

}  // namespace detail
}  // namespace kbench
