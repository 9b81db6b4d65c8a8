// kbench/results/throughput.hpp: what a timing's declared work per launch comes to per second, and its share
// of the device's copy bandwidth. Computed once per timing (judge_timing calls throughput_of) into the timing
// result, which the printed report, the JSON file, the tables and the benchmark counters only read. HIP-free.
#pragma once

#include <optional>

#include "../contract/declaration.hpp"

namespace kbench {

// One kernel's rates at its median time; 0 where the case declares none of that work.
struct work_rates {
  double bytes_per_second = 0.0;
  double flops_per_second = 0.0;
  double tokens_per_second = 0.0;
  double link_bytes_per_second = 0.0;      // between the GPUs of a case that spans several
  std::optional<double> fraction_of_copy;  // bytes_per_second over the copy bandwidth; absent without either
};

struct throughput_figures {
  work_rates optimized;
  std::optional<work_rates> reference;  // absent for a host reference (not timed)
};

// The rates of `work` done in `seconds_per_launch`, against a copy bandwidth (0: unknown).
[[nodiscard]] inline work_rates rates_of(const work_model& work, double seconds_per_launch,
                                         double copy_bytes_per_second) {
  auto per_second = [&](double per_launch) { return per_launch > 0 ? per_launch / seconds_per_launch : 0.0; };
  work_rates r;
  r.bytes_per_second = per_second(work.bytes);
  r.flops_per_second = per_second(work.flops);
  r.tokens_per_second = per_second(work.tokens);
  r.link_bytes_per_second = per_second(work.link_bytes);
  if (work.bytes > 0 && copy_bytes_per_second > 0) r.fraction_of_copy = r.bytes_per_second / copy_bytes_per_second;
  return r;
}

// Both kernels' rates at their medians; `reference_median` absent for a host reference.
[[nodiscard]] inline throughput_figures throughput_of(const work_model& work, double optimized_median,
                                                      std::optional<double> reference_median,
                                                      double copy_bytes_per_second) {
  throughput_figures f;
  f.optimized = rates_of(work, optimized_median, copy_bytes_per_second);
  if (reference_median) f.reference = rates_of(work, *reference_median, copy_bytes_per_second);
  return f;
}

}  // namespace kbench
