// Trust, round three: a verdict that cannot be forged. A kbench program of its own (its main is run_main,
// so it runs supervised: program/supervisor.hpp) with one correct case, whose optimized launch first ends
// the process as KBENCH_TEST_PLANT says:
//
//   exit        std::exit(0): exit handlers and static destructors run, the results are never written
//   _exit       _exit(0): nothing runs, not even exit handlers
//   quick_exit  std::quick_exit(0): only the quick-exit handlers run
//   exit77      std::exit(77): the status CTest reads as a skip
//   none        nothing: the case must pass
//
// tests/CMakeLists.txt runs it in each mode (kbench.verdict.<mode>.<how>): every planted way must fail
// the run, saying that the program ended before kbench finished, during this case. Needs a GPU to reach
// the launch (skipped without one).
#include <kbench/compare.hpp>

#include <cstdlib>
#include <string>

#include <unistd.h>

namespace {

__global__ void scale_kernel(const float* x, float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = 2.0f * x[i];
}

void scale(const float* x, float* y, int n, hipStream_t stream) {
  constexpr int block = 256;
  hipLaunchKernelGGL(scale_kernel, dim3(static_cast<unsigned int>((n + block - 1) / block)), dim3(block), 0, stream, x, y, n);
  KBENCH_HIP_CHECK_LAUNCH();
}

// The planted end: the launch never returns.
void end_process_as_planted(const std::string& how) {
  if (how == "exit") std::exit(0);
  if (how == "_exit") ::_exit(0);
  if (how == "quick_exit") std::quick_exit(0);
  if (how == "exit77") std::exit(77);
}

}  // namespace

static void verdict(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  const char* planted = std::getenv("KBENCH_TEST_PLANT");
  const std::string how = planted ? planted : "none";
  c.reference([=](hipStream_t s) { scale(x, y, static_cast<int>(n), s); });
  c.optimized([=](hipStream_t s) {
    end_process_as_planted(how);
    scale(x, y, static_cast<int>(n), s);
  });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * n);
}
KBENCH_REGISTER(verdict).shape({{"n", 1 << 20}});
