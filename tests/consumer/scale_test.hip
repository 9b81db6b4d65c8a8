// A consumer's kernel test: y = 2x, fp32, its kernel in a versioned file (kernels/scale/scale_v1.hip),
// against a host reference.
#include <kbench/compare.hpp>

#include "scale/scale_v1.hip"

static void scale(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.host_reference([=] { for (std::size_t i = 0; i < y.size(); ++i) y.host()[i] = 2.0 * x.host()[i]; });
  c.optimized([=](hipStream_t s) { scale_v1::launch(x, y, 2.0f, n, s); });
  c.bytes_moved(8.0 * n);
}
KBENCH_REGISTER(scale).shape({{"n", 4099}});
