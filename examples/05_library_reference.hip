// Example 5: a library call as the reference, and scratch memory.
//
// Row sums of a [rows, cols] fp32 matrix. The reference is the platform's library, a segmented reduction
// (CUB on NVIDIA, rocPRIM on AMD) that needs temporary storage, whose size its own query gives, and the
// rows' offsets, which the reference writes itself on every launch. Both are scratch memory: kbench
// allocates each side's, poisons it before every checked launch (so neither may expect zeros, or what an
// earlier launch left), guards it and never compares it. The optimized kernel needs none: one block a row.
#include <kbench/compare.hpp>

#if defined(__HIP_PLATFORM_NVIDIA__)
#include <cub/device/device_segmented_reduce.cuh>
#else
#include <iostream>  // rocPRIM 5.3's header uses std::cout without including it
#include <rocprim/device/device_segmented_reduce.hpp>
#endif

__global__ void row_offsets_kernel(int* offsets, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r <= rows) offsets[r] = r * cols;
}

// The library's sum of each row, rows given by offsets[r] .. offsets[r + 1]; temp == nullptr asks for the
// size of its temporary storage, and launches nothing.
static void library_row_sums(void* temp, std::size_t& temp_bytes, const float* x, float* sums, const int* offsets,
                             int rows, hipStream_t s) {
#if defined(__HIP_PLATFORM_NVIDIA__)
  KBENCH_HIP_CHECK(cub::DeviceSegmentedReduce::Sum(temp, temp_bytes, x, sums, rows, offsets, offsets + 1, s));
#else
  KBENCH_HIP_CHECK(rocprim::segmented_reduce(temp, temp_bytes, x, sums, static_cast<unsigned int>(rows), offsets,
                                             offsets + 1, rocprim::plus<float>(), 0.0f, s));
#endif
}

// One block of 256 threads a row: strided partial sums, four loads in flight a thread, then a tree in
// shared memory.
__global__ void row_sums_kernel(const float* x, float* sums, int cols) {
  __shared__ float partial[256];
  const float* row = x + static_cast<std::int64_t>(blockIdx.x) * cols;
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  int c = threadIdx.x;
  for (; c + 3 * 256 < cols; c += 4 * 256) {
    s0 += row[c];
    s1 += row[c + 256];
    s2 += row[c + 512];
    s3 += row[c + 768];
  }
  for (; c < cols; c += 256) s0 += row[c];
  const float sum = (s0 + s1) + (s2 + s3);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

static void row_sums(kbench::kernel_case& c) {
  const auto rows = static_cast<int>(c.dim("rows")), cols = static_cast<int>(c.dim("cols"));
  auto x = c.input<float>("x", {rows, cols}, kbench::uniform(0.5, 1.5));  // all > 0: no cancellation
  auto sums = c.output<float>("sums", {rows});
  // Scratch: the rows' offsets, and the library's temporary storage at the size its query gives, asked
  // when the case is opened on the GPU (CUB's query reads the device; a declaration runs without one too).
  auto offsets = c.scratch<int>("offsets", rows + 1);
  auto temp = c.scratch_bytes("library temporary storage", [=] {
    std::size_t bytes = 0;
    library_row_sums(nullptr, bytes, nullptr, nullptr, nullptr, rows, nullptr);
    return bytes;
  });
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(row_offsets_kernel, dim3(static_cast<unsigned int>((rows + 256) / 256)), dim3(256), 0, s,
                       offsets.get(), rows, cols);
    KBENCH_HIP_CHECK_LAUNCH();
    std::size_t bytes = temp.bytes();
    library_row_sums(temp, bytes, x, sums, offsets, rows, s);
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(row_sums_kernel, dim3(static_cast<unsigned int>(rows)), dim3(256), 0, s, x.get(), sums.get(), cols);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  // Two fp32 sums of positive values in different orders: each element meets at most cols - 1 rounded
  // adds, so each sum is within (cols - 1) * 2^-24 of the exact one, relatively.
  c.tolerance(kbench::tol::relative{2.0 * (cols - 1) * 0x1p-24});
  c.bytes_moved(4.0 * rows * cols + 4.0 * rows);
  c.flops(1.0 * rows * cols);
}
KBENCH_REGISTER(row_sums).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 16384}, {"cols", 4096}});
