// kbench/results/census.hpp: what one launch of a side put on the stream, as plain data: each kernel (its name,
// grid, block, shared memory, registers, spills, theoretical occupancy, and its cold time alone and in
// its place in the side), each copy and memset (what the case expects of it is judged in
// decisions/census_judge.hpp, the words for it are reports/census_report.hpp's). The census itself is taken on
// the device (procedure/census_run.hpp). HIP-free.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/declaration.hpp"
#include "outcome.hpp"

namespace kbench {

// One kernel launch of a captured side, with the runtime's figures for its function.
struct census_kernel {
  std::string name;    // demangled
  std::string symbol;  // as the runtime names it (mangled), to match other tools' listings
  unsigned int grid[3] = {1, 1, 1};
  unsigned int block[3] = {1, 1, 1};
  std::size_t dynamic_shared_bytes = 0;
  // From the function's attributes (-1: the runtime would not say).
  int registers = -1;                // per thread (VGPRs on AMD)
  long long static_shared_bytes = -1;  // shared memory / LDS declared in the kernel
  long long local_bytes = -1;        // local (NVIDIA) or scratch (AMD) memory per thread: spills, or stack arrays
  int max_threads_per_block = -1;
  // The same figures as the program's own device code for the device's target gives them, joined by symbol
  // (program/resource_listing.hpp; -1: no such kernel in it, or it could not be read).
  int built_registers = -1;
  long long built_static_shared_bytes = -1;
  long long built_local_bytes = -1;  // the stack (NVIDIA: with the functions the kernel calls) or scratch
  // Theoretical occupancy at the launched block size: blocks resident per compute unit, the waves (warps)
  // they bring, and their share of the most a compute unit holds.
  int blocks_per_unit = -1;
  int waves_per_unit = -1;
  double waves_per_simd = -1.0;  // AMD: waves per unit / 4 SIMDs
  double occupancy = -1.0;
  double median_seconds = -1.0;   // alone, cold, less the event-pair floor (-1: not timed)
  // In its place: from the same cold start, after the side's earlier nodes (replayed, untimed), so with the
  // caches they leave; the first node's place is alone (-1: an earlier node could not be replayed).
  double in_side_seconds = -1.0;
  // What the kernel adds to the side: its time in place where measured, else alone.
  [[nodiscard]] double share_seconds() const { return in_side_seconds >= 0 ? in_side_seconds : median_seconds; }
  [[nodiscard]] unsigned long long threads_per_block() const {
    return static_cast<unsigned long long>(block[0]) * block[1] * block[2];
  }
};

// What one launch of one side put on its stream, or why it could not be told.
struct census_side {
  bool captured = false;
  std::string reason;  // when not captured: what the capture reported
  std::vector<census_kernel> kernels;
  int copies = 0;
  int memsets = 0;
  int other = 0;                    // host nodes, events, child graphs...
  double copies_seconds = -1.0;     // the copies and memsets together, cold, in a graph of their own
  double whole_seconds = -1.0;      // the whole captured launch, cold, timed the same way as its parts
  // The kernels in their places and the copies, added: what should make up the whole.
  [[nodiscard]] double parts_seconds() const {
    double sum = copies_seconds > 0 ? copies_seconds : 0.0;
    for (const census_kernel& k : kernels) sum += k.share_seconds() > 0 ? k.share_seconds() : 0.0;
    return sum;
  }
};

struct case_census {
  std::optional<census_side> reference;  // absent with a host reference
  census_side optimized;
  std::string platform;  // "amd" (waves per SIMD) or "nvidia" (warps per SM)
  int profiler_launches = 0;  // launches of each side inside its profiler range, after the census
  std::string profiler_ranges;  // what marks those ranges ("NVTX", "roctx"), or why nothing does
  std::vector<finding> findings;  // what contradicts the case's expectations (judge_census)
};

}  // namespace kbench
