// The device comparison's speed on two equal 1 GiB fp32 outputs, against the copy bandwidth: the figure
// kbench.device_compare.speed checks, measured here for the loop's variants (run.sh compiles this file
// once per variant of the element loop's unroll depth and blocks per multiprocessor).
#include <algorithm>
#include <cstdio>
#include <vector>

#include <kbench/engines/device_compare_loop.hpp>
#include <kbench/engines/device_probe.hpp>
#include <kbench/engines/small_kernels.hpp>  // the read-only kernel of measure_copy_bandwidth()

__global__ void fill(float* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    x[i] = sinf(static_cast<float>(i % 100003)) * 3.0f;
  }
}

int main() {
  const std::size_t n = std::size_t{1} << 28;
  float *a = nullptr, *e = nullptr;
  KBENCH_HIP_CHECK(hipMalloc(&a, n * 4));
  KBENCH_HIP_CHECK(hipMalloc(&e, n * 4));
  hipLaunchKernelGGL(fill, dim3(4096), dim3(256), 0, 0, e, n);
  KBENCH_HIP_CHECK_LAUNCH();
  KBENCH_HIP_CHECK(hipMemcpy(a, e, n * 4, hipMemcpyDeviceToDevice));
  const kbench::copy_bandwidth copy = kbench::measure_copy_bandwidth();
  const kbench::tolerance rule = kbench::make_tolerance(kbench::tol::allclose{1e-3, 1e-5});
  hipEvent_t start, stop;
  KBENCH_HIP_CHECK(hipEventCreate(&start));
  KBENCH_HIP_CHECK(hipEventCreate(&stop));
  std::vector<float> ms;
  bool clean = true;
  for (int i = 0; i < 21; ++i) {
    KBENCH_HIP_CHECK(hipEventRecord(start, 0));
    using reader = kbench::detail::device_reader_of<kbench::dtype::f32>;
    const kbench::element_tally d = kbench::detail::run_compare<reader>(a, e, n, 0, kbench::dtype::f32, rule, true, 0);
    KBENCH_HIP_CHECK(hipEventRecord(stop, 0));
    KBENCH_HIP_CHECK(hipEventSynchronize(stop));
    float t = 0;
    KBENCH_HIP_CHECK(hipEventElapsedTime(&t, start, stop));
    if (i > 0) ms.push_back(t);
    clean = clean && d.clean() && d.mismatches == 0;
  }
  std::sort(ms.begin(), ms.end());
  const double rate = 2.0 * n * 4 / (ms[ms.size() / 2] * 1e-3);
  std::printf("%s: %.3f ms (%.3f-%.3f), %.2f TB/s, %.1f%% of copy %.2f TB/s (reading alone %.2f TB/s), clean %d\n",
              VARIANT, ms[ms.size() / 2], ms.front(), ms.back(), rate / 1e12, 100 * rate / copy.bytes_per_second,
              copy.bytes_per_second / 1e12, copy.read_bytes_per_second / 1e12, clean);
  return clean ? 0 : 1;
}
