// kbench/procedure/census_run.hpp: the census of one side of a case (census.hpp): one launch captured into a
// graph on the case's own buffers, then, node by node, what it holds; each kernel's attributes and
// occupancy from the runtime, and its cold time alone and in its place in the side.
//
//   capture       one launch of the side, on input set 0, captured from its stream (a side that
//                 synchronises, allocates or works on another stream cannot be, and is reported so)
//   list          every node, in launch order: kernels (name, grid, block, dynamic shared memory), copies,
//                 memsets
//   resources     registers, static shared memory, local memory, the largest block, occupancy
//   time          cold (the case's flush, then a settling spin, before each sample), the median less the
//                 event pair's own cost, as the timing's latency: each kernel alone (launched as the side
//                 launched it), each kernel in its place (the side's earlier nodes replayed first, untimed),
//                 the copies together (a graph of them), and the whole side (its own launch)
// Kernels loaded from code objects (contract/code_object.hpp) are listed, described and timed as the others (on
// NVIDIA, whose runtime cannot read back their graph nodes, from the one such launch a capture made, where
// there is one).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../contract/code_object.hpp"
#include "../detail/demangle.hpp"
#include "../engines/measure.hpp"
#include "../engines/profiler_range.hpp"
#include "../engines/timing.hpp"
#include "../results/census.hpp"
#include "../results/results.hpp"
#include "../results/statistics.hpp"
#include "case_buffers.hpp"
#include "owned_graph.hpp"

namespace kbench {
namespace detail {

// What runs before each timed launch of the census: the case's flush, then a settling spin, so that the
// launch starts on a device as quiet as behind a profiler's own flush. On the H200 a one-block argmax of
// 34 us read 0.6 us slower 20 us after the flush than 300 us after it (or 1 ms after, the device idle),
// where ncu, which pauses between its flush and the launch, agreed with the latter.
struct cold_start {
  static constexpr double settle_seconds = 300e-6;
  const cache_flush& flush;
  const spinner& settle;
  void enqueue(hipStream_t stream) const {
    flush.enqueue(stream);
    settle.enqueue(stream, settle_seconds);
  }
};

// How much the census measures: cold samples per figure, and launches of each side in a profiler range
// (the defaults: `<program> census`, where a profiler is set against it).
struct census_plan {
  int samples = 40;
  int profiled = 9;
};

// The median of `samples` cold runs of `launch` (a first one, which loads the code, not counted), each
// behind a cold start, then `prefix` (untimed), then between an event pair; less the pair's own cost
// (`floor`): a profiler's duration, as the timing's latency is.
template <class Launch, class Prefix>
double cold_launch_median(const cold_start& before, hipStream_t stream, double floor, int samples, Launch&& launch,
                          Prefix&& prefix) {
  auto untimed = [&] {
    before.enqueue(stream);
    prefix();
  };
  const std::vector<double> seconds = event_pair_samples(stream, samples + 1, 1, untimed, launch);
  return std::max(summarize(seconds).median - floor, 0.0);
}

template <class Launch>
double cold_launch_median(const cold_start& before, hipStream_t stream, double floor, int samples, Launch&& launch) {
  return cold_launch_median(before, stream, floor, samples, std::forward<Launch>(launch), [] {});
}

// One node of a captured launch, to be put on a stream again: a kernel as the side launched it (or, its
// arguments packed otherwise, alone in a graph), a copy or a memset alone in a graph. Nodes of other
// kinds (host functions, events, child graphs) are not replayed.
class node_replay {
 public:
  static node_replay of_kernel(const hipKernelNodeParams& params) {
    // A function this runtime does not know (a module's on AMD; on NVIDIA a kernel of a shared library
    // registered with the library's own CUDA runtime) is replayed as the graph holds it.
    hipFuncAttributes known{};
    const bool by_pointer = launchable_by_pointer(params.func) && hipFuncGetAttributes(&known, params.func) == hipSuccess;
    (void)hipGetLastError();
    if (params.kernelParams == nullptr || !by_pointer) {
      return alone_in_graph([&](hipGraphNode_t* node, hipGraph_t graph) {
        return hipGraphAddKernelNode(node, graph, nullptr, 0, &params);
      });
    }
    node_replay r;
    r.kernel_ = params;
    r.direct_ = true;
    return r;
  }
  static node_replay of_copy(const hipMemcpy3DParms& params) {
    return alone_in_graph([&](hipGraphNode_t* node, hipGraph_t graph) {
      return hipGraphAddMemcpyNode(node, graph, nullptr, 0, &params);
    });
  }
  static node_replay of_memset(const hipMemsetParams& params) {
    return alone_in_graph([&](hipGraphNode_t* node, hipGraph_t graph) {
      return hipGraphAddMemsetNode(node, graph, nullptr, 0, &params);
    });
  }
  static node_replay none() { return {}; }

  [[nodiscard]] bool replayable() const { return direct_ || alone_ != nullptr; }
  void enqueue(hipStream_t stream) const {
    if (direct_) {
      KBENCH_HIP_CHECK(hipLaunchKernel(kernel_.func, kernel_.gridDim, kernel_.blockDim, kernel_.kernelParams,
                                       kernel_.sharedMemBytes, stream));
    } else {
      alone_->launch(stream);
    }
  }

 private:
  // A graph of the one node that `add` puts in it (none, where the runtime refuses it).
  template <class Add>
  static node_replay alone_in_graph(Add&& add) {
    node_replay r;
    r.alone_ = std::make_unique<owned_graph>();
    hipGraphNode_t added = nullptr;
    if (add(&added, r.alone_->get()) != hipSuccess) r.alone_.reset();
    (void)hipGetLastError();
    return r;
  }

  hipKernelNodeParams kernel_{};
  bool direct_ = false;
  std::unique_ptr<owned_graph> alone_;
};

// The name the runtime, or the code object it was loaded from, knows the kernel of `function` by (mangled;
// empty when neither says).
[[nodiscard]] inline std::string symbol_of_kernel(const void* function, hipStream_t stream) {
  std::string symbol = launchable_by_pointer(function) ? kernel_symbol(function, stream) : std::string();
  if (const std::string* loaded = loaded_modules::instance().name_of(function); symbol.empty() && loaded) symbol = *loaded;
  return symbol;
}

// The runtime's attributes and occupancy of the kernel of `params`.
inline void describe_kernel(census_kernel& k, const hipKernelNodeParams& params, const hipDeviceProp_t& prop,
                            hipStream_t stream) {
  k.symbol = symbol_of_kernel(params.func, stream);
  k.name = demangled(k.symbol);
  k.grid[0] = params.gridDim.x, k.grid[1] = params.gridDim.y, k.grid[2] = params.gridDim.z;
  k.block[0] = params.blockDim.x, k.block[1] = params.blockDim.y, k.block[2] = params.blockDim.z;
  k.dynamic_shared_bytes = params.sharedMemBytes;
  hipFuncAttributes attributes{};
  if (function_attributes(attributes, params.func) == hipSuccess) {
    k.registers = attributes.numRegs;
    k.static_shared_bytes = static_cast<long long>(attributes.sharedSizeBytes);
    k.local_bytes = static_cast<long long>(attributes.localSizeBytes);
    k.max_threads_per_block = attributes.maxThreadsPerBlock;
  }
  (void)hipGetLastError();
  int blocks = 0;
  const auto threads = static_cast<int>(k.threads_per_block());
  if (blocks_per_unit(blocks, params.func, threads, params.sharedMemBytes) == hipSuccess) {
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

// What `enqueue()` puts on `stream`, captured into `graph`, not run; empty, or why it could not be (the
// capture is ended whatever `enqueue` throws, so that the stream is never left capturing).
template <class Enqueue>
[[nodiscard]] std::string capture_into(hipStream_t stream, Enqueue&& enqueue, hipGraph_t& graph) {
  KBENCH_HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeThreadLocal));
  std::string failure;
  module_launches_in_capture() = captured_module_launches{};  // the launches of code object kernels, kept
  module_launches_in_capture().capturing = true;
  try {
    enqueue();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  module_launches_in_capture().capturing = false;
  const hipError_t ended = hipStreamEndCapture(stream, &graph);
  (void)hipGetLastError();
  if (failure.empty() && ended != hipSuccess) {
    failure = fmt::format("{} ({})", hipGetErrorName(ended), hipGetErrorString(ended));
  }
  if (failure.empty() && graph == nullptr) failure = "no graph";
  return failure;
}

// One launch of `target` on input set 0, captured from the case's stream into `graph`; empty, or why it
// could not be.
[[nodiscard]] inline std::string capture_launch(const case_devices& devices, case_buffers& buffers, side target,
                                                hipGraph_t& graph) {
  buffers.prepare_outputs(target);
  return capture_into(devices.stream(), [&] { buffers.launch(target); }, graph);
}

// The nodes of a captured launch in launch order, each made replayable: the kernels (described in
// `out`), and the copies and memsets, also gathered into one graph of their own.
struct listed_nodes {
  std::vector<node_replay> replays;
  std::vector<std::size_t> kernel_at;  // the position in `replays` of each listed kernel
  owned_graph copies;
  bool copies_rebuilt = true;
  // A code object kernel's launch that the runtime could not read back, as kbench made it: its arguments'
  // bytes, and pointers to each, which its replay launches with.
  std::vector<std::vector<unsigned char>> module_arguments;
  std::vector<void*> module_argument_pointers;
};

// The one kernel of a code object that a capture launched and the runtime cannot read back (NVIDIA), named,
// described and made replayable from the launch kbench made (code_object.hpp's record of it).
inline void describe_module_launch(census_kernel& k, node_replay& replay, listed_nodes& listed,
                                   const captured_module_launches& launch, const hipDeviceProp_t& prop, hipStream_t stream) {
  listed.module_arguments = launch.arguments;
  listed.module_argument_pointers.clear();
  for (std::vector<unsigned char>& bytes : listed.module_arguments) listed.module_argument_pointers.push_back(bytes.data());
  hipKernelNodeParams params{};
  params.func = const_cast<void*>(launch.function);
  params.gridDim = launch.grid;
  params.blockDim = launch.block;
  params.sharedMemBytes = launch.shared_bytes;
  params.kernelParams = listed.module_argument_pointers.empty() ? nullptr : listed.module_argument_pointers.data();
  describe_kernel(k, params, prop, stream);
  if (k.symbol.empty()) k.symbol = *launch.last;
  k.name = demangled(k.symbol) + " (described by its launch: the runtime cannot read its graph node back)";
  replay = node_replay::of_kernel(params);
}

inline void list_nodes(const owned_graph& graph, hipStream_t stream, census_side& out, listed_nodes& listed) {
  int device = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  hipDeviceProp_t prop{};
  KBENCH_HIP_CHECK(hipGetDeviceProperties(&prop, device));
  std::vector<std::size_t> undescribed;  // the kernels the runtime could not describe, by position
  for (hipGraphNode_t node : graph.in_launch_order()) {
    hipGraphNodeType type{};
    KBENCH_HIP_CHECK(hipGraphNodeGetType(node, &type));
    if (type == hipGraphNodeTypeKernel) {
      hipKernelNodeParams params{};
      listed.kernel_at.push_back(listed.replays.size());
      if (hipGraphKernelNodeGetParams(node, &params) != hipSuccess) {
        // On NVIDIA the runtime cannot read back a kernel it did not register (one loaded from a code object
        // through the CUDA library API, or one of a shared library with a runtime of its own): counted, not
        // described or timed.
        (void)hipGetLastError();
        undescribed.push_back(out.kernels.size());
        out.kernels.emplace_back().name = "(a kernel the runtime cannot describe: from a code object or a library)";
        listed.replays.push_back(node_replay::none());
        continue;
      }
      describe_kernel(out.kernels.emplace_back(), params, prop, stream);
      listed.replays.push_back(node_replay::of_kernel(params));
    } else if (type == hipGraphNodeTypeMemcpy) {
      ++out.copies;
      hipMemcpy3DParms params{};
      hipGraphNode_t copy = nullptr;
      const bool read = hipGraphMemcpyNodeGetParams(node, &params) == hipSuccess;
      listed.copies_rebuilt = listed.copies_rebuilt && read &&
                              hipGraphAddMemcpyNode(&copy, listed.copies.get(), nullptr, 0, &params) == hipSuccess;
      listed.replays.push_back(read ? node_replay::of_copy(params) : node_replay::none());
    } else if (type == hipGraphNodeTypeMemset) {
      ++out.memsets;
      hipMemsetParams params{};
      hipGraphNode_t copy = nullptr;
      const bool read = hipGraphMemsetNodeGetParams(node, &params) == hipSuccess;
      listed.copies_rebuilt = listed.copies_rebuilt && read &&
                              hipGraphAddMemsetNode(&copy, listed.copies.get(), nullptr, 0, &params) == hipSuccess;
      listed.replays.push_back(read ? node_replay::of_memset(params) : node_replay::none());
    } else if (type != hipGraphNodeTypeEmpty) {
      ++out.other;
      listed.replays.push_back(node_replay::none());
    }
    (void)hipGetLastError();
  }
  // A node the runtime could not read back is the one kernel of a code object the capture launched, where
  // there is one such node and one such launch, and no node the runtime described is that kernel.
  const captured_module_launches& modules = module_launches_in_capture();
  const auto same = [&](const census_kernel& k) { return k.symbol == *modules.last; };
  if (undescribed.size() == 1 && modules.count == 1 && modules.last && std::none_of(out.kernels.begin(), out.kernels.end(), same)) {
    const std::size_t at = undescribed.front();
    describe_module_launch(out.kernels[at], listed.replays[listed.kernel_at[at]], listed, modules, prop, stream);
  }
}

// Each kernel alone, then in its place (after the nodes before it, replayed untimed; the first node's
// place is alone), and the copies together.
inline void time_nodes(listed_nodes& listed, const cold_start& before, hipStream_t stream, double floor, int samples,
                       census_side& out) {
  const std::vector<node_replay>& replays = listed.replays;
  for (std::size_t i = 0; i < out.kernels.size(); ++i) {
    const node_replay& mine = replays[listed.kernel_at[i]];
    if (!mine.replayable()) continue;
    census_kernel& k = out.kernels[i];
    k.median_seconds = cold_launch_median(before, stream, floor, samples, [&] { mine.enqueue(stream); });
    const auto earlier = replays.begin() + static_cast<std::ptrdiff_t>(listed.kernel_at[i]);
    if (earlier == replays.begin()) {
      k.in_side_seconds = k.median_seconds;
    } else if (std::all_of(replays.begin(), earlier, [](const node_replay& r) { return r.replayable(); })) {
      k.in_side_seconds = cold_launch_median(before, stream, floor, samples, [&] { mine.enqueue(stream); }, [&] {
        for (auto r = replays.begin(); r != earlier; ++r) r->enqueue(stream);
      });
    }
  }
  if (out.copies + out.memsets > 0 && listed.copies_rebuilt) {
    out.copies_seconds = cold_launch_median(before, stream, floor, samples, [&] { listed.copies.launch(stream); });
  }
}

// The census of one launch of `target`, on input set 0 of `buffers`; times less `floor`.
[[nodiscard]] inline census_side take_census(const case_devices& devices, case_buffers& buffers, side target,
                                             const cold_start& before, double floor, int samples) {
  census_side out;
  if (devices.count() > 1) {
    out.reason = fmt::format("the case spans {} devices: a graph of one launch would hold nodes of several, and the "
                             "census lists the kernels of one device's launch",
                             devices.count());
    return out;
  }
  const hipStream_t stream = devices.stream();
  hipGraph_t captured = nullptr;
  const std::string failure = capture_launch(devices, buffers, target, captured);
  const owned_graph graph(captured);
  if (!failure.empty()) {
    out.reason = "one launch could not be captured in a graph (a launch that synchronises, allocates or uses another "
                 "stream cannot be): " + failure;
    KBENCH_HIP_CHECK(hipDeviceSynchronize());
    return out;
  }
  out.captured = true;
  listed_nodes listed;
  list_nodes(graph, stream, out, listed);
  time_nodes(listed, before, stream, floor, samples, out);
  if (!listed.replays.empty()) {
    out.whole_seconds = cold_launch_median(before, stream, floor, samples, [&] { buffers.launch(target); });
  }
  KBENCH_HIP_CHECK(hipDeviceSynchronize());
  return out;
}

// The census of both sides (the reference's only when it runs on the device), each side then launched
// `plan.profiled` times, each launch inside a profiler range ("kbench census reference", "kbench census
// optimized"), so that a profiler can list and time the same kernels, and give a median of its own.
[[nodiscard]] inline case_census take_case_census(const case_layout& layout, const case_devices& devices,
                                                  case_buffers& buffers, const gpu_info& g, std::size_t flush_bytes,
                                                  double floor, census_plan plan) {
  const cache_flush caches(flush_bytes, std::max(g.multiprocessors, 1));
  const spinner settle(devices.stream());
  const cold_start before{caches, settle};
  case_census c;
  c.platform = g.platform;
  c.profiler_launches = plan.profiled;
  c.profiler_ranges = profiler_ranges();
  for (const side target : {side::reference, side::optimized}) {
    if (target == side::reference && !layout.has_device_reference()) continue;
    census_side taken = take_census(devices, buffers, target, before, floor, plan.samples);
    for (int i = 0; i < plan.profiled; ++i) {
      buffers.prepare_outputs(target);
      const profiler_range range(target == side::optimized ? "kbench census optimized" : "kbench census reference");
      buffers.launch(target);
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
