// kbench/procedure/timed_census.hpp: the kernels of the optimized side's timed launches against those of a
// checked launch. The correctness run checks the side on input set 0's buffers; the timing run launches it on
// other input sets and outputs (timed_input_sets.hpp), in batch mode many to a sample, of which only the last
// can be checked. A launcher that chooses its kernels by those buffers, or by a launch's place in a batch,
// would run one set of kernels where it is checked and another where it is timed. So at the timing run's
// set-up, both are captured into graphs, not run: one launch on set 0, and a sample's launches on the timed
// sets; each timed launch must list the checked launch's kernels, in its order, with its grids, blocks and
// dynamic shared memory. A difference fails the case, naming both lists; so does a kernel of either launched
// over a limit of the device or of the kernel (launch_limits_check.hpp). A side that cannot be captured, or
// a case on several devices, is left to the census and batch mode, which report what they can.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../results/outcome.hpp"
#include "case_buffers.hpp"
#include "case_devices.hpp"
#include "launch_limits_check.hpp"
#include "timed_input_sets.hpp"

namespace kbench {
namespace detail {

// "a; b" of the lines from `first`, `count` of them ("none" where there are none).
[[nodiscard]] inline std::string joined(const std::vector<std::string>& lines, std::size_t first, std::size_t count) {
  std::string text;
  for (std::size_t i = first; i < first + count && i < lines.size(); ++i) text += (text.empty() ? "" : "; ") + lines[i];
  return text.empty() ? "none" : text;
}

// A failing finding for each kernel over a limit in a launch on set 0 or in a sample's `launches` timed launches
// of the optimized side (launch_limits_check.hpp), and one where the timed launches do not each list the
// kernels of the launch on set 0; none where either cannot be captured.
[[nodiscard]] inline std::vector<finding> compare_timed_with_checked(const case_devices& devices, case_buffers& buffers,
                                                                    timed_input_sets& sets, int launches) {
  if (devices.count() > 1) return {};  // a capture holds one stream: the census says what it can of the others
  captured_kernels in_checked_launch, in_timed_launches;
  const hipStream_t stream = devices.stream();
  if (!capture_kernels(stream, [&] { buffers.launch(side::optimized); }, in_checked_launch)) return {};
  const auto timed_launches = [&] {
    for (int i = 0; i < launches; ++i) sets.launch(side::optimized, i);
  };
  if (!capture_kernels(stream, timed_launches, in_timed_launches)) return {};
  std::vector<std::string> over_limits = in_checked_launch.over_limits;
  over_limits.insert(over_limits.end(), in_timed_launches.over_limits.begin(), in_timed_launches.over_limits.end());
  std::vector<finding> found = over_limit_findings(over_limits, side::optimized, "checked or timed launches");
  const std::vector<std::string>& checked = in_checked_launch.lines;
  const std::vector<std::string>& timed = in_timed_launches.lines;
  const std::size_t each = checked.size();
  for (int i = 0; i < launches; ++i) {
    const std::size_t first = static_cast<std::size_t>(i) * each;
    bool same = first + each <= timed.size();
    for (std::size_t j = 0; same && j < each; ++j) same = timed[first + j] == checked[j];
    const bool last = i + 1 == launches;
    if (same && !(last && timed.size() != first + each)) continue;
    const std::size_t shown = last ? timed.size() - std::min(first, timed.size()) : each;
    found.push_back({finding_kind::census_mismatch,
                     fmt::format("the optimized side's timed launches run other kernels than its checked launch (each "
                                 "captured, not run): a launch on input set 0 runs {}; timed launch {} of {} runs {}",
                                 joined(checked, 0, each), i + 1, launches,
                                 joined(timed, std::min(first, timed.size()), shown))});
    break;
  }
  return found;
}

}  // namespace detail
}  // namespace kbench
