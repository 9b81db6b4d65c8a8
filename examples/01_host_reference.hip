// Example 1: a kernel checked against a host implementation that computes in double.
//
// y = a * x + y0 (saxpy), fp32. The host reference reads the inputs as double through x.host() and writes
// every element of y.host(); kbench compares the kernel's fp32 output with it under the fp32 default
// tolerance (allclose, rtol 1.3e-6, atol 1e-5), after proving that tolerance rejects wrong outputs.
#include <kbench/compare.hpp>

__global__ void saxpy_kernel(float a, const float* x, const float* y0, float* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y0[i];
}

static void saxpy(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  const float a = 1.7f;
  auto x = c.input<float>("x", {n});
  auto y0 = c.input<float>("y0", {n}, kbench::normal(0.0, 4.0));
  auto y = c.output<float>("y", {n});
  c.host_reference([=] {
    for (std::size_t i = 0; i < y.size(); ++i) y.host()[i] = double{a} * x.host()[i] + y0.host()[i];
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(saxpy_kernel, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0, s, a, x, y0, y, n);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.bytes_moved(3.0 * 4 * n);
  c.flops(2.0 * n);
}
KBENCH_REGISTER(saxpy).shape({{"n", 1000003}}).shape({{"n", 77}});
