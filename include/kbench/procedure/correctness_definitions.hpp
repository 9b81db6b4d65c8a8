// kbench/procedure/correctness_definitions.hpp: case_on_devices::check(), a correctness run (correctness_run.hpp), defined once per program: kbench.cmake compiles it as a
// translation unit of its own, beside the procedure's other parts (procedure_impl.hpp, timing_definitions.hpp, census_definitions.hpp), so
// that they build in parallel; kbench/main.hpp includes them all.
#pragma once

#include "correctness_run.hpp"
#include "runner.hpp"

namespace kbench {
namespace detail {

seed_result case_on_devices::check(std::uint64_t seed, correctness_checks checks) {
  return correctness_run(layout_, devices_, buffers_, launcher_, comparator_, host_, loads_).run(seed, checks);
}

}  // namespace detail
}  // namespace kbench
