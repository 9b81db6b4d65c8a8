// kbench/detail/host_device.hpp: marks functions that both engines use, on the host and in kernels, so
// that HIP-free headers can hold them: __host__ __device__ under hipcc or nvcc, nothing under a plain
// C++ compiler. And the one such function that the draws and the choices about them share: mix_seed.
#pragma once

#include <cstdint>

#if defined(__HIPCC__) || defined(__CUDACC__)
#define KBENCH_HOST_DEVICE __host__ __device__
#else
#define KBENCH_HOST_DEVICE
#endif

namespace kbench {
namespace detail {

// SplitMix64: decorrelates the seeds of different inputs drawn from one run seed, and picks positions
// from a seed (the same on the host, which chooses them, and on the device, which draws).
KBENCH_HOST_DEVICE inline std::uint64_t mix_seed(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace detail
}  // namespace kbench
