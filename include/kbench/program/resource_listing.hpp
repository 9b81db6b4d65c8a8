// kbench/program/resource_listing.hpp: `<program> resources`, every kernel of every target the program
// carries with its registers, spills, LDS, scratch and waves per SIMD (NVIDIA: registers, shared memory,
// stack and warps per SM), read from the program itself (code_objects.hpp) by the target's occupancy rule
// (occupancy.hpp); then every case's resource bounds (kernel_case::expect_resources) checked against them
// (resource_check.hpp). Needs no GPU. The same figures join the census's (census_judge.hpp's assemble_census).
// HIP-free.
#pragma once

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../decisions/occupancy.hpp"
#include "../decisions/resource_check.hpp"
#include "../decisions/run_options.hpp"
#include "../detail/demangle.hpp"
#include "../engines/code_objects.hpp"
#include "../procedure.hpp"
#include "../results/census.hpp"
#include "../reports/report.hpp"
#include "program.hpp"

namespace kbench {
namespace detail {

// The table, by target: waves per SIMD (warps per SM on NVIDIA), what limits them, the VGPRs (registers)
// of the next step, the resources.
// The program's own kernels first, then kbench's (its fills, comparisons and probes), under a line of
// their own.
[[nodiscard]] inline std::string format_resources(std::vector<kernel_resources> kernels) {
  // In namespace kbench by its mangled name (a kernel of the program's may take kbench's types as arguments).
  auto kbench_own = [](const kernel_resources& k) { return k.name.rfind("_ZN6kbench", 0) == 0; };
  std::stable_sort(kernels.begin(), kernels.end(), [&](const kernel_resources& a, const kernel_resources& b) {
    return a.target != b.target ? a.target < b.target : !kbench_own(a) && kbench_own(b);
  });
  std::string out;
  std::string target;
  bool own_listed = false;
  for (const kernel_resources& k : kernels) {
    const bool nvidia = nvidia_target(k.target);
    if (k.target == target && kbench_own(k) && !own_listed) {
      out += "  kbench's own kernels (its fills, comparisons and probes):\n";
      own_listed = true;
    }
    if (k.target != target) {
      target = k.target;
      own_listed = kbench_own(k);
      if (nvidia) {
        out += fmt::format("{}\n  {:>5}  {:<20}  {:>9}  {:>9}  {:>6}  {:>7}  {}\n", target, "warps", "limited by",
                           "next warp", "registers", "shared", "stack", "kernel");
      } else {
        out += fmt::format("{}\n  {:>5}  {:<20}  {:>9}  {:>4}  {:>4}  {:>4}  {:>11}  {:>6}  {:>7}  {}\n", target,
                           "waves", "limited by", "next wave", "VGPR", "AGPR", "SGPR", "spills v/s", "LDS", "scratch",
                           "kernel");
      }
    }
    const std::optional<kernel_occupancy> o = occupancy_of(k);
    const std::string next = o && o->vgprs_for_next_wave >= 0 ? fmt::format("<= {}", o->vgprs_for_next_wave) : "-";
    const std::string waves = o ? std::to_string(o->waves) : "?";
    const std::string limiter = o ? o->limiter : "no rule for the target";
    if (nvidia) {
      out += fmt::format("  {:>5}  {:<20}  {:>9}  {:>9}  {:>6}  {:>7}  {}\n", waves, limiter, next, k.vgprs, k.lds_bytes,
                         k.scratch_bytes, demangled(k.name));
    } else {
      out += fmt::format("  {:>5}  {:<20}  {:>9}  {:>4}  {:>4}  {:>4}  {:>11}  {:>6}  {:>7}  {}\n", waves, limiter, next,
                         k.vgprs, k.agprs >= 0 ? std::to_string(k.agprs) : "-", k.sgprs,
                         fmt::format("{}/{}", k.vgpr_spills, k.sgpr_spills), k.lds_bytes,
                         fmt::format("{}{}", k.scratch_bytes, k.dynamic_stack ? "+" : ""), demangled(k.name));
    }
  }
  return out;
}

// The listing as JSON, each kernel with its platform's figures: AMD's VGPRs, AGPRs, SGPRs, spills, LDS,
// scratch and waves per SIMD; NVIDIA's registers, shared memory, stack and warps per SM.
[[nodiscard]] inline nlohmann::ordered_json resources_json(const std::string& program,
                                                           const std::vector<kernel_resources>& kernels) {
  auto or_null = [](bool known, auto value) { return known ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const kernel_resources& k : kernels) {
    const bool nvidia = nvidia_target(k.target);
    nlohmann::ordered_json kernel = {{"target", k.target}, {"name", demangled(k.name)}, {"symbol", k.name}};
    if (nvidia) {
      kernel["registers"] = k.vgprs;
      kernel["shared_bytes"] = k.lds_bytes;
      kernel["stack_bytes"] = k.scratch_bytes;
      kernel["max_block_size"] = k.max_workgroup_size;
    } else {
      kernel["vgprs"] = k.vgprs;
      kernel["agprs"] = or_null(k.agprs >= 0, k.agprs);
      kernel["sgprs"] = k.sgprs;
      kernel["vgpr_spills"] = k.vgpr_spills;
      kernel["sgpr_spills"] = k.sgpr_spills;
      kernel["lds_bytes"] = k.lds_bytes;
      kernel["scratch_bytes"] = k.scratch_bytes;
      kernel["dynamic_stack"] = k.dynamic_stack;
      kernel["wavefront_size"] = k.wavefront_size;
      kernel["max_workgroup_size"] = k.max_workgroup_size;
    }
    // The occupancy, under each platform's names for it.
    const std::optional<kernel_occupancy> o = occupancy_of(k);
    const bool next = o && o->vgprs_for_next_wave >= 0;
    kernel[nvidia ? "warps_per_sm" : "waves_per_simd"] = or_null(o.has_value(), o ? o->waves : 0);
    kernel["limited_by"] = or_null(o.has_value(), o ? o->limiter : "");
    kernel[nvidia ? "registers_for_next_warp" : "vgprs_for_next_wave"] = or_null(next, next ? o->vgprs_for_next_wave : 0);
    all.push_back(std::move(kernel));
  }
  return {{"schema", "kbench-resources/1"}, {"program", program}, {"kernels", all}};
}

// Every case's resource bounds at every shape it runs, each distinct bound once, against `kernels`:
// the failures, and how many bounds were checked and broken.
[[nodiscard]] inline std::vector<std::string> check_declared_bounds(program_run& run, const run_options& options,
                                                                   const std::vector<kernel_resources>& kernels, int& checked,
                                                                   int& broken) {
  auto same = [](const resource_bound& a, const resource_bound& b) {
    return a.kernels == b.kernels && a.target == b.target && a.max_vgprs == b.max_vgprs && a.no_spills == b.no_spills &&
           a.max_scratch_bytes == b.max_scratch_bytes && a.max_lds_bytes == b.max_lds_bytes &&
           a.min_waves_per_simd == b.min_waves_per_simd && a.min_warps_per_sm == b.min_warps_per_sm;
  };
  std::vector<std::string> failures;
  for (const case_registration& reg : registered_cases()) {
    std::vector<resource_bound> seen;
    for (const kbench::shape& s : run_shapes(reg, options)) {
      for (const resource_bound& b : run.declarations.of(reg, s).resource_bounds) {
        if (std::any_of(seen.begin(), seen.end(), [&](const resource_bound& other) { return same(b, other); })) continue;
        seen.push_back(b);
        ++checked;
        std::vector<std::string> found = check_resource_bound(case_label(reg.name(), s), b, kernels);
        broken += found.empty() ? 0 : 1;
        for (std::string& f : found) failures.push_back(std::move(f));
      }
    }
  }
  return failures;
}

// The program's own device code, read once (declared in program.hpp): every kernel of every target, or why
// the program could not be read.
const built_listing& built_resources() {
  static const built_listing built = [] {
    built_listing l;
    try {
      l.kernels = read_kernel_resources("/proc/self/exe");
    } catch (const std::exception& e) {
      l.problem = e.what();
    }
    return l;
  }();
  return built;
}

// `<program> resources [--json <path>]`: the table, the JSON where asked, then the bounds: 1 when one is
// broken or the program holds no kernel.
inline int run_resources(program_run& run, const char* program, const run_options& options) {
  const std::vector<kernel_resources> kernels = read_kernel_resources("/proc/self/exe");
  std::fputs(format_resources(kernels).c_str(), stdout);
  if (!options.json_path.empty()) {
    std::ofstream out(options.json_path);
    out << resources_json(program, kernels).dump(2) << "\n";
    if (!out) throw error("cannot write " + options.json_path);
  }
  int checked = 0, broken = 0;
  const std::vector<std::string> failures = check_declared_bounds(run, options, kernels, checked, broken);
  for (const std::string& f : failures) std::printf("FAIL %s\n", f.c_str());
  std::printf("resources: %zu kernels; %d resource bound%s of the cases checked, %d broken\n", kernels.size(), checked,
              checked == 1 ? "" : "s", broken);
  return kernels.empty() || !failures.empty() ? 1 : 0;
}

}  // namespace detail
}  // namespace kbench
