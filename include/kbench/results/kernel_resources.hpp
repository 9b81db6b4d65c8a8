// kbench/results/kernel_resources.hpp: one AMD kernel's resources on one target, as its code object
// describes them (engines/code_objects.hpp reads them from the program). HIP-free.
#pragma once

#include <string>

namespace kbench {

// One kernel of one target, as its code object describes it.
struct kernel_resources {
  std::string target;  // "gfx90a", with its features if any ("gfx90a:xnack-")
  std::string name;    // mangled, as the metadata's .name
  int vgprs = 0;       // on gfx90a and later the unified total: architected and accumulation registers
  int agprs = -1;      // accumulation registers; -1 where the target has none (gfx906)
  int sgprs = 0;
  int vgpr_spills = 0;
  int sgpr_spills = 0;
  long long lds_bytes = 0;      // static LDS (group segment); dynamic LDS is the launch's
  long long scratch_bytes = 0;  // per work-item (private segment)
  bool dynamic_stack = false;   // scratch beyond the fixed size (recursion, calls of unknown depth)
  int wavefront_size = 64;
  int max_workgroup_size = 1024;
};

}  // namespace kbench
