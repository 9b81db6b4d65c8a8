// Example 6: a kernel with dynamic shared memory (LDS) past the default limit, against a host reference.
//
// Softmax over each row of a [rows, cols] fp32 matrix, the row cached in dynamic shared memory (cols * 4
// bytes: 64 KiB at 16384 columns). NVIDIA GPUs give a block more than 48 KiB only once the kernel opts in
// (hipFuncSetAttribute), up to a device limit that kbench::shared_memory_per_block_optin() reads on both
// platforms (HIP 5.2's NVIDIA platform cannot read it through hipDeviceGetAttribute); AMD GPUs need no
// opt-in, and their LDS per block is the limit (a shape whose row does not fit fails, saying so). The
// host reference computes in double.
#include <kbench/compare.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

constexpr int block_size = 256;

__global__ void __launch_bounds__(block_size) softmax_rows_kernel(const float* x, float* y, int cols) {
  extern __shared__ float row[];     // the row, then its exponentials
  __shared__ float partial[block_size];
  const float* in = x + static_cast<std::int64_t>(blockIdx.x) * cols;
  float* out = y + static_cast<std::int64_t>(blockIdx.x) * cols;
  float largest = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += block_size) {
    row[c] = in[c];
    largest = fmaxf(largest, row[c]);
  }
  partial[threadIdx.x] = largest;
  __syncthreads();
  for (int half = block_size / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + half]);
    __syncthreads();
  }
  largest = partial[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += block_size) {
    row[c] = expf(row[c] - largest);
    sum += row[c];
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = block_size / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  const float scale = 1.0f / partial[0];
  for (int c = threadIdx.x; c < cols; c += block_size) out[c] = row[c] * scale;
}

static void launch_softmax_rows(const float* x, float* y, int rows, int cols, hipStream_t s) {
  const int bytes = cols * static_cast<int>(sizeof(float));
  int limit = 0;
  KBENCH_HIP_CHECK(kbench::shared_memory_per_block_optin(limit));
  if (bytes > limit) {
    throw std::runtime_error("a row of " + std::to_string(cols) + " floats needs " + std::to_string(bytes) +
                               " bytes of shared memory; this GPU gives a block " + std::to_string(limit));
  }
  KBENCH_HIP_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(softmax_rows_kernel),
                                       hipFuncAttributeMaxDynamicSharedMemorySize, bytes));
  hipLaunchKernelGGL(softmax_rows_kernel, dim3(static_cast<unsigned int>(rows)), dim3(block_size),
                     static_cast<unsigned int>(bytes), s, x, y, cols);
  KBENCH_HIP_CHECK_LAUNCH();
}

static void softmax_rows(kbench::kernel_case& c) {
  const auto rows = static_cast<int>(c.dim("rows")), cols = static_cast<int>(c.dim("cols"));
  auto x = c.input<float>("x", {rows, cols}, kbench::normal(0.0, 4.0));
  auto y = c.output<float>("y", {rows, cols});
  c.host_reference([=] {
    for (int r = 0; r < rows; ++r) {
      const double* in = x.host().data() + static_cast<std::size_t>(r) * cols;
      double* out = y.host().data() + static_cast<std::size_t>(r) * cols;
      double largest = in[0], sum = 0.0;
      for (int k = 1; k < cols; ++k) largest = std::fmax(largest, in[k]);
      for (int k = 0; k < cols; ++k) sum += out[k] = std::exp(in[k] - largest);
      for (int k = 0; k < cols; ++k) out[k] /= sum;
    }
  });
  c.optimized([=](hipStream_t s) { launch_softmax_rows(x, y, rows, cols, s); });
  // fp32 exponentials (a few units in the last place) over a sum of up to 16384 of them in a tree.
  c.tolerance(kbench::tol::allclose{2e-5, 1e-12});
  c.bytes_moved(2.0 * 4.0 * rows * cols);
  c.flops(4.0 * rows * cols);
}
// 256 rows of 16384: about two blocks per multiprocessor on the H200, enough to time; the host reference in
// double runs again for every spike and edge run, and at 2048 rows the case took 11.7 s of the main job there.
KBENCH_REGISTER(softmax_rows).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 256}, {"cols", 16384}});
