// A case that ends its process, or leaves the device unusable, fails alone: a kbench
// program of its own (its main is run_main, supervised) whose cases run in declaration order:
//
//   before_fault      a correct scale: passes
//   misaligned_fault  a scale that reads and writes 16 bytes at a time wherever its buffers are: right at
//                     its declared alignment; moved 4 bytes off it, on NVIDIA, a misaligned-address fault
//                     that leaves the context unusable (AMD's GPUs serve the access: it passes there)
//   ends_process      a correct scale whose optimized launch first ends the process as KBENCH_TEST_PLANT
//                     says (abort, _exit; unset: nothing)
//   after_fault       a correct scale: must run, in a new process, and pass
//
// tests/harness/CMakeLists.txt runs it (kbench.isolation.*) and checks each run's status and lines;
// skipped without a GPU.
#include <kbench/compare.hpp>

#include <cstdlib>
#include <string>

#include <unistd.h>

namespace {

__global__ void scale_kernel(const float* x, float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = 2.0f * x[i];
}

// Four elements a thread through float4, whatever the addresses (the planted assumption), then the tail.
__global__ void scale_by_four_kernel(const float* x, float* y, int n) {
  const int i = 4 * static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i + 3 < n) {
    float4 v = *reinterpret_cast<const float4*>(x + i);
    v.x *= 2.0f, v.y *= 2.0f, v.z *= 2.0f, v.w *= 2.0f;
    *reinterpret_cast<float4*>(y + i) = v;
  } else {
    for (int k = i; k < n; ++k) y[k] = 2.0f * x[k];
  }
}

constexpr int block = 256;

unsigned int blocks_for(int threads) { return static_cast<unsigned int>((threads + block - 1) / block); }

void scale(const float* x, float* y, int n, hipStream_t stream) {
  hipLaunchKernelGGL(scale_kernel, dim3(blocks_for(n)), dim3(block), 0, stream, x, y, n);
  KBENCH_HIP_CHECK_LAUNCH();
}

void scale_by_four(const float* x, float* y, int n, hipStream_t stream) {
  hipLaunchKernelGGL(scale_by_four_kernel, dim3(blocks_for((n + 3) / 4)), dim3(block), 0, stream, x, y, n);
  KBENCH_HIP_CHECK_LAUNCH();
}

// The planted end: the launch never returns.
void end_process_as_planted() {
  const char* planted = std::getenv("KBENCH_TEST_PLANT");
  const std::string how = planted ? planted : "";
  if (how == "abort") std::abort();
  if (how == "_exit") ::_exit(0);
}

enum class plant { none, misaligned, ends_process };

template <plant planted>
void declare(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.reference([=](hipStream_t s) { scale(x, y, static_cast<int>(n), s); });
  c.optimized([=](hipStream_t s) {
    if (planted == plant::ends_process) end_process_as_planted();
    if (planted == plant::misaligned) return scale_by_four(x, y, static_cast<int>(n), s);
    scale(x, y, static_cast<int>(n), s);
  });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * n);
}

}  // namespace

static void before_fault(kbench::kernel_case& c) { declare<plant::none>(c); }
static void misaligned_fault(kbench::kernel_case& c) { declare<plant::misaligned>(c); }
static void ends_process(kbench::kernel_case& c) { declare<plant::ends_process>(c); }
static void after_fault(kbench::kernel_case& c) { declare<plant::none>(c); }
KBENCH_REGISTER(before_fault).shape({{"n", 1 << 16}});
KBENCH_REGISTER(misaligned_fault).shape({{"n", 1 << 16}});
KBENCH_REGISTER(ends_process).shape({{"n", 1 << 16}});
KBENCH_REGISTER(after_fault).shape({{"n", 1 << 16}});
