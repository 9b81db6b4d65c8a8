// kbench/engines/timing.hpp: RAII streams and events, and the event-pair measurement of one launch.
#pragma once

#include <utility>

#include "../contract/hip_check.hpp"

namespace kbench {

// A non-blocking stream: work a kernel leaves on the legacy default stream is not silently ordered with
// it, so the integrity checks can see it.
class stream {
 public:
  stream() { KBENCH_HIP_CHECK(hipStreamCreateWithFlags(&handle_, hipStreamNonBlocking)); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  ~stream() { KBENCH_HIP_CHECK_NOTHROW(hipStreamDestroy(handle_)); }
  [[nodiscard]] hipStream_t get() const noexcept { return handle_; }
  void synchronize() const { KBENCH_HIP_CHECK(hipStreamSynchronize(handle_)); }

 private:
  hipStream_t handle_ = nullptr;
};

class event {
 public:
  event() { KBENCH_HIP_CHECK(hipEventCreate(&handle_)); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  ~event() { KBENCH_HIP_CHECK_NOTHROW(hipEventDestroy(handle_)); }
  [[nodiscard]] hipEvent_t get() const noexcept { return handle_; }
  void record(hipStream_t s) { KBENCH_HIP_CHECK(hipEventRecord(handle_, s)); }
  void synchronize() const { KBENCH_HIP_CHECK(hipEventSynchronize(handle_)); }

  // Seconds from `start` to this event; both must have completed.
  [[nodiscard]] double seconds_since(const event& start) const {
    float ms = 0.0f;
    KBENCH_HIP_CHECK(hipEventElapsedTime(&ms, start.handle_, handle_));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  hipEvent_t handle_ = nullptr;
};

}  // namespace kbench
