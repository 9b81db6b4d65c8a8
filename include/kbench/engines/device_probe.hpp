// kbench/engines/device_probe.hpp: the device a program runs on, probed once, and what its timings are judged
// against, measured once: the device-to-device copy bandwidth (and reading alone), the timer floor and the
// arithmetic peaks (compute_peak.hpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/device_buffer.hpp"
#include "../contract/hip_check.hpp"
#include "../results/results.hpp"
#include "../results/statistics.hpp"
#include "clock_control.hpp"
#include "compute_peak.hpp"
#include "measure.hpp"
#include "timing.hpp"

namespace kbench {

namespace detail {

// What is missing when the runtime finds no device, in plain words: the driver, or the device node (the
// runtime's own word on it is kept, after).
inline std::string missing_gpu(hipError_t status) {
  const std::string runtime = fmt::format("hipGetDeviceCount reports {} ({})", hipGetErrorName(status), hipGetErrorString(status));
#if defined(KBENCH_PLATFORM_NVIDIA)
  if (!std::ifstream("/proc/driver/nvidia/version").good()) return "no GPU: no NVIDIA driver on this machine; " + runtime;
#else
  if (!std::ifstream("/dev/kfd").good()) return "no GPU: no AMD GPU (no /dev/kfd); " + runtime;
#endif
  return "no GPU: " + runtime;
}

inline gpu_info probe_gpu(int device) {
  gpu_info g;
  g.device = device;
  g.platform = KBENCH_PLATFORM_NAME;
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess) {
    (void)hipGetLastError();
    g.reason = missing_gpu(status);
    return g;
  }
  if (count == 0) {
    g.reason = "no GPU: hipGetDeviceCount found 0 devices";
    return g;
  }
  if (device >= count) {
    g.reason = fmt::format("GPU {} was asked for, but only {} present", device, count);
    return g;
  }
  KBENCH_HIP_CHECK(hipSetDevice(device));
  KBENCH_HIP_CHECK(hipFree(nullptr));  // opens the device now, so that open_seconds holds all of it
  hipDeviceProp_t prop{};
  KBENCH_HIP_CHECK(hipGetDeviceProperties(&prop, device));
  g.usable = true;
  g.platform = KBENCH_PLATFORM_NAME;
  g.name = prop.name;
  g.l2_bytes = static_cast<double>(prop.l2CacheSize);
  g.arch = architecture_name(prop).text;
  g.multiprocessors = prop.multiProcessorCount;
  g.wave_size = prop.warpSize;
  g.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  int kilohertz = 0;
  if (hipDeviceGetAttribute(&kilohertz, hipDeviceAttributeClockRate, device) == hipSuccess) g.highest_clock_hz = kilohertz * 1e3;
  char bus[32] = {};
  if (hipDeviceGetPCIBusId(bus, sizeof bus, device) == hipSuccess) g.pci_bus_id = bus;
  (void)hipGetLastError();
  return g;
}

}  // namespace detail

// Probed once, on first use inside a test (never before: a missing GPU skips each test, it does not
// abort the program).
inline const gpu_info& gpu(int device) {
  static const gpu_info probed = [device] {
    const auto start = std::chrono::steady_clock::now();
    gpu_info g = detail::probe_gpu(device);
    g.open_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return g;
  }();
  return probed;
}

// Copies a buffer of up to 1 GiB (a quarter of the free memory at most) 5 times untimed, then 20 times
// timed by event pairs; the median gives the rate.
[[nodiscard]] inline copy_bandwidth measure_copy_bandwidth() {
  std::size_t free_bytes = 0, total_bytes = 0;
  KBENCH_HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4) / 256 * 256;
  device_allocation source(bytes), destination(bytes);
  KBENCH_HIP_CHECK(hipMemset(source.data(), 0x3C, bytes));
  kbench::stream s;
  const std::vector<double> seconds = event_pair_samples(s.get(), 25, 5, [] {}, [&] {
    KBENCH_HIP_CHECK(hipMemcpyAsync(destination.data(), source.data(), bytes, hipMemcpyDeviceToDevice, s.get()));
  });
  copy_bandwidth c;
  c.buffer_bytes = bytes;
  c.seconds = summarize(seconds);
  c.bytes_per_second = 2.0 * static_cast<double>(bytes) / c.seconds.median;
  // Reading alone (a read-only kernel can beat the copy: no writes share the bus).
  int multiprocessors = 0, device = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  KBENCH_HIP_CHECK(hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, device));
  auto* words = static_cast<const uint4*>(source.data());
  const std::vector<double> reads = event_pair_samples(s.get(), 25, 5, [] {}, [&] {
    detail::launch_flush(words, bytes / 16 - 1, static_cast<unsigned int*>(destination.data()),
                         static_cast<unsigned int>(8 * multiprocessors), s.get());
  });
  c.read_bytes_per_second = static_cast<double>(bytes - 16) / summarize(reads).median;
  return c;
}

// The copy bandwidth, the timer floor and the arithmetic peaks of the current device, measured once per
// program on first use.
[[nodiscard]] inline const device_ceilings& measured_ceilings() {
  static const device_ceilings measured = [] {
    const auto start = std::chrono::steady_clock::now();
    device_ceilings c;
    c.copy = measure_copy_bandwidth();  // first: its 50 launches of memory traffic bring the clocks up
    c.floor = measure_timer_floor();
    int device = 0, multiprocessors = 0;
    KBENCH_HIP_CHECK(hipGetDevice(&device));
    KBENCH_HIP_CHECK(hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, device));
    kbench::stream s;
    c.compute = measure_compute_peaks(multiprocessors, s.get());
    char bus[32] = {};
    c.clock_setting = read_clock_control(hipDeviceGetPCIBusId(bus, sizeof bus, device) == hipSuccess ? bus : "");
    (void)hipGetLastError();
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c;
  }();
  return measured;
}

}  // namespace kbench
