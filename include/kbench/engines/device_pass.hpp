// kbench/engines/device_pass.hpp: the shape of kbench's own passes over device memory (draws, comparisons,
// fingerprints, seals): a grid of one wave of resident blocks, each thread looping over many elements, and
// 16-byte loads where a buffer starts on a 16-byte boundary.
#pragma once

#include <algorithm>
#include <cstdint>

#include "../contract/hip_check.hpp"
#include "../detail/host_device.hpp"

namespace kbench {
namespace detail {

// The blocks of `threads` threads of `kernel` that the current device holds at once: one full wave, so a
// grid-stride loop has no tail wave and spends no time starting blocks.
template <class Kernel>
[[nodiscard]] unsigned int full_wave_blocks(Kernel kernel, unsigned int threads) {
  int device = 0, multiprocessors = 0, per_multiprocessor = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  KBENCH_HIP_CHECK(hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, device));
  KBENCH_HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, static_cast<int>(threads), 0));
  return static_cast<unsigned int>(std::max(1, multiprocessors * std::max(per_multiprocessor, 1)));
}

// Whether `data` starts on a 16-byte boundary: then a thread moves 16 bytes at a time. One load of 16 bytes
// keeps four times the bytes in flight of four loads of 4, which a pass over memory needs to reach the
// device's bandwidth (the 4-byte loop read 256 MiB at 1.9 TB/s on an H200).
KBENCH_HOST_DEVICE inline bool on_quads(const void* data) { return reinterpret_cast<std::uintptr_t>(data) % 16 == 0; }

}  // namespace detail
}  // namespace kbench
