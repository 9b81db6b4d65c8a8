// argmax, fp32: greedy sampling, v2 (16-byte loads; small batches split across blocks) against v1 (a block per row).
#include <kbench/compare.hpp>

#include "argmax/argmax_v1.hip"
#include "argmax/argmax_v2.hip"

static void argmax_fp32(kbench::kernel_case& c) {
  const auto batch = c.dim("batch"), vocab = c.dim("vocab");
  auto logits = c.input<float>("logits", {batch, vocab}, kbench::normal(0, 4));
  auto index = c.output<std::int32_t>("index", {batch});
  c.reference([=](hipStream_t s) { argmax_v1::launch<float>(logits, index, batch, vocab, s); });
  c.optimized([=](hipStream_t s) { argmax_v2::launch<float>(logits, index, batch, vocab, s); });
  c.tolerance(kbench::tol::exact{});  // one right answer per row: value, then smallest index
  c.bytes_moved(4.0 * batch * vocab + 4.0 * batch);
}
KBENCH_REGISTER(argmax_fp32).shape({{"batch", 1}, {"vocab", 128256}}).shape({{"batch", 8}, {"vocab", 128256}}).shape({{"batch", 512}, {"vocab", 128256}}).shape({{"batch", 3}, {"vocab", 32001}}).shape({{"batch", 37}, {"vocab", 1531}});
