// Example 3: a fusion, declared. The reference is add + rmsnorm as three kernels (the residual add, the
// normalization, the weight), the optimized side one fused kernel; `c.expect_kernels(1)` makes the perf
// test (and `<program> census`) fail if the optimized side ever launches more than one kernel. The census
// in the perf report lists both sides' kernels, each with its cold time, registers and occupancy.
//
//   h = x + r;  y = h / sqrt(mean(h^2) + eps) * w       (rows of `cols`, fp16 in and out, fp32 inside)
#include <kbench/compare.hpp>

namespace {

constexpr int threads = 256;
constexpr float eps = 1e-6f;

// The sum of `v` over the block, returned to every thread.
__device__ float block_sum(float v, float* partial) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int width = threads / 2; width > 0; width /= 2) {
    if (static_cast<int>(threadIdx.x) < width) partial[threadIdx.x] += partial[threadIdx.x + width];
    __syncthreads();
  }
  const float sum = partial[0];
  __syncthreads();
  return sum;
}

// ---- the reference: three kernels ------------------------------------------------------------------
__global__ void residual_add(const kbench::fp16_t* x, const kbench::fp16_t* r, kbench::fp16_t* h, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) h[i] = kbench::from_float<kbench::fp16_t>(kbench::to_float(x[i]) + kbench::to_float(r[i]));
}

__global__ void normalize_rows(const kbench::fp16_t* h, kbench::fp16_t* y, std::int64_t cols) {
  __shared__ float partial[threads];
  const kbench::fp16_t* row = h + blockIdx.x * cols;
  float squares = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += threads) squares += kbench::to_float(row[j]) * kbench::to_float(row[j]);
  const float scale = rsqrtf(block_sum(squares, partial) / static_cast<float>(cols) + eps);
  for (std::int64_t j = threadIdx.x; j < cols; j += threads) {
    y[blockIdx.x * cols + j] = kbench::from_float<kbench::fp16_t>(kbench::to_float(row[j]) * scale);
  }
}

__global__ void apply_weight(kbench::fp16_t* y, const kbench::fp16_t* w, std::int64_t cols, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = kbench::from_float<kbench::fp16_t>(kbench::to_float(y[i]) * kbench::to_float(w[i % cols]));
}

void unfused(const kbench::fp16_t* x, const kbench::fp16_t* r, const kbench::fp16_t* w, kbench::fp16_t* h,
             kbench::fp16_t* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  const std::int64_t n = rows * cols;
  const auto blocks = static_cast<unsigned int>((n + threads - 1) / threads);
  hipLaunchKernelGGL(residual_add, dim3(blocks), dim3(threads), 0, s, x, r, h, n);
  KBENCH_HIP_CHECK_LAUNCH();
  hipLaunchKernelGGL(normalize_rows, dim3(static_cast<unsigned int>(rows)), dim3(threads), 0, s, h, y, cols);
  KBENCH_HIP_CHECK_LAUNCH();
  hipLaunchKernelGGL(apply_weight, dim3(blocks), dim3(threads), 0, s, y, w, cols, n);
  KBENCH_HIP_CHECK_LAUNCH();
}

// ---- the optimized side: one kernel, one row per block ---------------------------------------------
__global__ void fused_add_rmsnorm(const kbench::fp16_t* x, const kbench::fp16_t* r, const kbench::fp16_t* w,
                                  kbench::fp16_t* h, kbench::fp16_t* y, std::int64_t cols) {
  __shared__ float partial[threads];
  const std::int64_t base = blockIdx.x * cols;
  float squares = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += threads) {
    const kbench::fp16_t sum = kbench::from_float<kbench::fp16_t>(kbench::to_float(x[base + j]) + kbench::to_float(r[base + j]));
    h[base + j] = sum;
    squares += kbench::to_float(sum) * kbench::to_float(sum);
  }
  const float scale = rsqrtf(block_sum(squares, partial) / static_cast<float>(cols) + eps);
  for (std::int64_t j = threadIdx.x; j < cols; j += threads) {  // reads back this thread's own h
    y[base + j] = kbench::from_float<kbench::fp16_t>(kbench::to_float(h[base + j]) * scale * kbench::to_float(w[j]));
  }
}

void fused(const kbench::fp16_t* x, const kbench::fp16_t* r, const kbench::fp16_t* w, kbench::fp16_t* h,
           kbench::fp16_t* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  hipLaunchKernelGGL(fused_add_rmsnorm, dim3(static_cast<unsigned int>(rows)), dim3(threads), 0, s, x, r, w, h, y, cols);
  KBENCH_HIP_CHECK_LAUNCH();
}

}  // namespace

static void add_rmsnorm(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<kbench::fp16_t>("x", {rows, cols}, kbench::uniform(-2, 2));
  auto r = c.input<kbench::fp16_t>("residual", {rows, cols}, kbench::uniform(-2, 2));
  auto w = c.input<kbench::fp16_t>("w", {cols}, kbench::uniform(0.5, 1.5));
  auto h = c.output<kbench::fp16_t>("h", {rows, cols});
  auto y = c.output<kbench::fp16_t>("y", {rows, cols});
  c.reference([=](hipStream_t s) { unfused(x, r, w, h, y, rows, cols, s); });
  c.optimized([=](hipStream_t s) { fused(x, r, w, h, y, rows, cols, s); });
  c.tolerance(h, kbench::tol::exact{});  // the same fp32 sum, rounded once
  c.tolerance(y, kbench::tol::ulp{2});   // the reference rounds twice (before and after the weight)
  c.expect_kernels(1);                   // the point of the fusion
  c.bytes_moved(2.0 * (4.0 * rows * cols + cols));
}
KBENCH_REGISTER(add_rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 8192}, {"cols", 4096}});
