// rope, fp16 and bf16: v2 (16-byte accesses) against v1, in place on q and k as in vLLM. neox=1: pairs (i, i+d/2),
// 0: (2i, 2i+1).
#include <kbench/compare.hpp>

#include "rope/rope_v1.hip"
#include "rope/rope_v2.hip"

template <class T>
static void rope(kbench::kernel_case& c) {
  const auto t = c.dim("tokens"), hq = c.dim("q_heads"), hk = c.dim("kv_heads"), d = c.dim("head_dim");
  const bool neox = c.flag("neox");  // a layout switch: the shapes around a declared one never vary a flag
  auto pos = c.input<std::int32_t>("positions", {t}, kbench::uniform(0, 4095));  // max_pos = 4096
  auto cs = c.input<float>("cos", {4096, d / 2}), sn = c.input<float>("sin", {4096, d / 2});
  auto q = c.inout<T>("q", {t, hq, d}), k = c.inout<T>("k", {t, hk, d});  // uniform(-1, 1)
  c.reference([=](hipStream_t s) { rope_v1::launch<T>(q, k, pos, cs, sn, t, hq, hk, d, neox, s); });
  c.optimized([=](hipStream_t s) { rope_v2::launch<T>(q, k, pos, cs, sn, t, hq, hk, d, neox, s); });
  c.tolerance(kbench::tol::exact{});  // both evaluate the same explicit fmaf expressions in fp32, then round once
  c.bytes_moved(2.0 * 2 * t * (hq + hk) * d + 4.0 * t + 4.0 * d * std::min<std::int64_t>(t, 4096));
  c.flops(3.0 * t * (hq + hk) * d);  // in fp32: a pair rotated by two FMAs and two products, 3 flops an element
  // Memory-bound: no scratch, and enough waves (warps) in flight to cover the latency of memory.
  c.expect_resources("rope_v2::").spills_none().scratch_at_most(0).waves_at_least(4).warps_at_least(32);
}
// The large shape half-split (neox) in fp16 and interleaved in bf16; the small ones the other way round. A
// head is pairs of elements (both launchers reject an odd head_dim), so its neighbours are 2 apart.
KBENCH_REGISTER(rope<kbench::fp16_t>).name("rope_fp16").shape({{"tokens", 16384}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"neox", 1}}).shape({{"tokens", 37}, {"q_heads", 5}, {"kv_heads", 1}, {"head_dim", 80}, {"neox", 0}}).shape({{"tokens", 37}, {"q_heads", 7}, {"kv_heads", 3}, {"head_dim", 72}, {"neox", 1}}).dimension("head_dim", kbench::multiple_of(2));
KBENCH_REGISTER(rope<kbench::bf16_t>).name("rope_bf16").shape({{"tokens", 16384}, {"q_heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"neox", 0}}).shape({{"tokens", 37}, {"q_heads", 5}, {"kv_heads", 1}, {"head_dim", 80}, {"neox", 1}}).shape({{"tokens", 37}, {"q_heads", 7}, {"kv_heads", 3}, {"head_dim", 72}, {"neox", 0}}).dimension("head_dim", kbench::multiple_of(2));
