// argmax, fp32 and fp16: greedy sampling, v2 (16-byte loads; small batches split across blocks) against v1 (a block
// per row).
#include <kbench/compare.hpp>

#include <type_traits>

#include "argmax/argmax_v1.hip"
#include "argmax/argmax_v2.hip"

template <class T>
static void argmax(kbench::kernel_case& c) {
  const auto batch = c.dim("batch"), vocab = c.dim("vocab");
  // fp32: one right answer per row (value, then smallest index); fp16 draws tie often, and the smallest index
  // wins in both.
  auto logits = c.input<T>("logits", {batch, vocab}, std::is_same_v<T, float> ? kbench::normal(0, 4) : kbench::uniform(-8, 8));
  auto index = c.output<std::int32_t>("index", {batch});
  c.reference([=](hipStream_t s) { argmax_v1::launch<T>(logits, index, batch, vocab, s); });
  c.optimized([=](hipStream_t s) { argmax_v2::launch<T>(logits, index, batch, vocab, s); });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(static_cast<double>(sizeof(T)) * batch * vocab + 4.0 * batch);
  c.flops(1.0 * batch * vocab);  // a comparison per logit, in fp32
  // Memory-bound: no scratch, and enough waves (warps) in flight to cover the latency of memory.
  c.expect_resources("argmax_v2::").spills_none().scratch_at_most(0).waves_at_least(4).warps_at_least(32);
}
KBENCH_REGISTER(argmax<float>).name("argmax_fp32").shape({{"batch", 1}, {"vocab", 128256}}).shape({{"batch", 8}, {"vocab", 128256}}).shape({{"batch", 512}, {"vocab", 128256}}).shape({{"batch", 3}, {"vocab", 32001}}).shape({{"batch", 37}, {"vocab", 1531}});
KBENCH_REGISTER(argmax<kbench::fp16_t>).name("argmax_fp16").shape({{"batch", 1}, {"vocab", 128256}}).shape({{"batch", 8}, {"vocab", 128256}}).shape({{"batch", 1024}, {"vocab", 128256}}).shape({{"batch", 3}, {"vocab", 32001}}).shape({{"batch", 37}, {"vocab", 1531}});
