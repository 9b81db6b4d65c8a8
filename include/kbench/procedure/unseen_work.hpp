// kbench/procedure/unseen_work.hpp: what one launch of the optimized side takes on the host's clock, for the
// judgement of work the timed stream does not see (decisions/judge.hpp's judge_unseen_work).
//
// The timed samples run behind the launch gate (engines/launch_gate.hpp): both sides' launches are queued
// before the timed stream starts, so neither side's host work is timed, and neither is work that a launch
// function runs on another stream and waits for before it returns. Two measures see what the events miss:
//   after return   the host time from the call's return until the device is idle, against the launch's
//                  time on the timed stream: work left running on another stream
//   in the call    the call's host time while every compute unit is kept busy for a while (saturation_for) from
//                  another stream, against its time on an idle device: a call that waits for the device
//                  waits for that load, where one that only queues work (whatever its host work takes: a
//                  Python side's interpreter, a library's heuristics) does not
// The second is measured on one device, where the side runs behind the gate: a side that waits for the device
// itself opens the gate by its timeout and is timed without it, its waits then inside the timed events. The
// load holds compute units, not copy engines: a copy waited for on another stream is not seen here.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "../engines/measure.hpp"
#include "../results/statistics.hpp"
#include "case_device_tools.hpp"
#include "case_devices.hpp"

namespace kbench {
namespace detail {

// How long the load keeps the device busy: a hundred times the call's own host time on an idle device (the
// median of 20), so that its host work's jitter stays far below half of it, and 2 to 10 ms: a call that
// waits for the device waits 1.8 ms longer at least, against a verdict at half the load. A C++ side's call
// of a few microseconds gets 2 ms, a Python side's of 50 us 5 ms. How many calls are timed under it: 3,
// the median counts.
inline constexpr double shortest_saturation = 2e-3, longest_saturation = 10e-3, saturation_per_call = 100;
inline constexpr int saturated_calls = 3;

[[nodiscard]] inline double saturation_for(double idle_call) {
  return std::clamp(saturation_per_call * idle_call, shortest_saturation, longest_saturation);
}

// The host times of one launch (timing_measurements' fields of the same names): on an idle device, and the
// call under the load (0 where not measured).
struct unseen_work_figures {
  double launch_wall = 0.0;
  double launch_call = 0.0;
  double saturated_call = 0.0;
  double saturation = 0.0;
};

// `prepare` runs before each launch, untimed; `launch` is one launch of the side; `gated`: the side was timed
// behind the launch gate.
template <class Prepare, class Launch>
[[nodiscard]] unseen_work_figures measure_unseen_work(const case_devices& devices, bool gated, Prepare&& prepare,
                                                      Launch&& launch) {
  unseen_work_figures t;
  const launch_host_time idle = launch_host_times(prepare, launch);
  t.launch_wall = idle.to_idle;
  t.launch_call = idle.call;
  if (!gated || devices.count() > 1) return t;
  device_loads load(devices);
  // As many blocks of 256 spinning threads on each compute unit as fit there (8 on gfx9 and on NVIDIA since
  // Volta: every thread slot), so that no block of another stream starts before the load ends.
  int fit = spin_blocks_per_multiprocessor(256);
  if (fit < 1) fit = 8;
  const double saturation = saturation_for(idle.call);
  std::vector<double> calls;
  for (int i = 0; i < saturated_calls; ++i) {
    prepare();
    KBENCH_HIP_CHECK(hipDeviceSynchronize());
    load.load(saturation, fit);
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // for its blocks to land
    const auto before = std::chrono::steady_clock::now();
    launch();
    calls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count());
    KBENCH_HIP_CHECK(hipDeviceSynchronize());
  }
  t.saturated_call = summarize(calls).median;
  t.saturation = saturation;
  return t;
}

}  // namespace detail
}  // namespace kbench
