// kbench/results/case_digest.hpp: what kbench can honestly see of the kernels' code. A launch is a function
// it cannot read, and a kernel's source or binary is out of its reach at run time; what it sees is the
// census of one launch of each side (perf and census runs): each kernel's name, grid, block and shared
// memory, and the runtime's attributes of its function (registers, static shared memory, local memory,
// the block size it allows), with the side's copies and memsets. Their digest changes when a side
// launches other kernels, launches them otherwise, or compiles to other resources; an edit that keeps all
// of those goes unseen. The declaration's own digest is contract/declaration_digest.hpp's. HIP-free.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../contract/declaration_digest.hpp"
#include "census.hpp"

namespace kbench::detail {

// The canonical lines of a captured side's census (no timings: they move between runs).
[[nodiscard]] inline std::vector<std::string> census_lines(const census_side& side) {
  std::vector<std::string> lines{"copies " + std::to_string(side.copies) + " memsets " + std::to_string(side.memsets) +
                                 " other " + std::to_string(side.other)};
  for (const census_kernel& k : side.kernels) {
    lines.push_back("kernel " + k.symbol + " grid " + std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," +
                    std::to_string(k.grid[2]) + " block " + std::to_string(k.block[0]) + "," + std::to_string(k.block[1]) +
                    "," + std::to_string(k.block[2]) + " dynamic_shared " + std::to_string(k.dynamic_shared_bytes) +
                    " registers " + std::to_string(k.registers) + " static_shared " + std::to_string(k.static_shared_bytes) +
                    " local " + std::to_string(k.local_bytes) + " max_threads " + std::to_string(k.max_threads_per_block));
  }
  return lines;
}

// The digest of a side's kernels, or none when the side was not captured (a host reference, or a capture
// that failed): nothing seen is not "unchanged".
[[nodiscard]] inline std::optional<std::string> kernels_digest(const census_side& side) {
  if (!side.captured) return std::nullopt;
  return digest_of_lines(census_lines(side));
}

[[nodiscard]] inline std::optional<std::string> kernels_digest(const std::optional<census_side>& side) {
  return side ? kernels_digest(*side) : std::nullopt;
}

}  // namespace kbench::detail
