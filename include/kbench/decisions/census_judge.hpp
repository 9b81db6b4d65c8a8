// kbench/decisions/census_judge.hpp: the census (results/census.hpp) against what the case expects of it
// (`expect_kernels()` and the other census declarations): a failing finding for each figure that
// contradicts them. HIP-free.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/declaration.hpp"
#include "../results/census.hpp"
#include "../results/outcome.hpp"

namespace kbench {

// What contradicts the case's expectations: each a failing finding naming the figure.
[[nodiscard]] inline std::vector<finding> judge_census(const case_census& c, const census_expectations& e) {
  std::vector<finding> found;
  if (!e.any()) return found;
  const census_side& o = c.optimized;
  if (!o.captured) {
    found.push_back({finding_kind::census_mismatch,
                     "the case expects things of its optimized kernels, but one launch could not be captured to list "
                     "them: " + o.reason});
    return found;
  }
  if (e.kernels >= 0 && static_cast<int>(o.kernels.size()) != e.kernels) {
    std::string names;
    for (const census_kernel& k : o.kernels) names += (names.empty() ? "" : ", ") + k.name;
    found.push_back({finding_kind::census_mismatch,
                     fmt::format("the optimized side launches {} kernel{} ({}), the case expects {}", o.kernels.size(),
                                 o.kernels.size() == 1 ? "" : "s", names.empty() ? "none" : names, e.kernels)});
  }
  for (const census_kernel& k : o.kernels) {
    if (e.max_registers >= 0 && k.registers > e.max_registers) {
      found.push_back({finding_kind::census_mismatch, fmt::format("kernel {} uses {} registers per thread, the case "
                                                                  "allows at most {}",
                                                                  k.name, k.registers, e.max_registers)});
    }
    if (e.min_occupancy >= 0 && k.occupancy >= 0 && k.occupancy < e.min_occupancy) {
      found.push_back({finding_kind::census_mismatch,
                       fmt::format("kernel {} reaches a theoretical occupancy of {:.0f}% ({} blocks of {} threads per "
                                   "compute unit), the case expects at least {:.0f}%",
                                   k.name, 100 * k.occupancy, k.blocks_per_unit, k.threads_per_block(),
                                   100 * e.min_occupancy)});
    }
  }
  return found;
}

}  // namespace kbench
