// kbench/decisions/census_judge.hpp: the census (results/census.hpp) against what the case expects of it
// (`expect_kernels()` and the other census declarations): a failing finding for each figure that
// contradicts them; notes on who does the optimized side's work (the reference's own kernels, a library's);
// and the census as every writer reads it, put together once: the measured census, the build's figures of
// each kernel, and those findings. HIP-free.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../contract/declaration.hpp"
#include "../results/census.hpp"
#include "../results/kernel_resources.hpp"
#include "../results/outcome.hpp"
#include "occupancy.hpp"

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

// The library whose kernel a demangled kernel name is, by the prefixes its kernels carry (cuBLAS and
// cuBLASLt, CUTLASS, cuDNN, rocBLAS and Tensile, hipBLASLt, MIOpen, PyTorch's ATen); empty: none known.
[[nodiscard]] inline std::string library_of_kernel(const std::string& name) {
  static const std::pair<const char*, const char*> prefixes[] = {
      {"cutlass", "CUTLASS"},     {"cublas", "cuBLAS"},        {"gemv2T_kernel", "cuBLAS"}, {"gemvNSP_kernel", "cuBLAS"},
      {"splitKreduce_kernel", "cuBLAS"}, {"ampere_", "cuBLAS"}, {"volta_", "cuBLAS"},       {"turing_", "cuBLAS"},
      {"sm80_xmma", "cuBLAS"},    {"sm90_xmma", "cuBLAS"},     {"cudnn", "cuDNN"},          {"Cijk_", "rocBLAS (Tensile)"},
      {"rocblas_", "rocBLAS"},    {"hipblaslt", "hipBLASLt"},  {"MIOpen", "MIOpen"},        {"miopen", "MIOpen"},
      {"at::native::", "PyTorch (ATen)"}};
  std::string bare = name;
  if (bare.rfind("void ", 0) == 0) bare.erase(0, 5);  // a demangled template kernel's return type
  for (const auto& [prefix, library] : prefixes) {
    if (bare.rfind(prefix, 0) == 0) return library;
  }
  return {};
}

// Notes on who does the optimized side's work: the reference's own kernels (the same symbols, in the same
// order), or a library's where the reference runs none of that library's. Not failures: a case may mean to
// set a library against a hand-written kernel, or be a first step; the report and the JSON say so.
[[nodiscard]] inline std::vector<finding> note_whose_kernels(const case_census& c) {
  std::vector<finding> notes;
  const census_side& o = c.optimized;
  if (!o.captured || o.kernels.empty()) return notes;
  std::string names;
  for (const census_kernel& k : o.kernels) names += (names.empty() ? "" : ", ") + k.name;
  const bool reference_listed = c.reference && c.reference->captured;
  if (reference_listed && c.reference->kernels.size() == o.kernels.size()) {
    bool same = true;
    for (std::size_t i = 0; same && i < o.kernels.size(); ++i) {
      same = !o.kernels[i].symbol.empty() && o.kernels[i].symbol == c.reference->kernels[i].symbol;
    }
    if (same) {
      notes.push_back({finding_kind::note, fmt::format("the optimized side launches exactly the reference's kernels ({}): "
                                                       "it runs the reference, not kernels of its own", names)});
      return notes;
    }
  }
  std::vector<std::string> libraries;
  for (const census_kernel& k : o.kernels) {
    const std::string library = library_of_kernel(k.name);
    const auto used = [&](const census_kernel& r) { return library_of_kernel(r.name) == library; };
    const bool reference_too = reference_listed && std::any_of(c.reference->kernels.begin(), c.reference->kernels.end(), used);
    if (!library.empty() && !reference_too && std::find(libraries.begin(), libraries.end(), library) == libraries.end()) {
      libraries.push_back(library);
      notes.push_back({finding_kind::note, fmt::format("the optimized side's work is done by {} kernels, which the "
                                                       "reference does not use: {}", library, k.name)});
    }
  }
  return notes;
}

// The census of a case as every writer reads it, assembled once: `measured` (procedure/census_run.hpp) with
// the figures of the program's own device code, or of a code object file a case loads, for the device's
// target (`arch`: "sm_90", "gfx90a:sramecc+:xnack-") joined to each kernel by symbol, so that the census
// shows them beside the runtime's; its findings, what contradicts the case's expectations, then a note
// where the runtime's registers or static shared memory differ from the build's (the device runs other code
// than the build made: compiled at load from PTX, say), or one when the program or such a file could not be
// read. `built` null: no
// figures of the build are joined (kbench's self-tests through measure_case, which read no program).
[[nodiscard]] inline case_census assemble_census(case_census measured, const census_expectations& e,
                                                 const built_listing* built, const std::string& arch) {
  case_census c = std::move(measured);
  c.findings = judge_census(c, e);
  append(c.findings, note_whose_kernels(c));
  if (built == nullptr) return c;
  if (!built->problem.empty()) {
    c.findings.push_back({finding_kind::note, "the census shows no figures of the build: " + built->problem});
    return c;
  }
  const std::string target = target_base(arch);
  // By symbol and target: the program's own kernels, then those of the code object files the cases load.
  auto built_kernel = [&](const std::string& symbol) -> const kernel_resources* {
    auto same = [&](const kernel_resources& r) { return r.name == symbol && target_base(r.target) == target; };
    const auto own = std::find_if(built->kernels.begin(), built->kernels.end(), same);
    if (own != built->kernels.end()) return &*own;
    for (const code_object_listing& file : built->code_objects) {
      const auto loaded = std::find_if(file.kernels.begin(), file.kernels.end(), same);
      if (loaded != file.kernels.end()) return &*loaded;
    }
    return nullptr;
  };
  bool unjoined = false;
  for (census_side* side : {c.reference ? &*c.reference : nullptr, &c.optimized}) {
    if (side == nullptr) continue;
    for (census_kernel& k : side->kernels) {
      const kernel_resources* it = k.symbol.empty() ? nullptr : built_kernel(k.symbol);
      // A kernel of a library the program loads, or no code for the target.
      unjoined = unjoined || it == nullptr;
      if (it == nullptr) continue;
      k.built_registers = it->vgprs;
      k.built_static_shared_bytes = it->lds_bytes;
      k.built_local_bytes = it->scratch_bytes;
      if ((k.registers >= 0 && k.registers != it->vgprs) ||
          (k.static_shared_bytes >= 0 && k.static_shared_bytes != it->lds_bytes)) {
        c.findings.push_back({finding_kind::note,
                              fmt::format("{}: the runtime gives {} registers and {} bytes of static shared memory, the "
                                          "device code read for {} {} and {} (the device runs other code than "
                                          "the build made?)",
                                          k.name, k.registers, k.static_shared_bytes, target, it->vgprs, it->lds_bytes)});
      }
    }
  }
  for (const code_object_listing& file : built->code_objects) {
    if (unjoined && !file.problem.empty()) {
      c.findings.push_back({finding_kind::note, "the census shows no figures of a code object a case loads: " + file.problem});
    }
  }
  return c;
}

}  // namespace kbench
