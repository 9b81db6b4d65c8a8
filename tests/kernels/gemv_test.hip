// gemv (decode, M = 1): v2 (16-byte loads, two rows per wave pass) against v1 (one wave per row, scalar loads).
#include <kbench/compare.hpp>

#include "gemv/gemv_v1.hip"
#include "gemv/gemv_v2.hip"

static void gemv(kbench::kernel_case& c) {
  const auto n = c.dim("n"), k = c.dim("k");  // w is [n, k]: K x N = 8192 x 28672 is k = 8192, n = 28672
  auto w = c.input<kbench::fp16_t>("w", {n, k}, kbench::uniform(-1, 1));
  auto x = c.input<kbench::fp16_t>("x", {k}, kbench::uniform(-1, 1));
  auto y = c.output<kbench::fp16_t>("y", {n});
  c.reference([=](hipStream_t s) { gemv_v1::launch(w, x, y, n, k, s); });
  c.optimized([=](hipStream_t s) { gemv_v2::launch(w, x, y, n, k, s); });
  c.tolerance(kbench::tol::allclose{1e-3, 0x1p-24 * k});  // fp16: 1 ulp <= 2^-10 |y|; fp32 order: sd ~2^-24 k / 40
  c.bytes_moved(2.0 * (n * k + k + n));  c.flops(2.0 * n * k);  // w, x read once, y written once
  // Memory-bound: no scratch, and enough waves (warps) in flight to cover the latency of memory.
  c.expect_resources("gemv_v2::").spills_none().scratch_at_most(0).waves_at_least(4).warps_at_least(32);
}
KBENCH_REGISTER(gemv).shape({{"n", 1531}, {"k", 1003}}).shape({{"n", 14336}, {"k", 4096}}).shape({{"n", 28672}, {"k", 8192}});
