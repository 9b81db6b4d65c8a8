// kbench/decisions/timing_plan.hpp: the decisions a timing run makes before it samples, as plain functions of the
// options and of what was measured: the cache flush's size, the number of input sets, the timing mode and
// the batch size. HIP-free, so they are unit-tested on any machine.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "../results/outcome.hpp"
#include "run_options.hpp"

namespace kbench {

// Bytes that cold launches read to evict the caches: --flush-mib, or max(256 MiB, 4 x L2).
[[nodiscard]] inline std::size_t flush_bytes(const run_options& o, double l2_bytes) {
  const double bytes = o.flush_mib > 0 ? o.flush_mib * 1048576.0 : std::max(256.0 * 1048576.0, 4.0 * l2_bytes);
  return static_cast<std::size_t>(bytes);
}

struct mode_plan {
  timing_mode mode = timing_mode::cold;
  int launches_per_sample = 1;
};

// The timing mode (automatic: batch for kernels whose pilot median is under batch_below_us, else cold)
// and, in batch mode, the launches per sample: enough for about 200 us per event pair, 16 to 4096.
[[nodiscard]] inline mode_plan plan_mode(const run_options& o, double pilot_median) {
  mode_plan p;
  p.mode = o.timing;
  if (p.mode == timing_mode::automatic) {
    p.mode = pilot_median < o.batch_below_us * 1e-6 ? timing_mode::batch : timing_mode::cold;
  }
  if (p.mode == timing_mode::batch) {
    p.launches_per_sample = static_cast<int>(std::clamp(std::ceil(200e-6 / std::max(pilot_median, 1e-7)), 16.0, 4096.0));
  }
  return p;
}

struct input_set_plan {
  int wanted = 1;               // what the options and the mode ask for
  int sets = 1;                 // what fits: at most a quarter of the free device memory
  int launches_per_sample = 1;  // the mode's, cut to `sets` in batch mode when memory runs short
};

// How many input sets are drawn afresh before every sample (so that no timed launch reads inputs an
// earlier launch has seen): the options' count (auto: 1), or for beyond-cache as many as together fill
// the cold flush (a sample reads the first drawn, which the others push out of the cache); in batch mode
// at least one per launch of a sample, so that no two launches of a batch share inputs. At most a quarter
// of the free memory: where that leaves fewer sets than a batch has launches, the batch is cut to the sets.
[[nodiscard]] inline input_set_plan plan_input_sets(const run_options& o, std::size_t set_bytes, std::size_t flush,
                                                    std::size_t free_bytes, const mode_plan& mode) {
  const bool batch = mode.mode == timing_mode::batch;
  input_set_plan p;
  p.launches_per_sample = mode.launches_per_sample;
  std::size_t wanted = 1;
  if (o.input_sets == input_sets_beyond_cache && set_bytes > 0) {
    wanted = std::clamp<std::size_t>((flush + set_bytes - 1) / set_bytes, 2, 4096);
  } else if (o.input_sets > 0) {
    wanted = static_cast<std::size_t>(o.input_sets);
  }
  if (batch) wanted = std::max(wanted, static_cast<std::size_t>(mode.launches_per_sample));
  const std::size_t fit = set_bytes == 0 ? wanted : std::max<std::size_t>(1, free_bytes / 4 / set_bytes);
  p.wanted = static_cast<int>(wanted);
  p.sets = static_cast<int>(std::min(wanted, fit));
  if (batch) p.launches_per_sample = std::min(p.launches_per_sample, p.sets);
  return p;
}

// Batch mode: how many copies of its outputs a sample's launches write in turn (launch i copy i mod
// copies), so that the last `copies` launches of every sample can be checked. One per launch where the
// copies of both sides fit in a sixteenth of the L2 and in the memory left: more push the inputs out of the
// cache in which batch mode times the launches. On the H200, a kernel of 1.22 us writing
// 256 KiB, 58 launches a sample: 1.64 us a launch with a copy each, 1.32 with 20 (a quarter of the L2),
// 1.22 with 5 (a sixteenth), as with one. At least one. `copy_bytes`: what one more copy of both sides'
// outputs adds (the bytes the launches write); `fixed_bytes`: what the copies cost once whatever their
// number (the guards around each side's outputs, which no launch writes: memory, not cache).
[[nodiscard]] inline int plan_output_copies(int launches, std::size_t copy_bytes, std::size_t fixed_bytes,
                                            double l2_bytes, std::size_t memory_left) {
  if (launches <= 1 || copy_bytes == 0) return std::max(launches, 1);
  const double memory = memory_left > fixed_bytes ? static_cast<double>(memory_left - fixed_bytes) : 0.0;
  const double budget = std::min(l2_bytes / 16.0, memory);
  const double fit = std::floor(budget / static_cast<double>(copy_bytes));
  return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(launches)));
}

}  // namespace kbench
