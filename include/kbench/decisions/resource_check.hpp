// kbench/decisions/resource_check.hpp: a case's resource bounds (kernel_case::expect_resources) against the
// kernels the program carries (`<program> resources`). Each failure names the kernel, the target, the
// figure and the bound; a bound that names no kernel of a target it covers fails too (a misspelt name
// would otherwise check nothing). HIP-free.
#pragma once

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/declaration.hpp"
#include "../detail/demangle.hpp"
#include "../results/kernel_resources.hpp"
#include "occupancy.hpp"

namespace kbench {

// The failures of `bound` (declared by `case_label`) against `kernels`. A bound for a target the program
// was not built for checks nothing here (the build for that target checks it).
[[nodiscard]] inline std::vector<std::string> check_resource_bound(const std::string& case_label, const resource_bound& bound,
                                                                   const std::vector<kernel_resources>& kernels) {
  std::vector<std::string> failures;
  std::set<std::string> targets, matched_targets;
  for (const kernel_resources& k : kernels) {
    const std::string target = target_base(k.target);
    if (!bound.target.empty() && target != bound.target) continue;
    targets.insert(target);
    const std::string name = detail::demangled(k.name);
    if (name.find(bound.kernels) == std::string::npos) continue;
    matched_targets.insert(target);
    auto fail = [&](const std::string& figure, const std::string& limit) {
      failures.push_back(fmt::format("{}: {} on {}: {}, bound {}", case_label, name, target, figure, limit));
    };
    const bool nvidia = nvidia_target(target);
    const char* registers = nvidia ? "registers" : "VGPRs";
    if (bound.max_vgprs >= 0 && k.vgprs > bound.max_vgprs) {
      fail(fmt::format("{} {}", k.vgprs, registers), fmt::format("at most {}", bound.max_vgprs));
    }
    if (bound.no_spills && nvidia && k.scratch_bytes > 0) {
      fail(fmt::format("{} bytes of stack a thread (a cubin does not tell spills from local arrays)", k.scratch_bytes),
           "no spills");
    } else if (bound.no_spills && (k.vgpr_spills > 0 || k.sgpr_spills > 0)) {
      fail(fmt::format("{} VGPRs and {} SGPRs spilled", k.vgpr_spills, k.sgpr_spills), "no spills");
    }
    if (bound.max_scratch_bytes >= 0 && (k.scratch_bytes > bound.max_scratch_bytes || k.dynamic_stack)) {
      fail(fmt::format("{} bytes of {} a {}{}", k.scratch_bytes, nvidia ? "stack" : "scratch", nvidia ? "thread" : "work-item",
                       k.dynamic_stack ? " and a dynamic stack" : ""),
           fmt::format("at most {}", bound.max_scratch_bytes));
    }
    if (bound.max_lds_bytes >= 0 && k.lds_bytes > bound.max_lds_bytes) {
      fail(fmt::format("{} bytes of {}", k.lds_bytes, nvidia ? "static shared memory" : "LDS"),
           fmt::format("at most {}", bound.max_lds_bytes));
    }
    const int least = nvidia ? bound.min_warps_per_sm : bound.min_waves_per_simd;
    if (least >= 0) {
      const char* unit = nvidia ? "warps per SM" : "waves per SIMD";
      const std::optional<kernel_occupancy> o = occupancy_of(k);
      if (!o) {
        fail(fmt::format("{} unknown (kbench has no occupancy rule for the target)", unit), fmt::format("at least {}", least));
      } else if (o->waves < least) {
        const std::string next =
            o->vgprs_for_next_wave >= 0 ? fmt::format("; {} {} give one more", o->vgprs_for_next_wave, registers) : "";
        fail(fmt::format("{} {}, limited by {} ({} {}{})", o->waves, unit, o->limiter, k.vgprs, registers, next),
             fmt::format("at least {}", least));
      }
    }
  }
  for (const std::string& target : targets) {
    if (matched_targets.count(target) == 0) {
      failures.push_back(fmt::format("{}: the resource bound on '{}' names no kernel of {} (its names as `resources` "
                                     "prints them)",
                                     case_label, bound.kernels, target));
    }
  }
  return failures;
}

}  // namespace kbench
