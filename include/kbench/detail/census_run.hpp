// kbench/detail/census_run.hpp: the census of one side of a case (census.hpp): one launch captured into a
// graph on the case's own buffers, then, node by node, what it holds; each kernel's attributes and
// occupancy from the runtime, and its cold time alone, in a graph of its own.
//
//   capture       one launch of the side, on input set 0, captured from its stream (a side that
//                 synchronises, allocates or works on another stream cannot be, and is reported so)
//   list          every node: kernels (name, grid, block, dynamic shared memory), copies, memsets
//   resources     registers, static shared memory, local memory, the largest block, occupancy
//   time          each kernel alone (launched as the side launched it), the copies together (a graph of
//                 them), and the whole side (its own launch): cold (the case's flush, then a settling
//                 spin, before each), 40 samples each, the median less the event pair's own cost, as the
//                 timing's latency
#pragma once

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../census.hpp"
#include "../measure.hpp"
#include "../results.hpp"
#include "../statistics.hpp"
#include "../timing.hpp"
#include "case_memory.hpp"

namespace kbench {
namespace detail {

inline std::string demangled(const std::string& symbol) {
  if (symbol.empty()) return "(unnamed kernel)";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : symbol;
}

// What runs before each timed launch of the census: the case's flush, then a short spin, so that the
// writes the flush evicted drain before the launch, as they do behind a profiler's own flush. On the
// H200, scripts/census-check.py missed 5 of its 91 kernels' targets in each of two runs with the spin
// and 7 in one without.
struct cold_start {
  const cache_flush& flush;
  const spinner& settle;
  void enqueue(hipStream_t stream) const {
    flush.enqueue(stream);
    settle.enqueue(stream, 20e-6);
  }
};

// The median of 40 cold runs of `launch` (a first one, which loads the code, not counted), each behind a
// cold start and between an event pair, less the pair's own cost (`floor`): a profiler's duration, as the
// timing's latency is.
template <class Launch>
double cold_launch_median(const cold_start& before, hipStream_t stream, double floor, Launch&& launch) {
  event start, stop;
  std::vector<double> samples;
  for (int i = 0; i < 41; ++i) {
    before.enqueue(stream);
    start.record(stream);
    launch();
    stop.record(stream);
    stop.synchronize();
    if (i > 0) samples.push_back(stop.seconds_since(start));
  }
  return std::max(summarize(samples).median - floor, 0.0);
}

// A graph and its executable form, destroyed on every path.
class owned_graph {
 public:
  owned_graph() { KBENCH_HIP_CHECK(hipGraphCreate(&graph_, 0)); }
  explicit owned_graph(hipGraph_t adopted) : graph_(adopted) {}
  owned_graph(const owned_graph&) = delete;
  owned_graph& operator=(const owned_graph&) = delete;
  ~owned_graph() {
    if (exec_) KBENCH_HIP_CHECK_NOTHROW(hipGraphExecDestroy(exec_));
    if (graph_) KBENCH_HIP_CHECK_NOTHROW(hipGraphDestroy(graph_));
  }
  [[nodiscard]] hipGraph_t get() const { return graph_; }
  [[nodiscard]] std::vector<hipGraphNode_t> nodes() const {
    std::size_t count = 0;
    KBENCH_HIP_CHECK(hipGraphGetNodes(graph_, nullptr, &count));
    std::vector<hipGraphNode_t> all(count);
    if (count) KBENCH_HIP_CHECK(hipGraphGetNodes(graph_, all.data(), &count));
    all.resize(count);
    return all;
  }
  // The median of cold launches of the graph (cold_launch_median).
  [[nodiscard]] double cold_median(const cold_start& before, hipStream_t stream, double floor) {
    if (!exec_) KBENCH_HIP_CHECK(hipGraphInstantiate(&exec_, graph_, nullptr, nullptr, 0));
    return cold_launch_median(before, stream, floor, [&] { KBENCH_HIP_CHECK(hipGraphLaunch(exec_, stream)); });
  }

 private:
  hipGraph_t graph_ = nullptr;
  hipGraphExec_t exec_ = nullptr;
};

// The runtime's attributes and occupancy of the kernel of `params`.
inline void describe_kernel(census_kernel& k, const hipKernelNodeParams& params, const hipDeviceProp_t& prop,
                            hipStream_t stream) {
  k.symbol = kernel_symbol(params.func, stream);
  k.name = demangled(k.symbol);
  k.grid[0] = params.gridDim.x, k.grid[1] = params.gridDim.y, k.grid[2] = params.gridDim.z;
  k.block[0] = params.blockDim.x, k.block[1] = params.blockDim.y, k.block[2] = params.blockDim.z;
  k.dynamic_shared_bytes = params.sharedMemBytes;
  hipFuncAttributes attributes{};
  if (hipFuncGetAttributes(&attributes, params.func) == hipSuccess) {
    k.registers = attributes.numRegs;
    k.static_shared_bytes = static_cast<long long>(attributes.sharedSizeBytes);
    k.local_bytes = static_cast<long long>(attributes.localSizeBytes);
    k.max_threads_per_block = attributes.maxThreadsPerBlock;
  }
  (void)hipGetLastError();
  int blocks = 0;
  const auto threads = static_cast<int>(k.threads_per_block());
  if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, params.func, threads, params.sharedMemBytes) == hipSuccess) {
    const int wave = std::max(prop.warpSize, 1);
    const int waves_per_block = (threads + wave - 1) / wave;
    const int most = std::max(prop.maxThreadsPerMultiProcessor / wave, 1);
    k.blocks_per_unit = blocks;
    k.waves_per_unit = blocks * waves_per_block;
    k.occupancy = static_cast<double>(k.waves_per_unit) / most;
#if defined(KBENCH_PLATFORM_AMD)
    k.waves_per_simd = k.waves_per_unit / 4.0;  // gfx9 and CDNA: four SIMDs per compute unit
#endif
  }
  (void)hipGetLastError();
}

// The census of one launch of `target`, on input set 0 of `memory`; times less `floor`.
[[nodiscard]] inline census_side take_census(case_memory& memory, side target, const cold_start& before, double floor) {
  census_side out;
  if (memory.devices().count() > 1) {
    out.reason = fmt::format("the case spans {} devices: a graph of one launch would hold nodes of several, and the "
                             "census lists the kernels of one device's launch",
                             memory.devices().count());
    return out;
  }
  const hipStream_t stream = memory.stream();
  memory.prepare_outputs(target);
  hipGraph_t captured = nullptr;
  KBENCH_HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeThreadLocal));
  std::string failure;
  try {
    memory.launch(target);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  const hipError_t ended = hipStreamEndCapture(stream, &captured);
  (void)hipGetLastError();
  owned_graph graph(captured);
  if (failure.empty() && ended != hipSuccess) {
    failure = fmt::format("{} ({})", hipGetErrorName(ended), hipGetErrorString(ended));
  }
  if (!failure.empty() || captured == nullptr) {
    out.reason = "one launch could not be captured in a graph (a launch that synchronises, allocates or uses another "
                 "stream cannot be): " + (failure.empty() ? std::string("no graph") : failure);
    KBENCH_HIP_CHECK(hipDeviceSynchronize());
    return out;
  }
  out.captured = true;
  int device = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  hipDeviceProp_t prop{};
  KBENCH_HIP_CHECK(hipGetDeviceProperties(&prop, device));
  owned_graph copies;
  bool copies_rebuilt = true;
  for (hipGraphNode_t node : graph.nodes()) {
    hipGraphNodeType type{};
    KBENCH_HIP_CHECK(hipGraphNodeGetType(node, &type));
    if (type == hipGraphNodeTypeKernel) {
      hipKernelNodeParams params{};
      KBENCH_HIP_CHECK(hipGraphKernelNodeGetParams(node, &params));
      census_kernel& k = out.kernels.emplace_back();
      describe_kernel(k, params, prop, stream);
      if (params.kernelParams != nullptr) {  // alone, launched as the side launched it
        k.median_seconds = cold_launch_median(before, stream, floor, [&] {
          KBENCH_HIP_CHECK(hipLaunchKernel(params.func, params.gridDim, params.blockDim, params.kernelParams,
                                           params.sharedMemBytes, stream));
        });
      } else {  // arguments packed otherwise (`extra`): alone in a graph
        owned_graph alone;
        hipGraphNode_t copy = nullptr;
        if (hipGraphAddKernelNode(&copy, alone.get(), nullptr, 0, &params) == hipSuccess) {
          k.median_seconds = alone.cold_median(before, stream, floor);
        }
      }
      (void)hipGetLastError();
    } else if (type == hipGraphNodeTypeMemcpy) {
      ++out.copies;
      hipMemcpy3DParms params{};
      hipGraphNode_t copy = nullptr;
      copies_rebuilt = copies_rebuilt && hipGraphMemcpyNodeGetParams(node, &params) == hipSuccess &&
                       hipGraphAddMemcpyNode(&copy, copies.get(), nullptr, 0, &params) == hipSuccess;
    } else if (type == hipGraphNodeTypeMemset) {
      ++out.memsets;
      hipMemsetParams params{};
      hipGraphNode_t copy = nullptr;
      copies_rebuilt = copies_rebuilt && hipGraphMemsetNodeGetParams(node, &params) == hipSuccess &&
                       hipGraphAddMemsetNode(&copy, copies.get(), nullptr, 0, &params) == hipSuccess;
    } else if (type != hipGraphNodeTypeEmpty) {
      ++out.other;
    }
    (void)hipGetLastError();
  }
  if (out.copies + out.memsets > 0 && copies_rebuilt) out.copies_seconds = copies.cold_median(before, stream, floor);
  // The whole side as it launches itself, timed as its parts were.
  if (!graph.nodes().empty()) {
    out.whole_seconds = cold_launch_median(before, stream, floor, [&] { memory.launch(target); });
  }
  KBENCH_HIP_CHECK(hipDeviceSynchronize());
  return out;
}

// Launches of each side in `<program> census`, each inside a profiler range of its own, after the census:
// a profiler that measures one launch at a time lists the census's kernels this many times over, for a
// median of its own.
inline constexpr int census_profiler_launches = 5;

// The census of both sides (the reference's only when it runs on the device), each side then launched
// `profiled` times, each launch inside a profiler range ("kbench census reference", "kbench census
// optimized"), so that a profiler can list and time the same kernels.
[[nodiscard]] inline case_census take_case_census(case_memory& memory, const gpu_info& g, std::size_t flush_bytes,
                                                  double floor, int profiled) {
  const cache_flush caches(flush_bytes, std::max(g.multiprocessors, 1));
  const spinner settle(memory.stream());
  const cold_start before{caches, settle};
  case_census c;
  c.platform = g.platform;
  c.profiler_launches = profiled;
  for (const side target : {side::reference, side::optimized}) {
    if (target == side::reference && !memory.has_device_reference()) continue;
    census_side taken = take_census(memory, target, before, floor);
    for (int i = 0; i < profiled; ++i) {
      memory.prepare_outputs(target);
      const profiler_range range(target == side::optimized ? "kbench census optimized" : "kbench census reference");
      memory.launch(target);
      KBENCH_HIP_CHECK(hipDeviceSynchronize());
    }
    if (target == side::optimized) {
      c.optimized = std::move(taken);
    } else {
      c.reference = std::move(taken);
    }
  }
  return c;
}

}  // namespace detail
}  // namespace kbench
