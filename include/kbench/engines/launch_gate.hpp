// kbench/engines/launch_gate.hpp: holds a stream until the host has enqueued everything a sample times,
// so that no timed region waits for the host (nvbench's blocking kernel).
//
// Why: a spin of fixed length ahead of each timed region hides the launch cost only while the host
// enqueues faster than the spin runs out, and the spin's length in cycles is calibrated once, at whatever
// clock the GPU ran then; a graph of thousands of launches, or a launch function that does host work, can
// outlast it. Behind the gate both sides of a sample are queued before either starts, whatever the host
// takes. (On the H200 it did not change the first side's slowdown that made tiny batched cases sample until
// their time limit: that came from the inputs, timing_run.hpp.)
//
// The gate is a one-thread kernel that waits for a ticket the host writes to mapped host memory. A launch
// function that waits for the device (a blocking copy, a synchronize) would wait for the gate: after
// `timeout_seconds` the gate opens by itself and says so, and the caller stops using it.
#pragma once

#include <cmath>

#include "../contract/hip_check.hpp"

namespace kbench {
namespace detail {

// Queues a kernel that waits until `*opened` (host memory the device sees) reaches `ticket`, or sets
// `*timed_out` after `timeout_cycles` of clock64(); defined with kbench's small kernels (small_kernels.hpp).
void launch_gate_wait(const unsigned int* opened, unsigned int ticket, long long timeout_cycles, unsigned int* timed_out,
                      hipStream_t stream);

}  // namespace detail

class launch_gate {
 public:
  // `cycles_per_second`: the rate of clock64() (the spinner's calibration).
  launch_gate(double cycles_per_second, double timeout_seconds = 1.0)
      : timeout_cycles_(static_cast<long long>(std::ceil(cycles_per_second * timeout_seconds))) {
    KBENCH_HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&words_), 2 * sizeof(unsigned int),
                                   hipHostMallocMapped | hipHostMallocCoherent));
    words_[0] = 0;  // the last ticket opened
    words_[1] = 0;  // whether a gate opened by itself
    KBENCH_HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void**>(&device_words_), words_, 0));
  }
  launch_gate(const launch_gate&) = delete;
  launch_gate& operator=(const launch_gate&) = delete;
  ~launch_gate() {
    open();
    (void)hipDeviceSynchronize();  // no gate may still read the words
    (void)hipHostFree(words_);
  }

  // Closed from construction to destruction: what the host enqueues on the stream in between starts
  // once it is all queued.
  class held {
   public:
    held(launch_gate& gate, hipStream_t s) : gate_(gate) { gate_.close(s); }
    held(const held&) = delete;
    held& operator=(const held&) = delete;
    ~held() { gate_.open(); }

   private:
    launch_gate& gate_;
  };

  // Whether some gate opened by itself, its timeout run out (the work behind it may include launch cost).
  [[nodiscard]] bool timed_out() const { return __atomic_load_n(&words_[1], __ATOMIC_ACQUIRE) != 0; }

 private:
  void close(hipStream_t s) {
    ++ticket_;
    detail::launch_gate_wait(device_words_, ticket_, timeout_cycles_, device_words_ + 1, s);
  }
  void open() { __atomic_store_n(&words_[0], ticket_, __ATOMIC_RELEASE); }

  long long timeout_cycles_;
  unsigned int* words_ = nullptr;         // host view
  unsigned int* device_words_ = nullptr;  // the device's view of the same memory
  unsigned int ticket_ = 0;
};

}  // namespace kbench
