// Two cases for the baseline demo: `scale` and `shift`, each an elementwise map over 64 Mi floats. Built
// as demo_slow (BASELINE_DEMO_SLOW), `scale` does four times its work: a regression of that case only.
#include <kbench/compare.hpp>

#if !defined(BASELINE_DEMO_SLOW)
#define BASELINE_DEMO_SLOW 0
#endif

__global__ void scale_kernel(const float* x, float* y, std::int64_t n, int rounds) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < rounds; ++r) v = v * 0.5f + 0.25f;  // rounds > 1: the same value, the work repeated
  y[i] = 2.0f * x[i] + 1.0f + 0.0f * v;
}

__global__ void shift_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = x[i] - 3.0f;
}

static unsigned int blocks(std::int64_t n) { return static_cast<unsigned int>((n + 255) / 256); }

static void scale(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(scale_kernel, dim3(blocks(n)), dim3(256), 0, s, x.get(), y.get(), n, 1);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(scale_kernel, dim3(blocks(n)), dim3(256), 0, s, x.get(), y.get(), n, BASELINE_DEMO_SLOW ? 400 : 1);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * n);
}

static void shift(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  auto launch = [=](hipStream_t s) {
    hipLaunchKernelGGL(shift_kernel, dim3(blocks(n)), dim3(256), 0, s, x.get(), y.get(), n);
    KBENCH_HIP_CHECK_LAUNCH();
  };
  c.reference(launch);
  c.optimized(launch);
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * n);
}

KBENCH_REGISTER(scale).shape({{"n", 1 << 26}});
KBENCH_REGISTER(shift).shape({{"n", 1 << 26}});
