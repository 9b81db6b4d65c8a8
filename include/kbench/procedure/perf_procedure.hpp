// kbench/procedure/perf_procedure.hpp: the perf procedure on a case at one shape: check, time, judge, take
// the census, check again; its outcome put together once, at the end.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "../decisions/judge.hpp"
#include "../results/results.hpp"
#include "runner.hpp"

namespace kbench {
namespace detail {

// What a timing is judged against: the device's L2 and its ceilings, measured once per program.
[[nodiscard]] inline judging_context judging_context_of(const gpu_info& g, const device_ceilings& ceilings) {
  return {g.l2_bytes, ceilings.copy, ceilings.floor, ceilings.compute};
}

// The perf procedure on an instance; `seeds` gives the seed of the first check, and of the second when
// it holds two (otherwise the second is derived from the first); `built`: the program's device code, whose
// figures the census shows (null: not joined). Each step's result is kept as the step returned it (the
// timing's measurements with their judgement), and the outcome is put together once, at the end, with
// the host seconds of every step in order.
[[nodiscard]] inline perf_outcome run_perf_procedure(case_on_devices& instance, const run_options& options,
                                                     const gpu_info& g, const std::vector<std::uint64_t>& seeds,
                                                     const built_listing* built) {
  const device_ceilings& ceilings = device_ceilings_once();
  stage_times stages;
  seed_result before;
  // --quick (the main job, once its correctness stage passed on the same programs): the first check is a
  // later seed's, the comparison with its guards, poison and inputs kept; the probe of the tolerance, the
  // reruns under load, the oracle, the misalignments and the edges are the correctness run's.
  const correctness_checks first = options.quick ? correctness_checks::later_seed() : instance.first_seed();
  stages.push_back({"first check", host_seconds([&] { before = instance.check(seeds.front(), first); })});
  if (!before.passed()) return {std::move(before), std::nullopt, std::nullopt, std::nullopt, std::move(stages)};  // never timed
  const timing_measurements measured = instance.measure(options, g, ceilings);
  timing_result timing{measured, judge_timing(measured, judging_context_of(g, ceilings))};
  stages.insert(stages.end(), measured.stage_seconds.begin(), measured.stage_seconds.end());
  // What each side launches, and whether the optimized side is what the case expects.
  std::optional<case_census> census;
  stages.push_back({"census", host_seconds([&] { census = instance.census(options, g, built); })});
  // A kernel right only while warmed up, or only until its inputs change, fails now.
  const std::uint64_t second_seed = seeds.size() > 1 ? seeds[1] : seeds.front() ^ 0x9E3779B97F4A7C15ull;
  std::optional<seed_result> after;
  stages.push_back({"second check", host_seconds([&] { after = instance.check(second_seed, correctness_checks::later_seed()); })});
  return {std::move(before), std::move(timing), std::move(census), std::move(after), std::move(stages)};
}

}  // namespace detail
}  // namespace kbench
