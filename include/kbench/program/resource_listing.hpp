// kbench/program/resource_listing.hpp: `<program> resources`, every kernel of every target the program
// carries with its registers, spills, LDS, scratch and waves per SIMD, read from the program itself
// (code_objects.hpp) by the target's occupancy rule (occupancy.hpp); then every case's resource bounds
// (kernel_case::expect_resources) checked against them (resource_check.hpp). Needs no GPU. HIP-free.
#pragma once

#include <algorithm>
#include <cstdio>
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
#include "../results/report.hpp"
#include "program.hpp"

namespace kbench {
namespace detail {

// The table, by target: waves per SIMD, what limits them, the VGPRs of the next step, the resources.
[[nodiscard]] inline std::string format_resources(std::vector<kernel_resources> kernels) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const kernel_resources& a, const kernel_resources& b) { return a.target < b.target; });
  std::string out;
  std::string target;
  for (const kernel_resources& k : kernels) {
    if (k.target != target) {
      target = k.target;
      out += fmt::format("{}\n  {:>5}  {:<20}  {:>9}  {:>4}  {:>4}  {:>4}  {:>11}  {:>6}  {:>7}  {}\n", target,
                         "waves", "limited by", "next wave", "VGPR", "AGPR", "SGPR", "spills v/s", "LDS", "scratch",
                         "kernel");
    }
    const std::optional<amd_occupancy> o = occupancy_of(k);
    const std::string next = o && o->vgprs_for_next_wave >= 0 ? fmt::format("<= {}", o->vgprs_for_next_wave) : "-";
    out += fmt::format("  {:>5}  {:<20}  {:>9}  {:>4}  {:>4}  {:>4}  {:>11}  {:>6}  {:>7}  {}\n",
                       o ? std::to_string(o->waves) : "?", o ? o->limiter : "no rule for the target", next, k.vgprs,
                       k.agprs >= 0 ? std::to_string(k.agprs) : "-", k.sgprs,
                       fmt::format("{}/{}", k.vgpr_spills, k.sgpr_spills), k.lds_bytes,
                       fmt::format("{}{}", k.scratch_bytes, k.dynamic_stack ? "+" : ""), demangled(k.name));
  }
  return out;
}

[[nodiscard]] inline nlohmann::ordered_json resources_json(const std::string& program,
                                                           const std::vector<kernel_resources>& kernels) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const kernel_resources& k : kernels) {
    const std::optional<amd_occupancy> o = occupancy_of(k);
    all.push_back({{"target", k.target},
                   {"name", demangled(k.name)},
                   {"symbol", k.name},
                   {"vgprs", k.vgprs},
                   {"agprs", k.agprs >= 0 ? nlohmann::ordered_json(k.agprs) : nlohmann::ordered_json(nullptr)},
                   {"sgprs", k.sgprs},
                   {"vgpr_spills", k.vgpr_spills},
                   {"sgpr_spills", k.sgpr_spills},
                   {"lds_bytes", k.lds_bytes},
                   {"scratch_bytes", k.scratch_bytes},
                   {"dynamic_stack", k.dynamic_stack},
                   {"wavefront_size", k.wavefront_size},
                   {"max_workgroup_size", k.max_workgroup_size},
                   {"waves_per_simd", o ? nlohmann::ordered_json(o->waves) : nlohmann::ordered_json(nullptr)},
                   {"limited_by", o ? nlohmann::ordered_json(o->limiter) : nlohmann::ordered_json(nullptr)},
                   {"vgprs_for_next_wave", o && o->vgprs_for_next_wave >= 0 ? nlohmann::ordered_json(o->vgprs_for_next_wave)
                                                                             : nlohmann::ordered_json(nullptr)}});
  }
  return {{"schema", "kbench-resources/1"}, {"program", program}, {"kernels", all}};
}

// Every case's resource bounds at every shape it runs, each distinct bound once, against `kernels`:
// the failures, and how many bounds were checked and broken.
[[nodiscard]] inline std::vector<std::string> check_declared_bounds(const run_options& options,
                                                                   const std::vector<kernel_resources>& kernels, int& checked,
                                                                   int& broken) {
  auto same = [](const resource_bound& a, const resource_bound& b) {
    return a.kernels == b.kernels && a.target == b.target && a.max_vgprs == b.max_vgprs && a.no_spills == b.no_spills &&
           a.max_scratch_bytes == b.max_scratch_bytes && a.max_lds_bytes == b.max_lds_bytes &&
           a.min_waves_per_simd == b.min_waves_per_simd;
  };
  std::vector<std::string> failures;
  for (const case_registration& reg : registered_cases()) {
    std::vector<resource_bound> seen;
    for (const kbench::shape& s : run_shapes(reg, options)) {
      for (const resource_bound& b : declared_resource_bounds(reg, s)) {
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

// `<program> resources [--json <path>]`: the table, the JSON where asked, then the bounds: 1 when one is
// broken or the program holds no kernel.
inline int run_resources(const char* program, const run_options& options) {
  const std::vector<kernel_resources> kernels = read_kernel_resources("/proc/self/exe");
  std::fputs(format_resources(kernels).c_str(), stdout);
  if (!options.json_path.empty()) {
    std::ofstream out(options.json_path);
    out << resources_json(program, kernels).dump(2) << "\n";
    if (!out) throw error("cannot write " + options.json_path);
  }
  int checked = 0, broken = 0;
  const std::vector<std::string> failures = check_declared_bounds(options, kernels, checked, broken);
  for (const std::string& f : failures) std::printf("FAIL %s\n", f.c_str());
  std::printf("resources: %zu kernels; %d resource bound%s of the cases checked, %d broken\n", kernels.size(), checked,
              checked == 1 ? "" : "s", broken);
  return kernels.empty() || !failures.empty() ? 1 : 0;
}

}  // namespace detail
}  // namespace kbench
