// kbench/procedure/timing_definitions.hpp: case_on_devices::measure(), a timing run (timing_run.hpp), defined once per program: kbench.cmake compiles it as a
// translation unit of its own, beside the procedure's other parts (procedure_impl.hpp, correctness_definitions.hpp, census_definitions.hpp), so
// that they build in parallel; kbench/main.hpp includes them all.
#pragma once

#include "runner.hpp"
#include "timing_run.hpp"

namespace kbench {
namespace detail {

timing_measurements case_on_devices::measure(const run_options& o, const gpu_info& g, const device_ceilings& ceilings) {
  return timing_run(layout_, devices_, buffers_, launcher_, comparator_, host_, o, g, ceilings).run();
}

}  // namespace detail
}  // namespace kbench
