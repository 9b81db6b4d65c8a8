// kbench/procedure/batch_graphs.hpp: batch mode's launches of a timing run (timing_run.hpp): each side's
// launches of one sample captured once in a graph, launch i on input set i + 1 and its own outputs
// (timed_input_sets.hpp), replayed between that side's events; when a side cannot be captured, both are
// launched on the stream instead, and a note says why.
#pragma once

#include <optional>

#include <fmt/format.h>

#include "../contract/error.hpp"
#include "../engines/measure.hpp"
#include "../results/results.hpp"
#include "timed_input_sets.hpp"

namespace kbench {
namespace detail {

// What capturing the graphs gave: the method in words, each graph's operations (-1: none), and the note when
// the launches could not be captured.
struct captured_graphs {
  std::string method;
  long long reference_operations = -1;
  long long optimized_operations = -1;
  std::vector<finding> found;
};

class batch_graphs {
 public:
  // Captures `launches` launches of each side (the reference's when `with_reference`) on `stream`.
  [[nodiscard]] captured_graphs capture(hipStream_t stream, timed_input_sets& sets, bool with_reference, int launches) {
    captured_graphs t;
    try {
      if (with_reference) {
        reference_.emplace(stream, [&](int i) { sets.launch(side::reference, i); }, launches);
        t.reference_operations = static_cast<long long>(reference_->nodes());
      }
      optimized_.emplace(stream, [&](int i) { sets.launch(side::optimized, i); }, launches);
      t.optimized_operations = static_cast<long long>(optimized_->nodes());
      t.method = fmt::format("batch: a graph of {} launches per event pair, time per launch; hot caches; reference "
                             "and optimized interleaved, in an order drawn per sample",
                             launches);
    } catch (const error& e) {
      reference_.reset();
      optimized_.reset();
      t.reference_operations = t.optimized_operations = -1;
      t.method = fmt::format("batch: {} launches on the stream per event pair, time per launch; hot caches; reference "
                             "and optimized interleaved, in an order drawn per sample",
                             launches);
      t.found.push_back({finding_kind::note, fmt::format("the launches could not be captured in a graph ({}); "
                                                         "batched on the stream",
                                                         e.what())});
    }
    return t;
  }

  // The graph of `target`'s launches; none before capture(), or when they could not be captured.
  [[nodiscard]] const std::optional<launch_graph>& of(side target) const {
    return target == side::optimized ? optimized_ : reference_;
  }

 private:
  std::optional<launch_graph> reference_, optimized_;
};

}  // namespace detail
}  // namespace kbench
