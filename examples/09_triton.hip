// Example 9: the optimized side is a Triton kernel, compiled ahead of time when the program is built
// (kbench_add_triton_kernel: Triton's own compiler, run by python3) and loaded from its code object.
//
// y = relu(x + bias), fp32, against a HIP kernel compiled here. The header generated with the code object
// (example_09_add_relu.h) holds what a launch needs: the file, the kernel's name, its target, its block
// (Triton's warps), its shared memory, BLOCK, and launch(), which passes the pointers Triton appends to the
// kernel's own parameters (its global scratch, and in newer Triton a profiling buffer) after the case's
// arguments.
#include <kbench/compare.hpp>
#include <kbench/contract/code_object.hpp>

#include "example_09_add_relu.h"

__global__ void add_relu_reference(const float* x, const float* bias, float* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i] + bias[i], 0.0f);
}

static void add_relu(kbench::kernel_case& c) {
  namespace triton = example_09_add_relu;
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto bias = c.input<float>("bias", {n});
  auto y = c.output<float>("y", {n});
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(add_relu_reference, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0, s, x, bias, y, n);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  const auto blocks = static_cast<unsigned int>((n + triton::BLOCK - 1) / triton::BLOCK);
  // Triton's global scratch, per program: none for this kernel, so a null pointer (a count of 0), as
  // Triton's own launcher passes.
  auto scratch = c.scratch_bytes("triton global scratch", triton::global_scratch_bytes * blocks);
  const kbench::code_object_kernel kernel = kbench::code_object(triton::code_object).kernel(triton::kernel_name);
  const auto n32 = static_cast<std::int32_t>(n);  // the kernel's n is an i32
  c.optimized([=](hipStream_t s) { triton::launch(kernel, dim3(blocks), s, scratch, x, bias, y, n32); });
  // Checked by `<program> resources` on the file, without a GPU; for its one target, the build's first.
  c.expect_resources(triton::kernel_name, triton::target).spills_none().scratch_at_most(0);
  c.tolerance(kbench::tol::exact{});  // one rounding (x + bias), then a max: the same on both sides
  c.bytes_moved(3.0 * 4 * n);
  c.flops(2.0 * n);
}
KBENCH_REGISTER(add_relu).shape({{"n", 1000003}}).shape({{"n", 77}});
