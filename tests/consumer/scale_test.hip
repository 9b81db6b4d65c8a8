// A consumer's kernel test: y = 2x, fp32, against a host reference.
#include <kbench/compare.hpp>

__global__ void scale_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

static void scale(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.host_reference([=] { for (std::size_t i = 0; i < y.size(); ++i) y.host()[i] = 2.0 * x.host()[i]; });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(scale_kernel, dim3(static_cast<unsigned int>((n + 127) / 128)), dim3(128), 0, s, x, y, n);
  });
  c.bytes_moved(8.0 * n);
}
KBENCH_REGISTER(scale).shape({{"n", 4099}});
