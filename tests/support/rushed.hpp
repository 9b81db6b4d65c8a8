// What the planted cheats of the harness suites (mutation_test.hip, trust_sampling_test.hip) key on to tell
// timing from checking: being called in quick succession, as in the warm-up, a batch's capture and the timed
// loop, more often than a correctness run calls. "Rushed": the 257th call or later in a row, each within
// 2 ms of the one before (a correctness run makes about 130 launches, some of them that close together).
// Each Variant keeps a streak of its own, so that plants do not share one.
#pragma once

#include <chrono>

namespace kbench_test {

template <int Variant = 0>
bool rushed() {
  static std::chrono::steady_clock::time_point last{};
  static int streak = 0;
  const auto now = std::chrono::steady_clock::now();
  streak = now - last < std::chrono::milliseconds(2) ? streak + 1 : 0;
  last = now;
  return streak >= 256;
}

}  // namespace kbench_test
