// argmax, fp16: greedy sampling, v2 (16-byte loads; small batches split across blocks) against v1 (a block per row).
#include <kbench/compare.hpp>

#include "argmax/argmax_v1.hip"
#include "argmax/argmax_v2.hip"

static void argmax_fp16(kbench::kernel_case& c) {
  const auto batch = c.dim("batch"), vocab = c.dim("vocab");
  auto logits = c.input<kbench::fp16_t>("logits", {batch, vocab}, kbench::uniform(-8, 8));
  auto index = c.output<std::int32_t>("index", {batch});
  c.reference([=](hipStream_t s) { argmax_v1::launch<kbench::fp16_t>(logits, index, batch, vocab, s); });
  c.optimized([=](hipStream_t s) { argmax_v2::launch<kbench::fp16_t>(logits, index, batch, vocab, s); });
  c.tolerance(kbench::tol::exact{});  // fp16 draws tie often; smallest index wins in both
  c.bytes_moved(2.0 * batch * vocab + 4.0 * batch);
}
KBENCH_REGISTER(argmax_fp16).shape({{"batch", 1}, {"vocab", 128256}}).shape({{"batch", 8}, {"vocab", 128256}}).shape({{"batch", 1024}, {"vocab", 128256}}).shape({{"batch", 3}, {"vocab", 32001}}).shape({{"batch", 37}, {"vocab", 1531}});
