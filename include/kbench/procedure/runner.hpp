// kbench/procedure/runner.hpp: the procedure behind every verdict, for one registered case at one shape. The
// stages live in detail/: the case's memory (case_memory.hpp), one correctness run (correctness_run.hpp,
// with teeth.hpp), one timing run (timing_run.hpp); the judging of a timing is HIP-free (judge.hpp).
//
//   check(seed)  a correctness run: draw, run the optimized kernel then the reference, prove the test has
//                teeth, compare every output.
//   measure()    a timing run, allowed only after a passing check (run_perf_procedure enforces the order:
//                check, time, then check again with another seed, so a kernel right only before timing,
//                or only until its inputs change, fails).
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
#include "../decisions/run_options.hpp"
#include "../engines/device_probe.hpp"
#include "../procedure.hpp"
#include "../results/report.hpp"
#include "../results/results.hpp"
#include "case_memory.hpp"
#include "census_run.hpp"
#include "correctness_run.hpp"
#include "timing_run.hpp"

namespace kbench {
namespace detail {

// A registered case instantiated at one shape, with its device memory.
class case_instance {
 public:
  // On the GPUs `options` give (null: device 0, then the others); skipped_case when there are too few.
  case_instance(const case_registration& registration, const kbench::shape& s, const run_options* options = nullptr)
      : case_(registration.name(), s), memory_(declared(case_, registration), options) {}

  [[nodiscard]] const kernel_case& declaration() const { return case_; }
  [[nodiscard]] const case_devices& devices() const { return memory_.devices(); }

  // One correctness run at `seed`. `probe_teeth` also proves that the tolerance can fail.
  [[nodiscard]] seed_result check(std::uint64_t seed, bool probe_teeth) { return run_correctness(memory_, seed, probe_teeth); }

  // One timing run; call it only right after a passing check(), whose inputs it times first.
  [[nodiscard]] timing_result measure(const run_options& o, const gpu_info& g, const device_ceilings& ceilings) {
    return timing_run(memory_, o, g, ceilings).run();
  }

  // The census of one launch of each side, on the inputs of the last check, judged against what the case
  // expects of it.
  [[nodiscard]] case_census census(const run_options& o, const gpu_info& g) {
    // `<program> census` measures for a profiler to be set against it: 40 cold samples per figure, nine
    // profiled launches per side. A perf run, whose wall time the census only adds to, takes 12 and one.
    const census_plan plan = o.mode == run_mode::census ? census_plan{} : census_plan{12, 1};
    case_census c =
        take_case_census(memory_, g, flush_bytes(o, g.l2_bytes), measured_ceilings().floor.events_only, plan);
    c.findings = judge_census(c, case_.census_expected());
    return c;
  }

 private:
  static kernel_case& declared(kernel_case& c, const case_registration& registration) {
    registration.function()(c);
    c.validate();
    return c;
  }

  kernel_case case_;
  case_memory memory_;
};

// The perf procedure on an instance; `seeds` gives the seed of the first check, and of the second when
// it holds two (otherwise the second is derived from the first).
[[nodiscard]] inline perf_outcome run_perf_procedure(case_instance& instance, const run_options& options,
                                                     const gpu_info& g, const std::vector<std::uint64_t>& seeds) {
  const device_ceilings& ceilings = measured_ceilings();
  perf_outcome outcome;
  const double first_check = host_seconds([&] { outcome.before = instance.check(seeds.front(), true); });
  if (!outcome.before.passed()) return outcome;  // a wrong kernel is never timed
  outcome.timing = instance.measure(options, g, ceilings);
  auto& stages = outcome.timing->stage_seconds;
  stages.insert(stages.begin(), {"first check", first_check});
  // What each side launches, and whether the optimized side is what the case expects.
  stages.push_back({"census", host_seconds([&] {
                      outcome.census = instance.census(options, g);
                      for (const finding& f : outcome.census->findings) outcome.timing->findings.push_back(f);
                    })});
  // A kernel right only while warmed up, or only until its inputs change, fails now.
  stages.push_back({"second check", host_seconds([&] {
                      outcome.after = instance.check(seeds.size() > 1 ? seeds[1] : seeds.front() ^ 0x9E3779B97F4A7C15ull,
                                                     false);
                    })});
  return outcome;
}

}  // namespace detail
}  // namespace kbench
