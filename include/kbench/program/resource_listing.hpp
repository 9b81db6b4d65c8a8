// kbench/program/resource_listing.hpp: `<program> resources`, every kernel of every target the program
// carries with its registers, spills, LDS, scratch and waves per SIMD, read from the program itself
// (code_objects.hpp) by the target's occupancy rule (occupancy.hpp). Needs no GPU. HIP-free.
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
#include "../decisions/run_options.hpp"
#include "../detail/demangle.hpp"
#include "../engines/code_objects.hpp"

namespace kbench {
namespace detail {

// A kernel's occupancy by its target's rule; none for a target without one.
[[nodiscard]] inline std::optional<amd_occupancy> occupancy_of(const kernel_resources& k) {
  const std::optional<amd_occupancy_rule> rule = occupancy_rule(k.target);
  if (!rule) return std::nullopt;
  return amd_waves_per_simd(*rule, k.vgprs, k.agprs, k.sgprs, k.lds_bytes, k.max_workgroup_size);
}

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

// `<program> resources [--json <path>]`: the table, and the JSON where asked.
inline int run_resources(const char* program, const run_options& options) {
  const std::vector<kernel_resources> kernels = read_kernel_resources("/proc/self/exe");
  std::fputs(format_resources(kernels).c_str(), stdout);
  if (!options.json_path.empty()) {
    std::ofstream out(options.json_path);
    out << resources_json(program, kernels).dump(2) << "\n";
    if (!out) throw error("cannot write " + options.json_path);
  }
  return kernels.empty() ? 1 : 0;
}

}  // namespace detail
}  // namespace kbench
