// Example 2: a kernel that updates its buffer in place, checked against a host reference.
//
// x = max(x, 0) (ReLU), bf16, in place. c.inout() draws the buffer like an input and compares it like an
// output; every run, checked or timed, starts from the same drawn values. In the host reference,
// x.host() holds the drawn values until the reference overwrites them. The second case does the same on
// padded rows (c.leading_dimension), as a kernel working in a view into a wider tensor does.
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

// ReLU in place on padded rows: [rows, cols] lying `ld` elements apart. The padding between rows is
// poisoned and must stay so; x.host() and the comparison see the rows only.
__global__ void relu_rows_in_place(kbench::bf16_t* x, std::int64_t cols, std::int64_t ld) {
  kbench::bf16_t* row = x + static_cast<std::int64_t>(blockIdx.x) * ld;
  for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    row[c] = kbench::from_float<kbench::bf16_t>(fmaxf(kbench::to_float(row[c]), 0.0f));
  }
}

static void relu_padded(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols"), ld = cols + c.dim("padding");
  auto x = c.inout<kbench::bf16_t>("x", {rows, cols}, kbench::normal(0.0, 3.0));
  c.leading_dimension(x, ld);
  c.host_reference([=] {
    for (double& v : x.host()) v = v > 0.0 ? v : 0.0;
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(relu_rows_in_place, dim3(static_cast<unsigned int>(rows)), dim3(256), 0, s, x.get(), cols, ld);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(2.0 * 2 * rows * cols);
}
KBENCH_REGISTER(relu_padded).shape({{"rows", 37}, {"cols", 1531}, {"padding", 13}}).shape({{"rows", 4096}, {"cols", 4096}, {"padding", 64}});
