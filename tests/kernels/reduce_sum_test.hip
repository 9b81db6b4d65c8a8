// reduce_sum v1, v2 vs a host sum in double. x > 0, so |error| <= 2^-24 * sum * (most fp32 adds any x[i] meets):
#include <kbench/compare.hpp>

#include "reduce_sum/reduce_sum_v1.hip"
#include "reduce_sum/reduce_sum_v2.hip"

template <int version> static void reduce_sum(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n}, kbench::uniform(0.5, 1.5));  // all > 0: the sum is ~n, far from 0
  auto sum = c.output<float>("sum", {1});
  c.host_reference([=] {  // in 8 running sums: one chain of adds would wait out each add's latency (2^28 of them)
    double s[8] = {};
    const auto v = x.host();
    for (std::size_t i = 0; i < v.size(); ++i) s[i % 8] += v[i];
    sum.host()[0] = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  });
  c.optimized([=](hipStream_t s) { (version == 1 ? reduce_sum_v1::launch : reduce_sum_v2::launch)(x, sum, n, s); });
  c.tolerance(kbench::tol::relative{0x1p-24 * (std::ceil(n / (version == 1 ? 0x1p18 : 0x1p20)) + 64)});  // adds, see NOTES.md
  c.bytes_moved(4.0 * n + 4.0);
  c.flops(1.0 * n);  // an fp32 add per element
  // Memory-bound: no scratch, and enough waves (warps) in flight to cover the latency of memory.
  c.expect_resources("reduce_sum_v2::").spills_none().scratch_at_most(0).waves_at_least(4).warps_at_least(32);
}
KBENCH_REGISTER(reduce_sum<1>).shape({{"n", 1531}}).shape({{"n", 100000007}}).shape({{"n", 268435456}});
KBENCH_REGISTER(reduce_sum<2>).shape({{"n", 1531}}).shape({{"n", 100000007}}).shape({{"n", 268435456}});
