// Example 2: a kernel that updates its buffer in place, checked against a host reference.
//
// x = max(x, 0) (ReLU), bf16, in place. c.inout() draws the buffer like an input and compares it like an
// output; every run, checked or timed, starts from the same drawn values. In the host reference,
// x.host() holds the drawn values until the reference overwrites them.
#include <kbench/compare.hpp>

__global__ void relu_in_place(kbench::bf16_t* x, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] = kbench::from_float<kbench::bf16_t>(fmaxf(kbench::to_float(x[i]), 0.0f));
}

static void relu(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.inout<kbench::bf16_t>("x", {n}, kbench::normal(0.0, 3.0));
  c.host_reference([=] {
    for (double& v : x.host()) v = v > 0.0 ? v : 0.0;
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(relu_in_place, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0, s, x.get(), n);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(2.0 * 2 * n);
}
KBENCH_REGISTER(relu).shape({{"n", 1 << 20}}).shape({{"n", 999}});
