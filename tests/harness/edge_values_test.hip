// Values at the edges (an extended check): a kbench program of its own (its main is run_main), whose planted
// kernels are right at the declared values and wrong at the edges of their range, each caught by default
// (no tolerance, oracle or option declared) with a finding that names the input and the scale:
//
//   fp16_sum_rmsnorm     sums its squares in fp16 (six per thread): overflows with x 128 times larger
//   eps_outside_rmsnorm  adds eps outside the root: wrong once mean(x^2) is near eps, at x 2^-10 times (its
//                        eps a parameter of its shape: .with("eps", 1e-6), c.param("eps"))
//   maxless_softmax      exp(x) without the row's max subtracted: Inf / Inf = NaN once logits pass ~88
//   last_tie_argmax      ties go to the largest index (the reference's, as torch.argmax, to the smallest)
//
// (large_maxless_softmax: the same, declared only at shapes of more than 2^22 elements, caught at the smaller)
// and their correct variants, which pass every edge run: fp32_sum_rmsnorm, shifted_softmax (exp2f, a
// different instruction than the reference's expf), first_tie_argmax; and the planted rmsnorm again with the
// edges turned off for the case, and for its input x, which passes (what the opt-outs give up).
//
// tests/harness/CMakeLists.txt runs it (kbench.edges.*) and checks each; skipped without a GPU.
#include <kbench/compare.hpp>

#include <cstdint>

namespace {

constexpr int block_size = 256;

// The sum, and the maximum, of one float per thread of a block of block_size threads.
template <bool Max>
__device__ float block_reduce(float v) {
  __shared__ float partial[block_size];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int stride = block_size / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) {
      const float other = partial[threadIdx.x + stride];
      partial[threadIdx.x] = Max ? fmaxf(partial[threadIdx.x], other) : partial[threadIdx.x] + other;
    }
    __syncthreads();
  }
  const float total = partial[0];
  __syncthreads();
  return total;
}

// ---- rmsnorm: y = x * w / sqrt(mean(x^2) + eps), fp16 in and out, one block per row --------------------------
enum class rms_kind { fp32_sum, fp16_sum, eps_outside };

template <rms_kind Kind>
__global__ void rmsnorm_kernel(const __half* x, const __half* w, __half* y, std::int64_t cols, float eps) {
  const __half* row = x + blockIdx.x * cols;
  float partial = 0.0f;
  if (Kind == rms_kind::fp16_sum) {
    __half sum = __float2half(0.0f);  // the plant: each thread's squares summed in fp16
    for (std::int64_t j = threadIdx.x; j < cols; j += block_size) sum = __hfma(row[j], row[j], sum);
    partial = __half2float(sum);
  } else {
    for (std::int64_t j = threadIdx.x; j < cols; j += block_size) partial += __half2float(row[j]) * __half2float(row[j]);
  }
  const float mean = block_reduce<false>(partial) / static_cast<float>(cols);
  const float scale = Kind == rms_kind::eps_outside ? 1.0f / (sqrtf(mean) + eps) : rsqrtf(mean + eps);
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
    y[blockIdx.x * cols + j] = __float2half(__half2float(row[j]) * scale * __half2float(w[j]));
  }
}

template <rms_kind Optimized>
void declare_rmsnorm(kbench::kernel_case& c, float eps = 1e-6f) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<kbench::fp16_t>("x", {rows, cols}, kbench::uniform(-2, 2));
  auto w = c.input<kbench::fp16_t>("w", {cols}, kbench::uniform(0.5, 1.5));
  auto y = c.output<kbench::fp16_t>("y", {rows, cols});
  const dim3 grid(static_cast<unsigned int>(rows)), block(block_size);
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(rmsnorm_kernel<rms_kind::fp32_sum>, grid, block, 0, s, x.get(), w.get(), y.get(), cols, eps);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(rmsnorm_kernel<Optimized>, grid, block, 0, s, x.get(), w.get(), y.get(), cols, eps);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.bytes_moved(2.0 * (2.0 * rows * cols + cols));
}

// ---- softmax over rows, fp32 --------------------------------------------------------------------------------
enum class softmax_kind { reference, shifted_exp2, maxless };

template <softmax_kind Kind>
__global__ void softmax_kernel(const float* x, float* y, std::int64_t cols) {
  const float* row = x + blockIdx.x * cols;
  float largest = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) largest = fmaxf(largest, row[j]);
  const float shift = Kind == softmax_kind::maxless ? 0.0f : block_reduce<true>(largest);
  auto e = [&](float v) { return Kind == softmax_kind::shifted_exp2 ? exp2f((v - shift) * 1.4426950408889634f) : expf(v - shift); };
  float partial = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) partial += e(row[j]);
  const float sum = block_reduce<false>(partial);
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) y[blockIdx.x * cols + j] = e(row[j]) / sum;
}

template <softmax_kind Optimized>
void declare_softmax(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<float>("logits", {rows, cols}, kbench::normal(0, 8));
  auto y = c.output<float>("p", {rows, cols});
  const dim3 grid(static_cast<unsigned int>(rows)), block(block_size);
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(softmax_kernel<softmax_kind::reference>, grid, block, 0, s, x.get(), y.get(), cols);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(softmax_kernel<Optimized>, grid, block, 0, s, x.get(), y.get(), cols);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.bytes_moved(8.0 * rows * cols);
}

// ---- argmax over rows, fp32 in, int32 out: a thread's best, then the block's by a shared-memory tree -------
template <bool LastTie>
__global__ void argmax_kernel(const float* x, std::int32_t* index, std::int64_t cols) {
  __shared__ float best_value[block_size];
  __shared__ std::int32_t best_index[block_size];
  const float* row = x + blockIdx.x * cols;
  float best = -INFINITY;
  std::int32_t at = 0;
  for (std::int64_t j = threadIdx.x; j < cols; j += block_size) {
    if (row[j] > best || (LastTie && row[j] == best)) best = row[j], at = static_cast<std::int32_t>(j);
  }
  best_value[threadIdx.x] = best, best_index[threadIdx.x] = at;
  __syncthreads();
  for (int stride = block_size / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) {
      const float v = best_value[threadIdx.x + stride];
      const std::int32_t i = best_index[threadIdx.x + stride];
      const bool better = v > best_value[threadIdx.x] ||
                          (v == best_value[threadIdx.x] && (LastTie ? i > best_index[threadIdx.x] : i < best_index[threadIdx.x]));
      if (better) best_value[threadIdx.x] = v, best_index[threadIdx.x] = i;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) index[blockIdx.x] = best_index[0];
}

template <bool LastTie>
void declare_argmax(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<float>("logits", {rows, cols}, kbench::uniform(-8, 8));
  auto index = c.output<std::int32_t>("index", {rows});
  const dim3 grid(static_cast<unsigned int>(rows)), block(block_size);
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(argmax_kernel<false>, grid, block, 0, s, x.get(), index.get(), cols);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(argmax_kernel<LastTie>, grid, block, 0, s, x.get(), index.get(), cols);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.bytes_moved(4.0 * rows * cols + 4.0 * rows);
}

}  // namespace

static void fp16_sum_rmsnorm(kbench::kernel_case& c) { declare_rmsnorm<rms_kind::fp16_sum>(c); }
// Its eps a parameter of the shape (kernel_case::param), as a model's config gives it.
static void eps_outside_rmsnorm(kbench::kernel_case& c) {
  declare_rmsnorm<rms_kind::eps_outside>(c, static_cast<float>(c.param("eps")));
}
static void fp32_sum_rmsnorm(kbench::kernel_case& c) { declare_rmsnorm<rms_kind::fp32_sum>(c); }
static void unedged_rmsnorm(kbench::kernel_case& c) {
  declare_rmsnorm<rms_kind::fp16_sum>(c);
  c.edge_values(false);
}
static void unedged_x_rmsnorm(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<kbench::fp16_t>("x", {rows, cols}, kbench::uniform(-2, 2));
  auto w = c.input<kbench::fp16_t>("w", {cols}, kbench::uniform(0.5, 1.5));
  auto y = c.output<kbench::fp16_t>("y", {rows, cols});
  const dim3 grid(static_cast<unsigned int>(rows)), block(block_size);
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(rmsnorm_kernel<rms_kind::fp32_sum>, grid, block, 0, s, x.get(), w.get(), y.get(), cols, 1e-6f);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(rmsnorm_kernel<rms_kind::fp16_sum>, grid, block, 0, s, x.get(), w.get(), y.get(), cols, 1e-6f);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.edge_values(x, false);
  c.bytes_moved(2.0 * (2.0 * rows * cols + cols));
}
static void maxless_softmax(kbench::kernel_case& c) { declare_softmax<softmax_kind::maxless>(c); }
// The same, declared only at shapes of more than 2^22 elements: its smallest gets the edges, the other not.
static void large_maxless_softmax(kbench::kernel_case& c) { declare_softmax<softmax_kind::maxless>(c); }
static void shifted_softmax(kbench::kernel_case& c) { declare_softmax<softmax_kind::shifted_exp2>(c); }
static void last_tie_argmax(kbench::kernel_case& c) { declare_argmax<true>(c); }
static void first_tie_argmax(kbench::kernel_case& c) { declare_argmax<false>(c); }

KBENCH_REGISTER(fp16_sum_rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).nearby_shapes(false);
KBENCH_REGISTER(eps_outside_rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).with("eps", 1e-6).nearby_shapes(false);
KBENCH_REGISTER(fp32_sum_rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).nearby_shapes(false);
KBENCH_REGISTER(unedged_rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).nearby_shapes(false);
KBENCH_REGISTER(unedged_x_rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).nearby_shapes(false);
KBENCH_REGISTER(maxless_softmax).shape({{"rows", 37}, {"cols", 1531}}).nearby_shapes(false);
KBENCH_REGISTER(large_maxless_softmax).shape({{"rows", 1024}, {"cols", 4099}}).shape({{"rows", 2048}, {"cols", 4099}}).nearby_shapes(false);
KBENCH_REGISTER(shifted_softmax).shape({{"rows", 37}, {"cols", 1531}}).nearby_shapes(false);
KBENCH_REGISTER(last_tie_argmax).shape({{"rows", 37}, {"cols", 1531}}).nearby_shapes(false);
KBENCH_REGISTER(first_tie_argmax).shape({{"rows", 37}, {"cols", 1531}}).nearby_shapes(false);
