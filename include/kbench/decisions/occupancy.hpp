// kbench/decisions/occupancy.hpp: waves per SIMD of an AMD kernel from its resources, by the compiler's
// rule for its target (LLVM's AMDGPU occupancy), warps per SM of an NVIDIA kernel, and what the next step
// needs. HIP-free.
//
// AMD, per SIMD: registers are allocated in granules, and the register file holds
// floor(file / allocated) waves, at most the target's maximum; SGPRs allow 10 waves up to 80, 9 up to 88,
// 8 up to 100 and 7 beyond (the gfx9 family); static LDS allows as many work-groups as fit in a CU's LDS
// (at most 16, or the CU's wave slots for one-wave groups), their waves, ceil(work-group size / 64) each,
// spread over the CU's 4 SIMDs (at least one), at the kernel's largest work-group. Registers and SGPRs
// agree with the compiler's report to the unit (tests/harness/resources_check.py); for LDS the compilers differ:
// LLVM 22 (HIP 7.2) spreads the groups over the SIMDs as here, LLVM 15 (Debian's HIP 5.2) counts all of a
// CU's groups against one SIMD (kbench's compare kernels: 3 waves by LLVM 15 on gfx90a, 1 here and by
// LLVM 22 on gfx942). Targets:
//   gfx906, gfx908   256 registers a lane, granule 4, at most 10 waves (gfx908: its AGPRs in a file of
//                    their own, the larger of the two counts)
//   gfx90a, gfx940-2 512 unified registers (architected and accumulation together), granule 8, at most 8
//   gfx950           as gfx942, with 160 KiB of LDS a CU
// So on gfx906 64 VGPRs give 4 waves and 80 give 3 (5 need 48 or fewer); on gfx90a 64 give 8, 80 give 6,
// 96 give 5. The HIP runtime's occupancy API counts whole blocks and may differ.
//
// NVIDIA, per SM: 65536 registers, allocated 256 at a time to a warp (a thread's count times 32, rounded
// up), so the file holds floor(65536 / allocated) warps, at most the architecture's maximum; static shared
// memory, with the 1 KiB a block reserves from sm_80 on, allows as many blocks as fit in the SM's shared
// memory (at its largest carve-out), at most the architecture's blocks, of ceil(block / 32) warps each, at
// the kernel's largest block (its launch bound, else 1024). Before whole blocks, as AMD's waves: the
// runtime's occupancy for a given block size may be lower. Architectures (the CUDA programming guide):
//   sm_75                    32 warps, 64 KiB of shared memory, 16 blocks, nothing reserved
//   sm_80, sm_87             64 / 48 warps, 164 KiB, 32 / 16 blocks
//   sm_86, sm_89, sm_120     48 warps, 100 KiB, 16 / 24 / 32 blocks
//   sm_90, sm_100, sm_103    64 warps, 228 KiB, 32 blocks
// So on sm_90 64 registers give 32 warps, 56 give 36, 128 give 16.
#pragma once

#include <algorithm>
#include <optional>
#include <string>

#include "../results/kernel_resources.hpp"

namespace kbench {

struct amd_occupancy_rule {
  int registers_per_lane = 256;  // per SIMD
  int granule = 4;
  int max_waves = 10;
  long long lds_per_cu = 65536;
  bool separate_agprs = false;  // gfx908
};

// A target without its features: "gfx90a:xnack-" is "gfx90a".
[[nodiscard]] inline std::string target_base(const std::string& target) { return target.substr(0, target.find(':')); }

// The rule of a target ("gfx90a:xnack-" is gfx90a's); none for a target kbench has no rule for.
[[nodiscard]] inline std::optional<amd_occupancy_rule> occupancy_rule(const std::string& target) {
  const std::string base = target_base(target);
  if (base == "gfx900" || base == "gfx906") return amd_occupancy_rule{};
  if (base == "gfx908") return amd_occupancy_rule{256, 4, 10, 65536, true};
  if (base == "gfx90a" || base == "gfx940" || base == "gfx941" || base == "gfx942") return amd_occupancy_rule{512, 8, 8, 65536};
  if (base == "gfx950") return amd_occupancy_rule{512, 8, 8, 163840};
  return std::nullopt;
}

struct kernel_occupancy {
  int waves = 0;                 // per SIMD (AMD), warps per SM (NVIDIA)
  std::string limiter = "the target's maximum";  // "VGPRs", "SGPRs", "LDS" (NVIDIA: "registers", "shared memory")
  int vgprs_for_next_wave = -1;  // the most VGPRs (registers) that give one more; -1 when they do not limit

  // A resource that allows `allowed` waves: it limits them when that is fewer than so far.
  void limit(int allowed, const char* by) {
    if (allowed < waves) {
      waves = allowed;
      limiter = by;
    }
  }
};

// Waves per SIMD of a kernel with these resources under `rule`.
[[nodiscard]] inline kernel_occupancy amd_waves_per_simd(const amd_occupancy_rule& rule, int vgprs, int agprs, int sgprs,
                                                      long long lds_bytes, int workgroup_size) {
  const int registers = std::max(rule.separate_agprs ? std::max(vgprs, agprs) : vgprs, 1);
  const int allocated = (registers + rule.granule - 1) / rule.granule * rule.granule;
  kernel_occupancy o;
  o.waves = rule.max_waves;
  o.limit(rule.registers_per_lane / allocated, "VGPRs");
  o.limit(sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7, "SGPRs");
  if (lds_bytes > 0) {
    const long long waves_per_group = (std::max(workgroup_size, 1) + 63) / 64;
    const long long slots = 4LL * rule.max_waves;  // wave slots of a CU
    const long long most_groups = waves_per_group == 1 ? slots : std::min(slots / waves_per_group, 16LL);
    const long long groups = std::max(std::min(rule.lds_per_cu / lds_bytes, most_groups), 1LL);
    o.limit(static_cast<int>(std::clamp<long long>(groups * waves_per_group / 4, 1, rule.max_waves)), "LDS");
  }
  if (o.limiter == "VGPRs" && o.waves < rule.max_waves) {
    o.vgprs_for_next_wave = rule.registers_per_lane / (o.waves + 1) / rule.granule * rule.granule;
  }
  return o;
}

struct nvidia_occupancy_rule {
  int max_warps = 64;
  long long shared_per_sm = 233472;  // the largest carve-out
  int max_blocks = 32;
  long long reserved_per_block = 1024;
};

// The rule of an NVIDIA architecture ("sm_90", "sm_90a"); none for one kbench has no rule for.
[[nodiscard]] inline std::optional<nvidia_occupancy_rule> nvidia_rule(const std::string& target) {
  std::string arch = target.substr(0, target.find_first_not_of("sm_0123456789"));
  if (arch == "sm_75") return nvidia_occupancy_rule{32, 65536, 16, 0};
  if (arch == "sm_80") return nvidia_occupancy_rule{64, 167936, 32, 1024};
  if (arch == "sm_87") return nvidia_occupancy_rule{48, 167936, 16, 1024};
  if (arch == "sm_86") return nvidia_occupancy_rule{48, 102400, 16, 1024};
  if (arch == "sm_89") return nvidia_occupancy_rule{48, 102400, 24, 1024};
  if (arch == "sm_120") return nvidia_occupancy_rule{48, 102400, 32, 1024};
  if (arch == "sm_90" || arch == "sm_100" || arch == "sm_103") return nvidia_occupancy_rule{};
  return std::nullopt;
}

// Warps per SM of a kernel with these resources under `rule`.
[[nodiscard]] inline kernel_occupancy nvidia_warps_per_sm(const nvidia_occupancy_rule& rule, int registers,
                                                          long long shared_bytes, int block_size) {
  constexpr int file = 65536, unit = 256, lanes = 32;
  const int allocated = (std::max(registers, 1) * lanes + unit - 1) / unit * unit;
  kernel_occupancy o;
  o.waves = rule.max_warps;
  o.limit(file / allocated, "registers");
  if (shared_bytes > 0) {
    const long long warps_per_block = (std::max(block_size, 1) + lanes - 1) / lanes;
    const long long blocks = std::min<long long>(rule.shared_per_sm / (shared_bytes + rule.reserved_per_block), rule.max_blocks);
    o.limit(static_cast<int>(std::clamp<long long>(blocks * warps_per_block, 0, rule.max_warps)), "shared memory");
  }
  if (o.limiter == "registers" && o.waves < rule.max_warps) {
    o.vgprs_for_next_wave = file / (o.waves + 1) / unit * unit / lanes;
  }
  return o;
}

// A kernel's occupancy by its target's rule, at its largest work-group; none for a target without one.
[[nodiscard]] inline std::optional<kernel_occupancy> occupancy_of(const kernel_resources& k) {
  if (nvidia_target(k.target)) {
    const std::optional<nvidia_occupancy_rule> rule = nvidia_rule(k.target);
    if (!rule) return std::nullopt;
    return nvidia_warps_per_sm(*rule, k.vgprs, k.lds_bytes, k.max_workgroup_size);
  }
  const std::optional<amd_occupancy_rule> rule = occupancy_rule(k.target);
  if (!rule) return std::nullopt;
  return amd_waves_per_simd(*rule, k.vgprs, k.agprs, k.sgprs, k.lds_bytes, k.max_workgroup_size);
}

}  // namespace kbench
