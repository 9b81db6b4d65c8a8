// kbench/engines/clock_stamps.hpp: the SM clock over a stretch of a stream's work, from a stamp before it to
// one after: each stamp is the device's constant-rate timer and the cycle counter of one multiprocessor.
//
// Why this way: a GPU has one cycle counter per multiprocessor, and two counters are not one clock, so both
// stamps of a rate must come from the same multiprocessor (nvbench launches a block on every SM and lets
// the one on SM 0 write). Here the first block to run claims the opening stamp, whatever multiprocessor
// it is on, and the closing stamp is written by a block on that one: no multiprocessor has to exist by
// number (AMD parts ship with compute units disabled). Twice as many one-thread blocks as multiprocessors
// make one on the right multiprocessor all but certain; when none is, that stretch has no clock (NaN).
// The stamps write to mapped host memory: the host reads them once the stream has run them, with no copy.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "../contract/device_buffer.hpp"
#include "../contract/hip_check.hpp"
#include "../contract/platform.hpp"
#include "measure.hpp"
#include "timing.hpp"

namespace kbench {
namespace detail {

struct clock_stamp {
  unsigned long long wall = 0;    // device_wall_ticks(); 0: not written
  unsigned long long cycles = 0;  // clock64() of the multiprocessor that wrote it
};

// Queues a stamp into `out` by the first of `blocks` one-thread blocks to claim `claim`; a closing stamp
// (`opening_claim` set) only from the multiprocessor that wrote the opening one. Defined with kbench's small
// kernels (small_kernels.hpp).
void launch_clock_stamp(clock_stamp* out, unsigned int* claim, const unsigned int* opening_claim, unsigned int blocks,
                        hipStream_t stream);

}  // namespace detail

class clock_stamps {
 public:
  // Stamps between two clearings of the claims: a slot is used again `capacity` stamps later, by when the
  // stream has long run the stamp before (every timing sample waits for the device).
  static constexpr int capacity = 1024;

  // An opening stamp's slot, for its closing stamp.
  struct opened {
    int slot = -1;
  };

  // `highest_hz`: the device's highest SM clock; readings far from any clock the SM can run at say that
  // the cycle counter does not count SM cycles on this device (unreadable()).
  clock_stamps(hipStream_t s, int multiprocessors, double highest_hz)
      : blocks_(static_cast<unsigned int>(2 * std::max(multiprocessors, 1))), claims_(capacity * sizeof(unsigned int)) {
    KBENCH_HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&host_), capacity * sizeof(detail::clock_stamp),
                                   hipHostMallocMapped | hipHostMallocCoherent));
    KBENCH_HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
    KBENCH_HIP_CHECK(hipMemsetAsync(claims_.data(), 0, claims_.bytes(), s));
    check_readings(s, highest_hz);
  }
  clock_stamps(const clock_stamps&) = delete;
  clock_stamps& operator=(const clock_stamps&) = delete;
  ~clock_stamps() {
    (void)hipDeviceSynchronize();  // no stamp may still write
    (void)hipHostFree(host_);
  }

  // Enqueues an opening stamp on `s`.
  [[nodiscard]] opened open(hipStream_t s) {
    if (next_ + 2 > capacity) {  // the closing stamp's slot too, before the claims are cleared
      KBENCH_HIP_CHECK(hipMemsetAsync(claims_.data(), 0, claims_.bytes(), s));
      next_ = 0;
    }
    const int slot = next_++;
    enqueue(s, slot, nullptr);
    return {slot};
  }

  // Enqueues the closing stamp of `o` on `s`; returns its slot.
  int close(hipStream_t s, opened o) {
    const int slot = next_++;
    enqueue(s, slot, claims() + o.slot);
    return slot;
  }

  // The SM clock in Hz from the opening stamp to the closing one, once the stream has run both; NaN when
  // either was not written, or the readings are unreadable().
  [[nodiscard]] double hz(opened o, int closing) const {
    if (!unreadable_.empty()) return std::numeric_limits<double>::quiet_NaN();
    return rate(o.slot, closing);
  }

  // Why the counters cannot give the SM clock on this device (empty: they can).
  [[nodiscard]] const std::string& unreadable() const { return unreadable_; }

 private:
  [[nodiscard]] unsigned int* claims() const { return static_cast<unsigned int*>(claims_.data()); }

  void enqueue(hipStream_t s, int slot, const unsigned int* opening_claim) {
    host_[slot] = detail::clock_stamp{};
    detail::launch_clock_stamp(device_ + slot, claims() + slot, opening_claim, static_cast<unsigned int>(blocks_), s);
  }

  [[nodiscard]] double rate(int opening, int closing) const {
    const detail::clock_stamp& a = host_[opening];
    const detail::clock_stamp& b = host_[closing];
    if (a.wall == 0 || b.wall == 0 || b.wall <= a.wall || b.cycles <= a.cycles) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    return static_cast<double>(b.cycles - a.cycles) / static_cast<double>(b.wall - a.wall) * ticks_per_second_;
  }

  // A stamp pair around a spin of known cycles on a loaded multiprocessor: the timer's rate, where the
  // runtime does not give it, from the event pair around them; then whether the rate read is one the SM
  // clock can have (a tenth of its highest to a quarter above: AMD's s_memtime counts a constant
  // reference clock on some parts, not the SM clock).
  void check_readings(hipStream_t s, double highest_hz) {
    event_pair events;
    opened o{};
    int closing = -1;
    // The first pair loads the code; the second spins ~0.5 ms at 2 GHz, against which the stamps' own
    // launches and the timer's resolution (NVIDIA: 1 us at worst) are small.
    for (const long long spin_cycles : {1LL << 10, 1LL << 20}) {
      events.record_around(s, [&] {
        o = open(s);
        detail::launch_spin(spin_cycles, 1, 1, s);
        closing = close(s, o);
      });
      events.wait();
    }
    ticks_per_second_ = device_wall_tick_rate();
    const detail::clock_stamp& a = host_[o.slot];
    const detail::clock_stamp& b = host_[closing];
    if (ticks_per_second_ <= 0 && b.wall > a.wall) {
      ticks_per_second_ = static_cast<double>(b.wall - a.wall) / events.seconds();
    }
    const double read = rate(o.slot, closing);
    if (!std::isfinite(read)) {
      unreadable_ = "the clock stamps were not written (no block ran on the opening stamp's multiprocessor)";
    } else if (highest_hz > 0 && (read < 0.1 * highest_hz || read > 1.25 * highest_hz)) {
      unreadable_ = fmt::format("the cycle counter read {:.0f} MHz on a busy multiprocessor against a highest SM clock "
                                "of {:.0f} MHz: it does not count the SM clock on this device",
                                read / 1e6, highest_hz / 1e6);
    }
  }

  unsigned int blocks_;
  device_allocation claims_;
  detail::clock_stamp* host_ = nullptr;
  detail::clock_stamp* device_ = nullptr;
  int next_ = 0;
  double ticks_per_second_ = 0.0;
  std::string unreadable_;
};

}  // namespace kbench
