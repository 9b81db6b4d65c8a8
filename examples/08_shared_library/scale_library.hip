// The library of example 8: kernels and their launchers in a shared library of their own (add_library(...
// SHARED) in examples/CMakeLists.txt), opened by the test at run time, as a project's prebuilt library would
// be. Everything the test looks up is extern "C", so that it is found by its plain name.
#include <kbench/contract/hip_check.hpp>

#include <cstdint>

// y = a * x + b.
extern "C" __global__ void affine_kernel(const float* x, float* y, float a, float b, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

// A launcher: what a library usually exports. An error leaves it as an exception, which the library and the
// program share (both C++, one standard library).
extern "C" void launch_affine(const float* x, float* y, float a, float b, std::int64_t n, hipStream_t s) {
  hipLaunchKernelGGL(affine_kernel, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0, s, x, y, a, b, n);
  KBENCH_HIP_CHECK_LAUNCH();
}
