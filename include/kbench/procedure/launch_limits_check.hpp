// kbench/procedure/launch_limits_check.hpp: what a side's launch puts on its stream, captured into a graph,
// not run: each kernel as a line (name, grid, block, dynamic shared memory), and each kernel launched over a
// limit of the device or of the kernel (decisions/launch_limits.hpp), judged before any of them runs.
//
// Where it is used:
//   correctness   each side on the device, once, with the first seed, after its first launch (so that what
//                 a launcher sets up on its first call is not captured), the optimized side before the
//                 reference's outputs exist: a kernel over a limit fails the case
//   timing        at the set-up, a launch on input set 0 and a sample's timed launches (timed_census.hpp): the
//                 same, and the two lists compared
// A launch the runtime refuses under capture leaves no node (its error is the launcher's to pass on; one that
// loses it leaves the outputs unwritten, which the comparison reports); a launch the runtime takes, where its
// own check is narrower than the hardware's, is caught here. A side that cannot be captured (it synchronises,
// allocates or uses another stream) is not judged here: the census and batch mode say so.
#pragma once

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../contract/code_object.hpp"
#include "../decisions/launch_limits.hpp"
#include "../detail/demangle.hpp"
#include "../results/outcome.hpp"
#include "case_buffers.hpp"
#include "case_devices.hpp"
#include "census_run.hpp"
#include "owned_graph.hpp"

namespace kbench {
namespace detail {

// The current device's launch limits, read once per device.
[[nodiscard]] inline device_launch_limits current_device_launch_limits() {
  static std::mutex mutex;
  static std::map<int, device_launch_limits> read;
  int device = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = read.find(device); found != read.end()) return found->second;
  hipDeviceProp_t prop{};
  KBENCH_HIP_CHECK(hipGetDeviceProperties(&prop, device));
  device_launch_limits limits;
  limits.threads_per_block = prop.maxThreadsPerBlock;
  for (int d = 0; d < 3; ++d) {
    limits.block[d] = prop.maxThreadsDim[d];
    limits.grid[d] = prop.maxGridSize[d];
  }
  int opted_in = 0;
  const bool known = shared_memory_per_block_optin(opted_in) == hipSuccess && opted_in > 0;
  (void)hipGetLastError();
  limits.shared_per_block = known ? opted_in : static_cast<long long>(prop.sharedMemPerBlock);
  return read.emplace(device, limits).first->second;
}

// A kernel node's launch, with what the runtime says its kernel allows.
[[nodiscard]] inline kernel_launch launch_of(const hipKernelNodeParams& params, hipStream_t stream) {
  kernel_launch launch;
  const std::string symbol = symbol_of_kernel(params.func, stream);
  launch.name = symbol.empty() ? "(unnamed)" : demangled(symbol);
  launch.grid = {params.gridDim.x, params.gridDim.y, params.gridDim.z};
  launch.block = {params.blockDim.x, params.blockDim.y, params.blockDim.z};
  launch.dynamic_shared = params.sharedMemBytes;
  hipFuncAttributes attributes{};
  if (function_attributes(attributes, params.func) == hipSuccess) {
    launch.static_shared = static_cast<long long>(attributes.sharedSizeBytes);
    launch.max_threads = attributes.maxThreadsPerBlock;
    launch.registers = attributes.numRegs;
    if (launchable_by_pointer(params.func)) launch.max_dynamic_shared = kernel_dynamic_shared_limit(attributes);
  }
  (void)hipGetLastError();
  return launch;
}

// "rmsnorm_v2::kernel<__half>(...) <<<(4096,1,1), (256,1,1), 0 B>>>", of a kernel node's launch.
[[nodiscard]] inline std::string kernel_line(const kernel_launch& launch) {
  return fmt::format("{} <<<({},{},{}), ({},{},{}), {} B>>>", launch.name, launch.grid[0], launch.grid[1], launch.grid[2],
                     launch.block[0], launch.block[1], launch.block[2], launch.dynamic_shared);
}

// The kernels of one captured launch, in launch order (a node the runtime cannot read back: "(a kernel the
// runtime cannot describe)"), and each one over a limit, in words.
struct captured_kernels {
  std::vector<std::string> lines;
  std::vector<std::string> over_limits;
};

// What `enqueue()` puts on `stream`, captured, not run (census_run.hpp's capture), into `into`; false where
// it cannot be captured.
template <class Enqueue>
[[nodiscard]] bool capture_kernels(hipStream_t stream, Enqueue&& enqueue, captured_kernels& into) {
  hipGraph_t graph = nullptr;
  const std::string failure = capture_into(stream, std::forward<Enqueue>(enqueue), graph);
  if (graph == nullptr) return false;
  const owned_graph captured(graph);
  if (!failure.empty()) return false;
  const device_launch_limits limits = current_device_launch_limits();
  for (hipGraphNode_t node : captured.in_launch_order()) {
    hipGraphNodeType type{};
    KBENCH_HIP_CHECK(hipGraphNodeGetType(node, &type));
    if (type != hipGraphNodeTypeKernel) continue;
    hipKernelNodeParams params{};
    const bool read = hipGraphKernelNodeGetParams(node, &params) == hipSuccess;
    (void)hipGetLastError();
    if (!read) {
      into.lines.emplace_back("(a kernel the runtime cannot describe)");
      continue;
    }
    const kernel_launch launch = launch_of(params, stream);
    into.lines.push_back(kernel_line(launch));
    if (std::string over = launch_over_limits(launch, limits); !over.empty()) into.over_limits.push_back(std::move(over));
  }
  return true;
}

// A failing finding for each distinct launch over a limit in `over_limits`, of `target`'s `where`.
[[nodiscard]] inline std::vector<finding> over_limit_findings(const std::vector<std::string>& over_limits, side target,
                                                              const char* where) {
  std::vector<finding> found;
  std::vector<std::string> seen;
  for (const std::string& over : over_limits) {
    if (std::find(seen.begin(), seen.end(), over) != seen.end()) continue;
    seen.push_back(over);
    found.push_back({finding_kind::launch_over_limit,
                     fmt::format("a kernel of the {} side's {} is launched over a limit, which the runtime refuses "
                                 "(with an error a launcher can lose) or runs wrongly: {}",
                                 target == side::optimized ? "optimized" : "reference", where, over)});
  }
  return found;
}

// `target`, captured once on input set 0's buffers: a failing finding for each of its kernels over a limit;
// none for a side that cannot be captured, or for a case on several devices.
[[nodiscard]] inline std::vector<finding> check_launch_limits(const case_devices& devices, case_buffers& buffers, side target) {
  if (devices.count() > 1) return {};  // a capture holds one stream: the census says what it can of the others
  captured_kernels captured;
  if (!capture_kernels(devices.stream(), [&] { buffers.launch(target); }, captured)) return {};
  return over_limit_findings(captured.over_limits, target, "launch");
}

}  // namespace detail
}  // namespace kbench
