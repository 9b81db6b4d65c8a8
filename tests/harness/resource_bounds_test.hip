// A program whose case declares resource bounds, two of them planted to fail: `<program> resources` must
// name the kernel, target, figure and bound of the broken one, fail a bound that names no kernel, and pass
// the honest one (tests/CMakeLists.txt, kbench.resources.planted; no GPU needed).
#include <kbench/compare.hpp>

__global__ void bounded_map_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}

static void planted_bounds(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  auto launch = [=](hipStream_t s) {
    hipLaunchKernelGGL(bounded_map_kernel, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0, s, x.get(),
                       y.get(), n);
    KBENCH_HIP_CHECK_LAUNCH();
  };
  c.reference(launch);
  c.optimized(launch);
  c.tolerance(kbench::tol::exact{});
  c.expect_resources("bounded_map_kernel").vgprs_at_most(64).spills_none().scratch_at_most(0).lds_at_most(0).waves_at_least(8).warps_at_least(32);
  c.expect_resources("bounded_map_kernel").vgprs_at_most(1);       // planted: every map needs more than one
  c.expect_resources("bounded_mpa_kernel").spills_none();           // planted: a misspelt name
}
KBENCH_REGISTER(planted_bounds).shape({{"n", 1000}}).shape({{"n", 4096}});
