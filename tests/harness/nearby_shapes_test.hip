// The shapes around the declared ones (an extended check): a kbench program of its own (its main is
// run_main), whose cases share one planted kernel that is right only where a row's length is a multiple of 8
// (it scales packs of 8 and leaves a row's tail unwritten), declared at a shape where it is one:
//
//   planted_tail   declared at rows=4/cols=64: must fail at cols=63 and 65, naming the shape and printing the
//                  option that reproduces it, and pass at rows=3 and 5
//   ruled_tail     the same kernel, declaring the rule it really has (cols a multiple of 8): neighbours 56 and
//                  72, so it passes
//   opted_out_tail the same kernel, opted out of the shapes around its declared one: passes
//   whole_tail     a correct variant (packs of 8, then the tail one by one): passes at every neighbour
//
// tests/harness/CMakeLists.txt runs it (kbench.nearby.*) and checks each; skipped without a GPU.
#include <kbench/compare.hpp>

#include <cstdint>

namespace {

constexpr int pack = 8;

__global__ void scale_reference_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  const std::int64_t row = blockIdx.x;
  for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) y[row * cols + c] = 2.0f * x[row * cols + c];
}

// A block per row, a pack of 8 per thread and step; with `tail`, the elements past the last whole pack one
// by one, as a kernel must; without, they are never written.
__global__ void scale_packs_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols, bool tail) {
  const std::int64_t row = blockIdx.x, packs = cols / pack;
  for (std::int64_t p = threadIdx.x; p < packs; p += blockDim.x) {
    for (int k = 0; k < pack; ++k) y[row * cols + p * pack + k] = 2.0f * x[row * cols + p * pack + k];
  }
  if (!tail) return;
  for (std::int64_t c = packs * pack + threadIdx.x; c < cols; c += blockDim.x) y[row * cols + c] = 2.0f * x[row * cols + c];
}

void declare_scale(kbench::kernel_case& c, bool tail) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<float>("x", {rows, cols});
  auto y = c.output<float>("y", {rows, cols});
  const dim3 grid(static_cast<unsigned int>(rows)), block(64);
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(scale_reference_kernel, grid, block, 0, s, x.get(), y.get(), rows, cols);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(scale_packs_kernel, grid, block, 0, s, x.get(), y.get(), rows, cols, tail);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * rows * cols);
}

}  // namespace

static void planted_tail(kbench::kernel_case& c) { declare_scale(c, false); }
static void whole_tail(kbench::kernel_case& c) { declare_scale(c, true); }

KBENCH_REGISTER(planted_tail).shape({{"rows", 4}, {"cols", 64}});
KBENCH_REGISTER(planted_tail).name("ruled_tail").shape({{"rows", 4}, {"cols", 64}}).dimension("cols", kbench::multiple_of(8));
KBENCH_REGISTER(planted_tail).name("opted_out_tail").shape({{"rows", 4}, {"cols", 64}}).nearby_shapes(false);
KBENCH_REGISTER(whole_tail).shape({{"rows", 4}, {"cols", 64}});
