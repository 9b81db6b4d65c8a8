// kbench/engines/measure.hpp: the device-side tools of timing.
//
// Why each exists (figures from the H200, ../shared/notes/hip-on-nvidia.md): a plain event pair around a
// launch reads ~3% above the profiler on a 0.5 ms kernel and several microseconds above it on tiny ones,
// because the launch itself is timed and the caches are warm from the previous iteration.
// - cache_flush: reads a buffer larger than the last-level cache before a cold launch (triton zeroes 256
//   MiB; AMD's Infinity Cache is larger than the L2 it reports, so the default is generous). Reading, not
//   writing: a memset would leave the cache full of dirty lines that the timed kernel then pays to write
//   back. It ends with four empty launches: right behind the flush's wide grid, the second of two dependent
//   kernels started ~0.9 us late in most samples on the H200 (two empty kernels: 4.1 us against 3.0 us), and
//   never behind four empty launches, which cost ~6 us of device time. Before the read, every persisting L2
//   line (NVIDIA: a kernel's access-policy window) is set back to normal, or it would stay through the read.
// - spinner: a kernel that keeps the GPU busy for ~20 us while the host enqueues the event pair and the
//   launch, so the timed region starts with the launch already queued (nvbench's blocking-kernel idea).
//   The flush plays this role in cold mode.
// - launch_graph: many launches captured in a graph and replayed, for kernels of a few microseconds
//   whose launch cost would otherwise dominate.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../contract/device_buffer.hpp"
#include "../contract/hip_check.hpp"
#include "../contract/platform.hpp"
#include "../results/results.hpp"
#include "timing.hpp"

namespace kbench {
namespace detail {

// kbench's small kernels that timing queues, defined in small_kernels.hpp: a spin of `cycles` of clock64()
// in each of `blocks` x `threads`; an empty kernel; a read of `count` 16-byte words from `data` over `blocks`
// blocks (the sink write, practically never taken, keeps the reads alive); and how many spinning blocks of
// `threads` fit on one multiprocessor (0 where the runtime will not say).
void launch_spin(long long cycles, unsigned int blocks, unsigned int threads, hipStream_t stream);
void launch_empty(hipStream_t stream);
void launch_flush(const void* data, std::size_t count, unsigned int* sink, unsigned int blocks, hipStream_t stream);
[[nodiscard]] int spin_blocks_per_multiprocessor(int threads);

}  // namespace detail

// Reads `bytes` of device memory to evict the caches, then four empty launches (see above); enqueued on a
// stream.
class cache_flush {
 public:
  cache_flush(std::size_t bytes, int multiprocessors)
      : requested_(bytes), memory_(bytes / 16 * 16 + 16), blocks_(4 * multiprocessors) {
    KBENCH_HIP_CHECK(hipMemset(memory_.data(), 0x5B, memory_.bytes()));
  }
  void enqueue(hipStream_t s) const {
    KBENCH_HIP_CHECK(reset_persisting_l2());  // lines a kernel made persisting would survive the read
    auto* words = static_cast<const uint4*>(memory_.data());
    const std::size_t count = memory_.bytes() / 16 - 1;  // the last 16 bytes are the sink
    detail::launch_flush(words, count, reinterpret_cast<unsigned int*>(const_cast<uint4*>(words) + count),
                         static_cast<unsigned int>(blocks_), s);
    for (int i = 0; i < 4; ++i) detail::launch_empty(s);
  }
  [[nodiscard]] std::size_t bytes() const { return memory_.bytes(); }
  // The size it was made for (bytes() adds the sink): a flush of the same size is made from this.
  [[nodiscard]] std::size_t requested_bytes() const { return requested_; }

 private:
  std::size_t requested_;
  device_allocation memory_;
  int blocks_;
};

// Keeps the GPU busy for a given time; calibrated once against events, since clock64() counts at a
// rate that differs between platforms.
class spinner {
 public:
  explicit spinner(hipStream_t s) {
    constexpr long long probe_cycles = 1 << 20;
    const double seconds = event_pair_samples(s, 2, 1, [] {}, [&] {  // the first launch loads the code
      detail::launch_spin(probe_cycles, 1, 1, s);
    }).front();
    cycles_per_second_ = seconds > 0 ? static_cast<double>(probe_cycles) / seconds : 1e9;
  }
  void enqueue(hipStream_t s, double seconds) const { enqueue_wide(s, seconds, 1, 1); }
  // The rate of clock64() measured at construction.
  [[nodiscard]] double cycles_per_second() const { return cycles_per_second_; }
  // The same spin in `blocks` blocks of `threads` threads: load that competes with another kernel for
  // the device's issue slots (the correctness run's reruns under load, correctness_run.hpp).
  void enqueue_wide(hipStream_t s, double seconds, unsigned int blocks, unsigned int threads) const {
    const auto cycles = static_cast<long long>(seconds * cycles_per_second_);
    detail::launch_spin(cycles, blocks, threads, s);
  }

 private:
  double cycles_per_second_ = 1e9;
};

// `count` calls of `enqueue` (given the call's index) captured once into a graph, replayed with one launch.
class launch_graph {
 public:
  launch_graph(hipStream_t s, const std::function<void(int)>& enqueue, int count) : count_(count) {
    KBENCH_HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal));
    try {
      for (int i = 0; i < count; ++i) enqueue(i);
    } catch (...) {
      hipGraph_t abandoned = nullptr;
      (void)hipStreamEndCapture(s, &abandoned);
      if (abandoned) (void)hipGraphDestroy(abandoned);
      (void)hipGetLastError();
      throw;
    }
    KBENCH_HIP_CHECK(hipStreamEndCapture(s, &graph_));
    KBENCH_HIP_CHECK(hipGraphGetNodes(graph_, nullptr, &nodes_));
    KBENCH_HIP_CHECK(hipGraphInstantiate(&exec_, graph_, nullptr, nullptr, 0));
  }
  launch_graph(const launch_graph&) = delete;
  launch_graph& operator=(const launch_graph&) = delete;
  ~launch_graph() {
    if (exec_) KBENCH_HIP_CHECK_NOTHROW(hipGraphExecDestroy(exec_));
    if (graph_) KBENCH_HIP_CHECK_NOTHROW(hipGraphDestroy(graph_));
  }
  void launch(hipStream_t s) const { KBENCH_HIP_CHECK(hipGraphLaunch(exec_, s)); }
  [[nodiscard]] int count() const { return count_; }
  // Operations captured: none means the launches put no work on the stream they were given.
  [[nodiscard]] std::size_t nodes() const { return nodes_; }

 private:
  hipGraph_t graph_ = nullptr;
  hipGraphExec_t exec_ = nullptr;
  int count_;
  std::size_t nodes_ = 0;
};

// Host seconds one step takes: for the report of where a run's wall time goes.
template <class Step>
double host_seconds(Step&& step) {
  const auto start = std::chrono::steady_clock::now();
  step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Host seconds of steps that follow one another: each mark() ends the step under way, under its name.
class step_marks {
 public:
  void mark(const char* step) {
    const auto now = std::chrono::steady_clock::now();
    steps_.emplace_back(step, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  [[nodiscard]] stage_times take() { return std::move(steps_); }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  stage_times steps_;
};

// What one launch takes on the host's clock, on an idle device: the launch function's call alone (its host
// work, and any wait for the device inside it), and from the call until the whole device is idle again.
struct launch_host_time {
  double call = 0.0;
  double to_idle = 0.0;
};

// The medians of 20 launches' host times (a first one not counted); `prepare` runs before each, untimed.
template <class Prepare, class Launch>
launch_host_time launch_host_times(Prepare&& prepare, Launch&& launch) {
  std::vector<double> calls, to_idle;
  for (int i = 0; i < 21; ++i) {
    prepare();
    KBENCH_HIP_CHECK(hipDeviceSynchronize());
    const auto before = std::chrono::steady_clock::now();
    launch();
    const auto returned = std::chrono::steady_clock::now();
    KBENCH_HIP_CHECK(hipDeviceSynchronize());
    if (i == 0) continue;
    calls.push_back(std::chrono::duration<double>(returned - before).count());
    to_idle.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count());
  }
  auto median = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {median(calls), median(to_idle)};
}

// The timer's own floor on this device: what each timing method reports for (next to) no work.
[[nodiscard]] inline timer_floor measure_timer_floor() {
  stream s;
  const spinner spin(s.get());
  auto median_of = [&](auto&& between, double divide) {
    std::vector<double> samples = event_pair_samples(s.get(), 60, 10, [&] { spin.enqueue(s.get(), 20e-6); }, between);
    for (double& seconds : samples) seconds /= divide;
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
  };
  auto empty = [&] { detail::launch_empty(s.get()); };
  timer_floor f;
  f.events_only = median_of([] {}, 1.0);
  f.empty_kernel = median_of(empty, 1.0);
  const launch_graph batch(s.get(), [&](int) { empty(); }, 100);
  f.empty_kernel_batch = median_of([&] { batch.launch(s.get()); }, 100.0);
  f.empty_launch_wall = launch_host_times([] {}, empty).to_idle;
  return f;
}

// Seconds the host waits in hipDeviceSynchronize: near zero when the timed stream was the only work.
inline double device_idle_wait() {
  const auto before = std::chrono::steady_clock::now();
  KBENCH_HIP_CHECK(hipDeviceSynchronize());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
}

}  // namespace kbench
