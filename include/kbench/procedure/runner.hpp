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
// The three are defined in translation units of their own (correctness_definitions.hpp,
// timing_definitions.hpp, census_definitions.hpp), which build in parallel; perf_procedure.hpp runs them in
// order. kbench's programs, and tools and tests that drive kbench from their own code (check_case(),
// measure_case() in procedure.hpp), reach it through procedure.hpp: compiled once per project.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../compare.hpp"
#include "../decisions/run_options.hpp"
#include "../procedure.hpp"
#include "../results/kernel_resources.hpp"
#include "../results/results.hpp"
#include "case_buffers.hpp"
#include "case_device_tools.hpp"
#include "correctness_checks.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"

namespace kbench {
namespace detail {

// A registered case instantiated at one shape (the one type for it; opened_case in procedure.hpp is its
// HIP-free handle), with its device memory and the tools that work on it, made in this order: the layout
// from the declaration, the GPUs, the launcher, the memory on them, then what reads it.
class case_on_devices {
 public:
  // On the GPUs `options` give (choose_devices: `options`' device for a case of one; null options: device
  // 0, then the others); skipped_case when there are too few, or when the case requires peer access
  // between them and they lack it.
  case_on_devices(const case_registration& registration, const kbench::shape& s, const run_options* options = nullptr)
      : case_(registration.name(), s), layout_(declare(case_, registration)),
        devices_(choose_devices(layout_.declaration().device_count(), options)), launcher_(layout_, devices_),
        buffers_(layout_, devices_, launcher_), comparator_(layout_, devices_, buffers_),
        host_(layout_, devices_, launcher_), loads_(devices_), quick_(options && options->quick) {
    if (declaration().requires_peer_access && !devices_.peer_access()) {
      throw skipped_case("the case requires peer access between its GPUs, and " + devices_.missing_peer_access());
    }
  }

  [[nodiscard]] const declared_case& declaration() const { return layout_.declaration(); }
  [[nodiscard]] const case_devices& devices() const { return devices_; }

  // The checks of a first seed (--quick: without the extended checks; `any_size`: those beyond
  // small_case_elements too).
  [[nodiscard]] correctness_checks first_seed(bool any_size = false) const {
    return correctness_checks::first_seed(quick_, any_size);
  }

  // One correctness run at `seed`, with the checks a seed in that place gets (correctness_definitions.hpp).
  [[nodiscard]] seed_result check(std::uint64_t seed, correctness_checks checks);

  // One timing run's measurements; call it only right after a passing check(), whose inputs it times first
  // (timing_definitions.hpp).
  [[nodiscard]] timing_measurements measure(const run_options& o, const gpu_info& g, const device_ceilings& ceilings);

  // The census of one launch of each side, on the inputs of the last check, judged against what the case
  // expects of it and joined with the figures of the program's device code (`built`; null: not joined)
  // (census_definitions.hpp).
  [[nodiscard]] case_census census(const run_options& o, const gpu_info& g, const built_listing* built);

 private:
  // The case function run on `c`, whose declaration must be complete.
  static const declared_case& declare(kernel_case& c, const case_registration& registration) {
    registration.function()(c);
    detail::declared(c).validate();
    return detail::declared(c);
  }

  kernel_case case_;
  case_layout layout_;
  case_devices devices_;
  case_launcher launcher_;
  case_buffers buffers_;
  output_comparator comparator_;
  host_computation host_;
  device_loads loads_;  // the reruns under load's, kept: each device's spinner is calibrated once
  bool quick_;          // --quick
};

}  // namespace detail
}  // namespace kbench
