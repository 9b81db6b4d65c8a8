// Example 7: the optimized side is a kernel loaded from a code object file at run time, not compiled into the
// test: kbench::code_object finds it by name and launches it with the case's buffers and scalars.
//
// y = a * x, fp32, against a reference kernel compiled here. The file (examples/07_code_object/
// scale_kernel.hip, built by kbench_add_code_object) reaches the program as a compile definition; a missing
// file fails the case when it is declared, naming the path. `<program> resources` lists the file's kernels
// too, and checks the case's bounds on them.
#include <kbench/compare.hpp>
#include <kbench/contract/code_object.hpp>

#include <algorithm>

__global__ void scale_reference(const float* x, float* y, float a, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

static void scale(kbench::kernel_case& c) {
  const auto n = static_cast<std::int64_t>(c.dim("n"));
  const float a = 1.7f;
  auto x = c.input<float>("x", {c.dim("n")});
  auto y = c.output<float>("y", {c.dim("n")});
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(scale_reference, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0, s, x, y, a, n);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  const auto blocks = static_cast<unsigned int>(std::min<std::int64_t>((n + 1023) / 1024, 65536));
  // The arguments as the kernel declares them: const float*, float*, float, int64_t.
  const kbench::code_object file(KBENCH_EXAMPLE_CODE_OBJECT);
  const kbench::code_object_kernel scale_kernel = file.kernel("scale_kernel");
  c.optimized([=](hipStream_t s) { scale_kernel.launch(dim3(blocks), dim3(256), 0, s, x, y, a, n); });
  // Its resources as the file holds them, checked by `<program> resources` without a GPU.
  c.expect_resources("scale_kernel").spills_none().scratch_at_most(0).lds_at_most(0).waves_at_least(8).warps_at_least(64);
  c.tolerance(kbench::tol::exact{});  // one product each, rounded the same way
  c.bytes_moved(2.0 * 4 * n);
  c.flops(1.0 * n);
}
KBENCH_REGISTER(scale).shape({{"n", 1000003}}).shape({{"n", 77}});
