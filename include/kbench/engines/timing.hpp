// kbench/engines/timing.hpp: RAII streams and events, and the event-pair measurement: every device time
// kbench takes (the timing run, the census, the timer floor, the copy bandwidth, the spinner's
// calibration) is read between the two events of an event_pair, recorded here and nowhere else.
#pragma once

#include <utility>
#include <vector>

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

// Two events around the work one measurement times.
class event_pair {
 public:
  // Records the start on `s`, enqueues `work` there, records the stop; waits for nothing.
  template <class Work>
  void record_around(hipStream_t s, Work&& work) {
    start_.record(s);
    work();
    stop_.record(s);
  }
  // Waits until the stop has completed.
  void wait() const { stop_.synchronize(); }
  // Seconds from the start to the stop; both must have completed (wait()).
  [[nodiscard]] double seconds() const { return stop_.seconds_since(start_); }
  // The seconds of what `work` enqueues on `s`, waiting for it.
  template <class Work>
  [[nodiscard]] double time(hipStream_t s, Work&& work) {
    record_around(s, std::forward<Work>(work));
    wait();
    return seconds();
  }

 private:
  event start_;
  event stop_;
};

// `count` event-pair times of what `work` enqueues on `s`, each behind what `before` enqueues there
// (untimed), the first `discard` of them left out (they load code or warm the clocks).
template <class Before, class Work>
[[nodiscard]] std::vector<double> event_pair_samples(hipStream_t s, int count, int discard, Before&& before, Work&& work) {
  event_pair events;
  std::vector<double> seconds;
  for (int i = 0; i < count; ++i) {
    before();
    const double taken = events.time(s, work);
    if (i >= discard) seconds.push_back(taken);
  }
  return seconds;
}

}  // namespace kbench
