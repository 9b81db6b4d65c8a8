// Cases for the timing-accuracy benchmark (studies/timing-accuracy.py): a float4 copy kernel against
// hipMemcpyAsync (1 GiB: ~0.5 ms), and a kernel of a few microseconds. Correctness comes first here as anywhere.
#include <kbench/compare.hpp>

__global__ void copy_kernel(const float4* x, float4* y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[i];
}
__global__ void tiny_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
static void copy(kbench::kernel_case& c) {
  const auto n = c.dim("floats");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.reference([=](hipStream_t s) { KBENCH_HIP_CHECK(hipMemcpyAsync(y, x, 4 * n, hipMemcpyDeviceToDevice, s)); });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(copy_kernel, dim3(4096), dim3(256), 0, s, reinterpret_cast<const float4*>(x.get()), reinterpret_cast<float4*>(y.get()), n / 4);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * n);
  c.requires_alignment(16);  // float4 accesses, unchecked: the copy is the timing's yardstick, kept bare
}
static void tiny(kbench::kernel_case& c) {
  const auto n = c.dim("floats");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  auto launch = [=](hipStream_t s) {
    hipLaunchKernelGGL(tiny_kernel, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0, s, x.get(), y.get(), n);
    KBENCH_HIP_CHECK_LAUNCH();
  };
  c.reference(launch);
  c.optimized(launch);
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * n);
}
// 1 GiB, and 4 MiB, which fits in the L2 of large GPUs (batched on one input set against rotated ones).
// The copy moves float4s, n / 4 of them: its sizes are multiples of 4, and so are its neighbours.
KBENCH_REGISTER(copy).shape({{"floats", std::int64_t{1} << 28}}).shape({{"floats", std::int64_t{1} << 20}})
    .dimension("floats", kbench::multiple_of(4));
KBENCH_REGISTER(tiny).shape({{"floats", 1 << 16}});
