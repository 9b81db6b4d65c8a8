// kbench/procedure/runner.hpp: the procedure behind every verdict, for one registered case at one shape. A
// case_on_devices is the case at that shape: its declaration and the pieces of its memory, split by job
// (case_buffers.hpp lists them); the stages it runs each hold the pieces they need: one correctness run
// (correctness_run.hpp, with tolerance_probe.hpp), one timing run (timing_run.hpp), the census (census_run.hpp).
// The judging of a timing is HIP-free (judge.hpp).
//
//   check(seed)  a correctness run: draw, run the optimized kernel then the reference, prove the tolerance
//                can fail, compare every output.
//   measure()    a timing run, allowed only after a passing check (run_perf_procedure enforces the order:
//                check, time, then check again with another seed, so a kernel right only before timing,
//                or only until its inputs change, fails). It returns measurements; the perf procedure
//                judges them (decisions/judge.hpp) and puts the timing together once.
//   census()     what each side launches, measured, judged and joined with the build's figures.
//
// kbench's programs, and tools and tests that drive kbench from their own code (check_case(),
// measure_case() in procedure.hpp), reach it through procedure.hpp: compiled once per project.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../compare.hpp"
#include "../decisions/census_judge.hpp"
#include "../decisions/judge.hpp"
#include "../decisions/run_options.hpp"
#include "../engines/device_probe.hpp"
#include "../procedure.hpp"
#include "../results/report.hpp"
#include "../results/results.hpp"
#include "case_buffers.hpp"
#include "case_device_tools.hpp"
#include "census_run.hpp"
#include "correctness_run.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"
#include "timing_run.hpp"

namespace kbench {
namespace detail {

// A registered case instantiated at one shape (the one type for it; opened_case in procedure.hpp is its
// HIP-free handle), with its device memory and the tools that work on it.
class case_on_devices {
 public:
  // On the GPUs `options` give (null: device 0, then the others); skipped_case when there are too few.
  case_on_devices(const case_registration& registration, const kbench::shape& s, const run_options* options = nullptr)
      : case_(registration.name(), s), buffers_(declare(case_, registration), options), comparator_(buffers_),
        host_(buffers_), loads_(buffers_.devices()), quick_(options && options->quick) {}

  [[nodiscard]] const declared_case& declaration() const { return detail::declared(case_); }
  [[nodiscard]] const case_devices& devices() const { return buffers_.devices(); }

  // The checks of a first seed (--quick: without the extended checks; `any_size`: those beyond
  // small_case_elements too).
  [[nodiscard]] correctness_checks first_seed(bool any_size = false) const {
    return correctness_checks::first_seed(quick_, any_size);
  }

  // One correctness run at `seed`, with the checks a seed in that place gets.
  [[nodiscard]] seed_result check(std::uint64_t seed, correctness_checks checks) {
    return correctness_run(buffers_, comparator_, host_, loads_).run(seed, checks);
  }

  // One timing run's measurements; call it only right after a passing check(), whose inputs it times first.
  [[nodiscard]] timing_measurements measure(const run_options& o, const gpu_info& g, const device_ceilings& ceilings) {
    return timing_run(buffers_, comparator_, host_, o, g, ceilings).run();
  }

  // The census of one launch of each side, on the inputs of the last check, judged against what the case
  // expects of it and joined with the figures of the program's device code (`built`; null: not joined).
  [[nodiscard]] case_census census(const run_options& o, const gpu_info& g, const built_listing* built) {
    // `<program> census` measures for a profiler to be set against it: 40 cold samples per figure, nine
    // profiled launches per side. A perf run, whose wall time the census only adds to (each cold sample
    // waits 300 us for the device to settle), takes 8 and one: the census was 34 ms of rmsnorm 16384 x
    // 8192's 226 (limit 240) at 12.
    const census_plan plan = o.mode == run_mode::census ? census_plan{} : census_plan{8, 1};
    case_census measured =
        take_case_census(buffers_, g, flush_bytes(o, g.l2_bytes), measured_ceilings().floor.events_only, plan);
    if (built == nullptr) {
      measured.findings = judge_census(measured, declaration().census);
      return measured;
    }
    return assemble_census(std::move(measured), declaration().census, *built, g.arch);
  }

 private:
  // The case function run on `c`, whose declaration must be complete.
  static const declared_case& declare(kernel_case& c, const case_registration& registration) {
    registration.function()(c);
    detail::declared(c).validate();
    return detail::declared(c);
  }

  kernel_case case_;
  case_buffers buffers_;
  output_comparator comparator_;
  host_computation host_;
  device_loads loads_;  // the reruns under load's, kept: each device's spinner is calibrated once
  bool quick_;          // --quick
};

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
  const device_ceilings& ceilings = measured_ceilings();
  stage_times stages;
  seed_result before;
  stages.push_back({"first check", host_seconds([&] { before = instance.check(seeds.front(), instance.first_seed()); })});
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
