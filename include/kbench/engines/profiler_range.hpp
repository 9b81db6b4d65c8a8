// kbench/engines/profiler_range.hpp: a named range for profilers, so that `ncu --nvtx --nvtx-include
// "<name>/"` or rocprofv3's roctx filter sees just the launches inside it: NVTX on NVIDIA (header-only,
// when the CUDA toolkit has it), roctx on AMD where the build found it (cmake/kbench.cmake defines
// KBENCH_HAS_ROCTX and links rocprofiler-sdk-roctx or roctracer's roctx64; Debian 12's HIP 5.2 has
// neither, and there the ranges are empty).
// Apart from platform.hpp, which every test file includes: NVTX's header defines its whole implementation
// in each translation unit that includes it (0.55 s of every nvcc compile), and only the runner marks ranges.
#pragma once

#include "../contract/platform.hpp"

#if defined(KBENCH_PLATFORM_NVIDIA) && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define KBENCH_HAS_NVTX 1
#elif defined(KBENCH_PLATFORM_AMD) && defined(KBENCH_HAS_ROCTX)
#if __has_include(<rocprofiler-sdk-roctx/roctx.h>)
#include <rocprofiler-sdk-roctx/roctx.h>
#else
#include <roctracer/roctx.h>
#endif
#endif

namespace kbench {

class profiler_range {
 public:
  explicit profiler_range(const char* name) {
#if defined(KBENCH_HAS_NVTX)
    nvtxRangePushA(name);
#elif defined(KBENCH_PLATFORM_AMD) && defined(KBENCH_HAS_ROCTX)
    roctxRangePushA(name);
#else
    (void)name;
#endif
  }
  profiler_range(const profiler_range&) = delete;
  profiler_range& operator=(const profiler_range&) = delete;
  ~profiler_range() {
#if defined(KBENCH_HAS_NVTX)
    nvtxRangePop();
#elif defined(KBENCH_PLATFORM_AMD) && defined(KBENCH_HAS_ROCTX)
    roctxRangePop();
#endif
  }
};

// What marks the ranges in this build, or why nothing does.
[[nodiscard]] inline const char* profiler_ranges() {
#if defined(KBENCH_HAS_NVTX)
  return "NVTX";
#elif defined(KBENCH_PLATFORM_AMD) && defined(KBENCH_HAS_ROCTX)
  return "roctx";
#elif defined(KBENCH_PLATFORM_AMD)
  return "none: this build has no roctx (ROCm's rocprofiler-sdk-roctx or roctracer; Debian 12's HIP 5.2 has neither)";
#else
  return "none: the CUDA toolkit has no NVTX 3 header";
#endif
}

}  // namespace kbench
