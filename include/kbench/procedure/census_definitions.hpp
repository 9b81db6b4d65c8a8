// kbench/procedure/census_definitions.hpp: case_on_devices::census(), the census of each side (census_run.hpp) judged and
// joined with the build's figures, defined once per program: kbench.cmake compiles it as a
// translation unit of its own, beside the procedure's other parts (procedure_impl.hpp, correctness_definitions.hpp, timing_definitions.hpp), so
// that they build in parallel; kbench/main.hpp includes them all.
#pragma once

#include "../decisions/census_judge.hpp"
#include "../decisions/timing_plan.hpp"
#include "census_run.hpp"
#include "runner.hpp"

namespace kbench {
namespace detail {

case_census case_on_devices::census(const run_options& o, const gpu_info& g, const built_listing* built) {
  // `<program> census` measures for a profiler to be set against it: 40 cold samples per figure, nine
  // profiled launches per side. A perf run, whose wall time the census only adds to (each cold sample
  // waits 300 us for the device to settle), takes 8 and one: the census was 34 ms of rmsnorm 16384 x
  // 8192's 226 (limit 240) at 12.
  const census_plan plan = o.mode == run_mode::census ? census_plan{} : census_plan{8, 1};
  case_census measured =
      take_case_census(layout_, devices_, buffers_, g, flush_bytes(o, g.l2_bytes), device_ceilings_once().floor.events_only, plan);
  return assemble_census(std::move(measured), declaration().census, built, g.arch);
}

}  // namespace detail
}  // namespace kbench
