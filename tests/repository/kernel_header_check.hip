// What a kernel file includes (platform.hpp, hip_check.hpp, fp8.hpp) stays off <string> and <stdexcept>:
// on nvcc those cost a kernel file's compile a quarter of a second, and an edit of a kernel file waits for
// that compile. A compile-time check: the #error says what crept in. The platform's own headers come
// first, so that only what kbench adds is judged: on NVIDIA they bring neither; HIP 5's AMD runtime
// headers include <string> themselves, so there the check has nothing to judge (nor the compile to gain).
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#if defined(__HIP_PLATFORM_NVIDIA__) || defined(__HIP_PLATFORM_NVCC__)
#include <cuda_bf16.h>
#elif __has_include(<hip/hip_bf16.h>)
#include <hip/hip_bf16.h>
#else
#include <hip/hip_bfloat16.h>
#endif

#if defined(_GLIBCXX_STRING) || defined(_LIBCPP_STRING) || defined(_GLIBCXX_STDEXCEPT) || defined(_LIBCPP_STDEXCEPT)
#define KBENCH_PLATFORM_BRINGS_STRING 1
#endif

#include <kbench/contract/fp8.hpp>
#include <kbench/contract/hip_check.hpp>
#include <kbench/contract/platform.hpp>

#if !defined(KBENCH_PLATFORM_BRINGS_STRING)
#if defined(_GLIBCXX_STRING) || defined(_LIBCPP_STRING)
#error "a kernel file's kbench headers pull in <string>"
#endif
#if defined(_GLIBCXX_STDEXCEPT) || defined(_LIBCPP_STDEXCEPT)
#error "a kernel file's kbench headers pull in <stdexcept>"
#endif
#endif

// What a kernel file uses is there: the element types and their conversions, and the launch check.
namespace {
__global__ void scale_kernel(const kbench::fp16_t* x, kbench::fp16_t* y, float a, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = kbench::from_float<kbench::fp16_t>(a * kbench::to_float(x[i]));
}
}  // namespace

void kernel_header_check_launch(const kbench::fp16_t* x, kbench::fp16_t* y, float a, int n, hipStream_t stream) {
  hipLaunchKernelGGL(scale_kernel, dim3((n + 255) / 256), dim3(256), 0, stream, x, y, a, n);
  KBENCH_HIP_CHECK_LAUNCH();
}
