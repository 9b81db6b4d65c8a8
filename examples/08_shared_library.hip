// Example 8: the optimized side is a kernel in a shared library opened at run time (kbench::shared_library,
// dlopen): an extern "C" launcher, typed by the case; on AMD also the kernel itself, launched here with
// hipLaunchKernel through its host function (on NVIDIA a library's kernels are registered with the CUDA
// runtime that the library links, which is not the program's: a launcher is the way there).
//
// y = a * x + b, fp32, against a host reference in double. The library (examples/08_shared_library/
// scale_library.hip) is built by this project; its path reaches the program as a compile definition, and a
// missing library or symbol fails the case when it is declared, naming both.
#include <kbench/compare.hpp>
#include <kbench/contract/shared_library.hpp>

#include <cstdint>

static void affine(kbench::kernel_case& c) {
  const auto n = static_cast<std::int64_t>(c.dim("n"));
  const float a = 1.7f, b = -0.25f;
  auto x = c.input<float>("x", {c.dim("n")});
  auto y = c.output<float>("y", {c.dim("n")});
  const kbench::shared_library library(KBENCH_EXAMPLE_SHARED_LIBRARY);
  c.host_reference([=] {
    for (std::size_t i = 0; i < y.size(); ++i) y.host()[i] = double{a} * x.host()[i] + b;
  });
  const bool through_kernel = c.flag("kernel");
  if (!through_kernel) {
    const auto launch = library.function<void(const float*, float*, float, float, std::int64_t, hipStream_t)>("launch_affine");
    c.optimized([=](hipStream_t s) { launch(x, y, a, b, n, s); });
  } else {
    const void* kernel = library.kernel("affine_kernel");
    c.optimized([=](hipStream_t s) {
      const float* in = x;
      float* out = y;
      float scale = a, shift = b;
      std::int64_t count = n;
      void* args[] = {&in, &out, &scale, &shift, &count};
      KBENCH_HIP_CHECK(hipLaunchKernel(kernel, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), args, 0, s));
      KBENCH_HIP_CHECK_LAUNCH();
    });
  }
  c.bytes_moved(2.0 * 4 * n);
  c.flops(2.0 * n);
}
#if defined(KBENCH_PLATFORM_AMD)
KBENCH_REGISTER(affine)
    .shape({{"n", 1000003}, {"kernel", 0}}).shape({{"n", 77}, {"kernel", 0}})
    .shape({{"n", 1000003}, {"kernel", 1}});
#else
KBENCH_REGISTER(affine).shape({{"n", 1000003}, {"kernel", 0}}).shape({{"n", 77}, {"kernel", 0}});
#endif
