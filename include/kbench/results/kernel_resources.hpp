// kbench/results/kernel_resources.hpp: one kernel's resources on one target, as the device code the
// program carries describes them (engines/code_objects.hpp reads them: an AMD code object's metadata, an
// NVIDIA cubin's attributes). HIP-free.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../contract/kernel_arguments.hpp"

namespace kbench {

// One kernel of one target. AMD's names; on NVIDIA (target "sm_90"), vgprs are the registers of a thread,
// lds_bytes the static shared memory, scratch_bytes the local memory of its stack, and what a cubin does
// not record (SGPRs, spill counts) is -1.
struct kernel_resources {
  std::string target;  // "gfx90a", with its features if any ("gfx90a:xnack-"); "sm_90"
  std::string name;    // mangled, as the metadata's .name or the cubin's symbol
  int vgprs = 0;       // on gfx90a and later the unified total: architected and accumulation registers
  int agprs = -1;      // accumulation registers; -1 where the target has none (gfx906, NVIDIA)
  int sgprs = 0;
  int vgpr_spills = 0;
  int sgpr_spills = 0;
  long long lds_bytes = 0;      // static LDS (group segment); dynamic LDS is the launch's
  long long scratch_bytes = 0;  // per work-item (private segment)
  bool dynamic_stack = false;   // scratch beyond the fixed size (recursion, calls of unknown depth)
  int wavefront_size = 64;
  int max_workgroup_size = 1024;
  // The explicit parameters' offsets and sizes, where the code object records them (an AMD code object's
  // metadata .args, the hidden arguments the runtime appends left out); none elsewhere.
  std::optional<std::vector<detail::argument_slot>> arguments;
};

// The kernels of a code object file that the cases load (contract/code_object.hpp), or why it could not be
// read.
struct code_object_listing {
  std::string path;
  std::vector<kernel_resources> kernels;
  std::string problem;
};

// The kernels of the program's own device code, read once per program (program/resource_listing.hpp), or
// why they could not be read, and those of the code object files the cases declared; the census shows them
// beside the runtime's figures.
struct built_listing {
  std::vector<kernel_resources> kernels;
  std::string problem;  // why the program's device code could not be read
  std::vector<code_object_listing> code_objects;
};

// Whether a target is NVIDIA's ("sm_90"), whose figures and occupancy rule differ from AMD's.
[[nodiscard]] inline bool nvidia_target(const std::string& target) { return target.rfind("sm_", 0) == 0; }

}  // namespace kbench
