// kbench/procedure/owned_graph.hpp: a graph and its executable form, owned (destroyed on every path), with
// its nodes in the order a captured launch put them: the census's (census_run.hpp) captured sides and the
// graphs of single nodes it replays.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "../contract/hip_check.hpp"
#include "../contract/platform.hpp"

namespace kbench {
namespace detail {

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
  // The nodes in an order the graph may run them in: each after those it depends on, and otherwise as
  // they were added (for a launch captured from one stream, the order of the launch).
  [[nodiscard]] std::vector<hipGraphNode_t> in_launch_order() const {
    const std::vector<hipGraphNode_t> all = nodes();
    std::vector<std::vector<std::size_t>> needs(all.size());  // the positions in `all` each node depends on
    for (std::size_t i = 0; i < all.size(); ++i) {
      std::size_t count = 0;
      KBENCH_HIP_CHECK(hipGraphNodeGetDependencies(all[i], nullptr, &count));
      std::vector<hipGraphNode_t> dependencies(count);
      if (count) KBENCH_HIP_CHECK(hipGraphNodeGetDependencies(all[i], dependencies.data(), &count));
      for (std::size_t j = 0; j < count; ++j) {
        needs[i].push_back(static_cast<std::size_t>(std::find(all.begin(), all.end(), dependencies[j]) - all.begin()));
      }
    }
    std::vector<hipGraphNode_t> order;
    std::vector<bool> placed(all.size() + 1, false);  // one past the end: a dependency not in the graph, never placed
    while (order.size() < all.size()) {
      std::size_t next = 0;
      while (next < all.size() && (placed[next] || !std::all_of(needs[next].begin(), needs[next].end(),
                                                                [&](std::size_t n) { return placed[n]; }))) {
        ++next;
      }
      if (next == all.size()) break;  // a cycle cannot be captured; stop rather than loop
      placed[next] = true;
      order.push_back(all[next]);
    }
    return order;
  }
  void launch(hipStream_t stream) {
    if (!exec_) KBENCH_HIP_CHECK(hipGraphInstantiate(&exec_, graph_, nullptr, nullptr, 0));
    KBENCH_HIP_CHECK(hipGraphLaunch(exec_, stream));
  }

 private:
  hipGraph_t graph_ = nullptr;
  hipGraphExec_t exec_ = nullptr;
};

}  // namespace detail
}  // namespace kbench
