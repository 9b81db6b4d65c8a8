// kbench/program/resource_listing.hpp: `<program> resources`, every kernel of every target the program
// carries with its registers, spills, LDS, scratch and waves per SIMD (NVIDIA: registers, shared memory,
// stack and warps per SM), read from the program itself (code_objects.hpp) by the target's occupancy rule
// (occupancy.hpp), then those of each code object file its cases load (code_object_file.hpp); then every
// case's resource bounds (kernel_case::expect_resources) checked against them all (resource_check.hpp).
// Needs no GPU. The same figures join the census's (census_judge.hpp's assemble_census). HIP-free.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/code_object_files.hpp"
#include "../decisions/occupancy.hpp"
#include "../decisions/resource_check.hpp"
#include "../decisions/run_options.hpp"
#include "../detail/demangle.hpp"
#include "../engines/code_object_file.hpp"
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

// One kernel as JSON, with its platform's figures: AMD's VGPRs, AGPRs, SGPRs, spills, LDS, scratch and
// waves per SIMD; NVIDIA's registers, shared memory, stack and warps per SM.
[[nodiscard]] inline nlohmann::ordered_json kernel_json(const kernel_resources& k) {
  auto or_null = [](bool known, auto value) { return known ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr); };
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
  return kernel;
}

// The listing as JSON: the program's kernels, then each code object file's, marked with its path
// ("code_object"); a file that could not be read is listed under "code_object_problems".
[[nodiscard]] inline nlohmann::ordered_json resources_json(const std::string& program,
                                                           const std::vector<kernel_resources>& kernels,
                                                           const std::vector<code_object_listing>& files = {}) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const kernel_resources& k : kernels) all.push_back(kernel_json(k));
  nlohmann::ordered_json problems = nlohmann::ordered_json::array();
  for (const code_object_listing& f : files) {
    for (const kernel_resources& k : f.kernels) {
      nlohmann::ordered_json kernel = kernel_json(k);
      kernel["code_object"] = f.path;
      all.push_back(std::move(kernel));
    }
    if (!f.problem.empty()) problems.push_back({{"code_object", f.path}, {"problem", f.problem}});
  }
  nlohmann::ordered_json doc = {{"schema", "kbench-resources/1"}, {"program", program}, {"kernels", all}};
  if (!problems.empty()) doc["code_object_problems"] = problems;
  return doc;
}

// A resource bound of a case at a shape it runs.
struct declared_bound {
  std::string case_label;
  resource_bound bound;
};

// Every case's resource bounds at every shape it runs, each distinct bound once (the first shape's label).
[[nodiscard]] inline std::vector<declared_bound> declared_bounds(program_run& run, const run_options& options) {
  auto same = [](const resource_bound& a, const resource_bound& b) {
    return a.kernels == b.kernels && a.target == b.target && a.max_vgprs == b.max_vgprs && a.no_spills == b.no_spills &&
           a.max_scratch_bytes == b.max_scratch_bytes && a.max_lds_bytes == b.max_lds_bytes &&
           a.min_waves_per_simd == b.min_waves_per_simd && a.min_warps_per_sm == b.min_warps_per_sm;
  };
  std::vector<declared_bound> bounds;
  for (const case_registration& reg : registered_cases()) {
    const std::size_t first = bounds.size();
    for (const kbench::shape& s : run_shapes(reg, options)) {
      for (const resource_bound& b : run.declarations.of(reg, s).resource_bounds) {
        const auto seen = std::any_of(bounds.begin() + static_cast<std::ptrdiff_t>(first), bounds.end(),
                                      [&](const declared_bound& other) { return same(b, other.bound); });
        if (!seen) bounds.push_back({case_label(reg.name(), s), b});
      }
    }
  }
  return bounds;
}

// The kernels of one code object file a case loads, or why they could not be read.
[[nodiscard]] inline code_object_listing code_object_resources(const std::string& path) {
  code_object_listing l;
  l.path = path;
  try {
    l.kernels = read_code_object_file(path);
  } catch (const std::exception& e) {
    l.problem = e.what();
  }
  return l;
}

// `<program> resources [--json <path>]`: the table, the JSON where asked, then the bounds: 1 when one is
// broken, a code object file a case loads cannot be read, or the program holds no kernel. The cases are
// declared first (checking their bounds declares them), so that the files they load are known.
inline int run_resources(program_run& run, const char* program, const run_options& options) {
  const std::vector<kernel_resources> own = read_kernel_resources("/proc/self/exe");
  const std::vector<declared_bound> bounds = declared_bounds(run, options);
  const std::vector<std::string> paths = code_object_files::instance().paths();
  std::vector<code_object_listing> files;
  std::vector<kernel_resources> kernels = own;  // what the bounds are checked against
  std::string table = format_resources(own);
  std::vector<std::string> failures;
  for (const std::string& path : paths) {
    const code_object_listing& f = files.emplace_back(code_object_resources(path));
    if (!f.problem.empty()) {
      table += fmt::format("from {}: not read\n", path);
      failures.push_back(f.problem);
      continue;
    }
    table += f.kernels.empty() ? fmt::format("from {}: no device code of its own\n", path)
                               : fmt::format("from {}:\n{}", path, format_resources(f.kernels));
    kernels.insert(kernels.end(), f.kernels.begin(), f.kernels.end());
  }
  std::fputs(table.c_str(), stdout);
  if (!options.json_path.empty()) {
    std::ofstream out(options.json_path);
    out << resources_json(program, own, files).dump(2) << "\n";
    if (!out) throw error("cannot write " + options.json_path);
  }
  int broken = 0;
  for (const declared_bound& b : bounds) {
    std::vector<std::string> found = check_resource_bound(b.case_label, b.bound, kernels);
    broken += found.empty() ? 0 : 1;
    for (std::string& f : found) failures.push_back(std::move(f));
  }
  for (const std::string& f : failures) std::printf("FAIL %s\n", f.c_str());
  const std::string loaded =
      paths.empty() ? "" : fmt::format(" ({} of them from {} file{} the cases load)", kernels.size() - own.size(), paths.size(),
                                       paths.size() == 1 ? "" : "s");
  std::printf("resources: %zu kernels%s; %zu resource bound%s of the cases checked, %d broken\n", kernels.size(),
              loaded.c_str(), bounds.size(), bounds.size() == 1 ? "" : "s", broken);
  return kernels.empty() || !failures.empty() ? 1 : 0;
}

}  // namespace detail
}  // namespace kbench
