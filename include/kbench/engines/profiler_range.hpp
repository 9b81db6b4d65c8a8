// kbench/engines/profiler_range.hpp: a named range for profilers (NVTX on NVIDIA, header-only, when the
// CUDA toolkit has it; nothing on AMD, where roctx would need a library), so that
// `ncu --nvtx --nvtx-include "<name>/"` sees just the launches inside it.
// Apart from platform.hpp, which every test file includes: NVTX's header defines its whole implementation
// in each translation unit that includes it (0.55 s of every nvcc compile), and only the runner marks ranges.
#pragma once

#include "../contract/platform.hpp"

#if defined(KBENCH_PLATFORM_NVIDIA) && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define KBENCH_HAS_NVTX 1
#endif

namespace kbench {

class profiler_range {
 public:
  explicit profiler_range(const char* name) {
#if defined(KBENCH_HAS_NVTX)
    nvtxRangePushA(name);
#else
    (void)name;
#endif
  }
  profiler_range(const profiler_range&) = delete;
  profiler_range& operator=(const profiler_range&) = delete;
  ~profiler_range() {
#if defined(KBENCH_HAS_NVTX)
    nvtxRangePop();
#endif
  }
};

}  // namespace kbench
