// kbench/decisions/launch_limits.hpp: one kernel launch's grid, block and shared memory against the limits
// of the device and of the kernel itself, each limit crossed named in words. A launch over a limit is one the
// runtime refuses (an error a launcher can lose: the outputs are then whatever they held) or, where its own
// check is narrower than the hardware's, runs wrongly: AMD's runtime checks the dynamic LDS of a launch
// against the device but not the static and dynamic together, and a kernel whose LDS ran past MI300X's
// 64 KiB read garbage and was reported 104x faster. Host-only logic: the device's figures come from
// procedure/launch_limits_check.hpp.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace kbench {
namespace detail {

// What the device allows any launch: threads per block and each dimension of a block and of a grid, and the
// shared memory (LDS) one block can have, static and dynamic together (on NVIDIA the opt-in limit).
struct device_launch_limits {
  long long threads_per_block = 0;
  std::array<long long, 3> block{};
  std::array<long long, 3> grid{};
  long long shared_per_block = 0;
};

// One launch as the runtime holds it, and what its kernel allows (-1 where the runtime does not say).
struct kernel_launch {
  std::string name;  // the kernel as the report names it
  std::array<long long, 3> grid{1, 1, 1};
  std::array<long long, 3> block{1, 1, 1};
  long long dynamic_shared = 0;
  long long static_shared = -1;
  long long max_threads = -1;         // the kernel's own: its launch bounds, or (NVIDIA) its registers
  long long max_dynamic_shared = -1;  // NVIDIA: what the kernel opted in to (48 KiB less its static otherwise)
  int registers = -1;                 // per thread
};

// "1 KiB" where a byte count is a whole number of KiB, "1500 B" otherwise.
[[nodiscard]] inline std::string bytes_in_words(long long bytes) {
  return bytes % 1024 == 0 && bytes != 0 ? fmt::format("{} KiB", bytes / 1024) : fmt::format("{} B", bytes);
}

// Each limit that `launch` crosses, in words ("2048 threads per block, over the device's 1024"); empty
// where it crosses none.
[[nodiscard]] inline std::vector<std::string> limits_crossed(const kernel_launch& launch, const device_launch_limits& device) {
  std::vector<std::string> crossed;
  static constexpr const char* axis = "xyz";
  long long threads = 1;
  for (int d = 0; d < 3; ++d) {
    threads *= launch.block[d];
    if (device.block[d] > 0 && launch.block[d] > device.block[d]) {
      crossed.push_back(fmt::format("block {} of {}, over the device's {}", axis[d], launch.block[d], device.block[d]));
    }
    if (device.grid[d] > 0 && launch.grid[d] > device.grid[d]) {
      crossed.push_back(fmt::format("grid {} of {}, over the device's {}", axis[d], launch.grid[d], device.grid[d]));
    }
  }
  if (device.threads_per_block > 0 && threads > device.threads_per_block) {
    crossed.push_back(fmt::format("{} threads per block, over the device's {}", threads, device.threads_per_block));
  } else if (launch.max_threads > 0 && threads > launch.max_threads) {
    const std::string registers = launch.registers > 0 ? fmt::format(", or its {} registers per thread", launch.registers) : "";
    crossed.push_back(fmt::format("{} threads per block, over the kernel's own {} (its launch bounds{})", threads,
                                  launch.max_threads, registers));
  }
  const long long static_shared = launch.static_shared > 0 ? launch.static_shared : 0;
  const long long shared = static_shared + launch.dynamic_shared;
  if (device.shared_per_block > 0 && shared > device.shared_per_block) {
    crossed.push_back(fmt::format("{} of shared memory per block ({} static, {} dynamic), over the device's {}",
                                  bytes_in_words(shared), bytes_in_words(static_shared),
                                  bytes_in_words(launch.dynamic_shared), bytes_in_words(device.shared_per_block)));
  } else if (launch.max_dynamic_shared >= 0 && launch.dynamic_shared > launch.max_dynamic_shared) {
    crossed.push_back(fmt::format("{} of dynamic shared memory, over the {} the kernel allows (hipFuncSetAttribute with "
                                  "hipFuncAttributeMaxDynamicSharedMemorySize raises it)",
                                  bytes_in_words(launch.dynamic_shared), bytes_in_words(launch.max_dynamic_shared)));
  }
  return crossed;
}

// "rmsnorm_v2 <<<(4096,1,1), (2048,1,1), 0 B>>>: 2048 threads per block, over the device's 1024"; empty
// where the launch crosses no limit.
[[nodiscard]] inline std::string launch_over_limits(const kernel_launch& launch, const device_launch_limits& device) {
  const std::vector<std::string> crossed = limits_crossed(launch, device);
  if (crossed.empty()) return {};
  std::string text = fmt::format("{} <<<({},{},{}), ({},{},{}), {} B>>>: ", launch.name, launch.grid[0], launch.grid[1],
                                 launch.grid[2], launch.block[0], launch.block[1], launch.block[2], launch.dynamic_shared);
  for (std::size_t i = 0; i < crossed.size(); ++i) text += (i ? "; " : "") + crossed[i];
  return text;
}

}  // namespace detail
}  // namespace kbench
