#include <kbench/compare.hpp>

#include "softmax/softmax_v1.hip"
#include "softmax/softmax_v2.hip"

static void softmax(kbench::kernel_case& c) {  // v2 (row in registers) against v1 (three passes); fp16 in and out
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<kbench::fp16_t>("x", {rows, cols}, kbench::normal(100, 4));  // exp(x) overflows fp32 unshifted
  auto y = c.output<kbench::fp16_t>("y", {rows, cols});
  c.reference([=](hipStream_t s) { softmax_v1::launch(x, y, rows, cols, s); });
  c.optimized([=](hipStream_t s) { softmax_v2::launch(x, y, rows, cols, s); });
  c.tolerance(kbench::tol::ulp{1});  // expf vs exp2f, sum order: ~1e-5 relative in fp32, << one fp16 step
  c.bytes_moved(2.0 * 2.0 * rows * cols);  // read x, write y
  c.flops(5.0 * rows * cols);  // in fp32: the max, the difference, the exponential, the sum, the scale
  // The resources its authors intend, checked on AMD without a GPU (`softmax_test resources`): no spills or
  // scratch anywhere. The widest cached row (8 chunks of 8 halves a thread, in registers) trades waves for
  // one read of x: 101 VGPRs, 2 waves per SIMD on gfx906, 100 and 4 on gfx90a, kept for rows up to 16384.
  c.expect_resources("softmax_v2::").spills_none().scratch_at_most(0);
  c.expect_resources("softmax_v2::softmax_cached_kernel<8, 8>", "gfx906").waves_at_least(2);
  c.expect_resources("softmax_v2::softmax_cached_kernel<8, 8>", "gfx90a").waves_at_least(4);
  c.expect_resources("softmax_v2::softmax_streaming_kernel").waves_at_least(8).warps_at_least(32);
}
KBENCH_REGISTER(softmax).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 4096}, {"cols", 32768}})
    .shape({{"rows", 8}, {"cols", 128256}}).shape({{"rows", 3}, {"cols", 50001}});
