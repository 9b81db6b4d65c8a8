// kbench/procedure/timed_census.hpp: the kernels of the optimized side's timed launches against those of a
// checked launch. The correctness run checks the side on input set 0's buffers; the timing run launches it on
// other input sets and outputs (timed_input_sets.hpp), in batch mode many to a sample, of which only the last
// can be checked. A launcher that chooses its kernels by those buffers, or by a launch's place in a batch,
// would run one set of kernels where it is checked and another where it is timed. So at the timing run's
// set-up, both are captured into graphs, not run: one launch on set 0, and a sample's launches on the timed
// sets; each timed launch must list the checked launch's kernels, in its order, with its grids, blocks and
// dynamic shared memory. A difference fails the case, naming both lists. A side that cannot be captured, or
// a case on several devices, is left to the census and batch mode, which report what they can.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../detail/demangle.hpp"
#include "../results/outcome.hpp"
#include "case_buffers.hpp"
#include "case_devices.hpp"
#include "census_run.hpp"
#include "owned_graph.hpp"
#include "timed_input_sets.hpp"

namespace kbench {
namespace detail {

// "rmsnorm_v2::kernel<__half>(...) <<<(4096,1,1), (256,1,1), 0 B>>>", of a kernel node's parameters.
[[nodiscard]] inline std::string kernel_line(const hipKernelNodeParams& params, hipStream_t stream) {
  const std::string symbol = symbol_of_kernel(params.func, stream);
  return fmt::format("{} <<<({},{},{}), ({},{},{}), {} B>>>", symbol.empty() ? "(unnamed)" : demangled(symbol),
                     params.gridDim.x, params.gridDim.y, params.gridDim.z, params.blockDim.x, params.blockDim.y,
                     params.blockDim.z, params.sharedMemBytes);
}

// The kernels that `enqueue()` puts on the case's stream, captured, not run (census_run.hpp's capture), in
// launch order (a node the runtime cannot read back: "(a kernel the runtime cannot describe)"); false where
// it cannot be captured.
template <class Enqueue>
[[nodiscard]] bool captured_kernels(hipStream_t stream, Enqueue&& enqueue, std::vector<std::string>& lines) {
  hipGraph_t graph = nullptr;
  const std::string failure = capture_into(stream, std::forward<Enqueue>(enqueue), graph);
  if (graph == nullptr) return false;
  const owned_graph captured(graph);
  if (!failure.empty()) return false;
  for (hipGraphNode_t node : captured.in_launch_order()) {
    hipGraphNodeType type{};
    KBENCH_HIP_CHECK(hipGraphNodeGetType(node, &type));
    if (type != hipGraphNodeTypeKernel) continue;
    hipKernelNodeParams params{};
    const bool read = hipGraphKernelNodeGetParams(node, &params) == hipSuccess;
    (void)hipGetLastError();
    lines.push_back(read ? kernel_line(params, stream) : "(a kernel the runtime cannot describe)");
  }
  return true;
}

// "a; b" of the lines from `first`, `count` of them ("none" where there are none).
[[nodiscard]] inline std::string joined(const std::vector<std::string>& lines, std::size_t first, std::size_t count) {
  std::string text;
  for (std::size_t i = first; i < first + count && i < lines.size(); ++i) text += (text.empty() ? "" : "; ") + lines[i];
  return text.empty() ? "none" : text;
}

// A failing finding where the optimized side's `launches` timed launches of a sample do not each list the
// kernels of one launch on set 0; none where they do, or where either cannot be captured.
[[nodiscard]] inline std::vector<finding> compare_timed_with_checked(const case_devices& devices, case_buffers& buffers,
                                                                    timed_input_sets& sets, int launches) {
  if (devices.count() > 1) return {};  // a capture holds one stream: the census says what it can of the others
  std::vector<std::string> checked, timed;
  const hipStream_t stream = devices.stream();
  if (!captured_kernels(stream, [&] { buffers.launch(side::optimized); }, checked)) return {};
  if (!captured_kernels(stream, [&] { for (int i = 0; i < launches; ++i) sets.launch(side::optimized, i); }, timed)) return {};
  const std::size_t each = checked.size();
  for (int i = 0; i < launches; ++i) {
    const std::size_t first = static_cast<std::size_t>(i) * each;
    bool same = first + each <= timed.size();
    for (std::size_t j = 0; same && j < each; ++j) same = timed[first + j] == checked[j];
    const bool last = i + 1 == launches;
    if (same && !(last && timed.size() != first + each)) continue;
    const std::size_t shown = last ? timed.size() - std::min(first, timed.size()) : each;
    return {{finding_kind::census_mismatch,
             fmt::format("the optimized side's timed launches run other kernels than its checked launch (each "
                         "captured, not run): a launch on input set 0 runs {}; timed launch {} of {} runs {}",
                         joined(checked, 0, each), i + 1, launches, joined(timed, std::min(first, timed.size()), shown))}};
  }
  return {};
}

}  // namespace detail
}  // namespace kbench
