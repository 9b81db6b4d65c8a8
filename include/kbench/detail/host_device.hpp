// kbench/detail/host_device.hpp: marks functions that both engines use, on the host and in kernels, so
// that HIP-free headers can hold them: __host__ __device__ under hipcc or nvcc, nothing under a plain
// C++ compiler.
#pragma once

#if defined(__HIPCC__) || defined(__CUDACC__)
#define KBENCH_HOST_DEVICE __host__ __device__
#else
#define KBENCH_HOST_DEVICE
#endif
