// kbench/reports/census_report.hpp: the census of a case (results/census.hpp) as the console shows it: each
// side's kernels, their launch shapes, resources and occupancy, the build's figures beside the runtime's.
// HIP-free.
#pragma once

#include <string>

#include <fmt/format.h>

#include "../results/census.hpp"

namespace kbench {

namespace detail {

inline std::string format_bytes_or_dash(long long b) { return b < 0 ? "-" : fmt::format("{}", b); }

inline std::string format_us(double s) { return s < 0 ? "-" : fmt::format("{:.2f}", s * 1e6); }

inline std::string format_census_side(const char* title, const census_side& side, bool amd) {
  if (!side.captured) return fmt::format("  {}: not captured ({})\n", title, side.reason);
  std::string out = fmt::format("  {}: {} kernel{}, {} cop{}, {} memset{}{}\n", title, side.kernels.size(),
                                side.kernels.size() == 1 ? "" : "s", side.copies, side.copies == 1 ? "y" : "ies",
                                side.memsets, side.memsets == 1 ? "" : "s",
                                side.other ? fmt::format(", {} other operations", side.other) : std::string());
  constexpr const char* row = "    {:>9} {:>9} {:>6}  {:>20} {:>12} {:>5} {:>7} {:>6} {:>9} {:>7} {:>15}  {}\n";
  out += fmt::format(row, "us alone", "in side", "share", "grid", "block", "regs", "shared", "local",
                     amd ? "waves/SIMD" : "warps/SM", "occup.", "built r/s/l", "kernel");
  const double parts = side.parts_seconds();
  for (const census_kernel& k : side.kernels) {
    const double mine = k.share_seconds();
    const std::string share = mine > 0 && parts > 0 ? fmt::format("{:.0f}%", 100 * mine / parts) : "-";
    const std::string residency = amd ? (k.waves_per_simd < 0 ? "-" : fmt::format("{:.1f}", k.waves_per_simd))
                                      : (k.waves_per_unit < 0 ? "-" : fmt::format("{}", k.waves_per_unit));
    const long long shared =
        k.static_shared_bytes < 0 ? -1 : k.static_shared_bytes + static_cast<long long>(k.dynamic_shared_bytes);
    out += fmt::format(row, format_us(k.median_seconds), format_us(k.in_side_seconds), share,
                       fmt::format("{}x{}x{}", k.grid[0], k.grid[1], k.grid[2]),
                       fmt::format("{}x{}x{}", k.block[0], k.block[1], k.block[2]),
                       k.registers < 0 ? std::string("-") : std::to_string(k.registers), format_bytes_or_dash(shared),
                       format_bytes_or_dash(k.local_bytes), residency,
                       k.occupancy < 0 ? std::string("-") : fmt::format("{:.0f}%", 100 * k.occupancy),
                       k.built_registers < 0 ? std::string("-")
                                             : fmt::format("{}/{}/{}", k.built_registers, k.built_static_shared_bytes,
                                                           k.built_local_bytes),
                       k.name);
  }
  if (side.copies + side.memsets > 0) {
    out += fmt::format("    {:>9} {:>9}         copies and memsets together\n", format_us(side.copies_seconds), "");
  }
  out += fmt::format("    in their places the parts add up to {} us; the whole launch, timed the same way, {} us{}\n",
                     format_us(parts), format_us(side.whole_seconds),
                     parts > 0 && side.whole_seconds > 0
                         ? fmt::format(" ({:+.1f}%)", 100 * (parts - side.whole_seconds) / side.whole_seconds)
                         : std::string());
  return out;
}

}  // namespace detail

// The census of a case as a table per side: kernels, counts, per-kernel cold time (alone, and in its place
// in the side) and share, registers, shared memory (static + dynamic), local memory, occupancy, and the
// registers, static shared memory and stack the program's own device code gives for the device's target.
[[nodiscard]] inline std::string format_census(const std::string& label, const case_census& c) {
  const bool amd = c.platform == "amd";
  std::string out = fmt::format("census {}\n", label);
  if (c.reference) {
    out += detail::format_census_side("reference", *c.reference, amd);
  } else {
    out += "  reference: a host function\n";
  }
  out += detail::format_census_side("optimized", c.optimized, amd);
  if (c.reference && c.reference->captured && c.optimized.captured) {
    out += fmt::format("  kernels: {} in the reference, {} in the optimized side\n", c.reference->kernels.size(),
                       c.optimized.kernels.size());
  }
  if (c.profiler_launches > 0) {
    out += fmt::format("  profiler ranges \"kbench census reference\" and \"kbench census optimized\", {} launch{} of each "
                       "side: {}\n",
                       c.profiler_launches, c.profiler_launches == 1 ? "" : "es", c.profiler_ranges);
  }
  for (const finding& f : c.findings) out += fmt::format("  {} {}\n", f.fails() ? "!" : "note:", f.text);
  return out;
}

}  // namespace kbench
