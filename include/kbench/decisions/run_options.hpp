// kbench/decisions/run_options.hpp: what a kbench program was told to do, as plain data, and the seeds a run
// takes from it: the procedure's stages and the adapters read it; options.hpp makes it from the command line
// and the environment (with CLI11, which only main()'s unit compiles). HIP-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../detail/entropy.hpp"
#include "../results/outcome.hpp"
#include "sweep.hpp"

namespace kbench {

// How many input sets are drawn anew before each timed sample (timing_plan.hpp): a count, or one of these.
inline constexpr int input_sets_auto = 0;           // those a sample reads: 1, or 1 per launch of a batch
inline constexpr int input_sets_beyond_cache = -1;  // enough that together they fill the cold flush (at least
                                                    // 256 MiB): the first, which a sample reads, leaves the cache

struct run_options {
  run_mode mode = run_mode::correctness;
  std::vector<std::uint64_t> seeds;  // pinned seeds; empty: seed_count fresh ones per run
  int seed_count = 3;
  int warmup = 10;                   // launches of each kernel before timing
  int iterations = 100;              // timed launches of each kernel
  int device = 0;
  std::string device_source;  // how the device was chosen, for the JSON
  // The GPUs of a case that spans devices, logical device d on devices[d]: --devices, or every GPU CTest
  // assigned (one per resource group); empty: `device` first, then the others in order.
  std::vector<int> devices;
  bool share_devices = false;  // run a case that spans more devices than the machine shows on fewer GPUs
  int device_count = 0;        // run only the shapes whose case spans this many devices (0: all)
  bool require_gpu = false;          // a missing GPU fails instead of skipping
  timing_mode timing = timing_mode::automatic;
  double precision = 0.005;          // stop sampling when both medians are known to +-0.5% (95%)...
  double max_time = 10.0;            // ...or after this many seconds of sampling per case
  int max_iterations = 100000;       // ...or this many samples
  double warmup_time = 0.02;         // then until the SM clock is up, for at most this long
  double flush_mib = 0.0;            // cold mode's cache flush; 0: max(256 MiB, 4 x L2)
  double batch_below_us = 10.0;      // automatic mode batches kernels shorter than this
  double throttle_threshold = 0.75;  // a sample below this share of the highest SM clock is left out (0: none)
  int input_sets = input_sets_auto;  // input sets drawn anew before each timed sample
  std::string json_path;             // write the results as JSON here
  std::string markdown_path;         // a table of the results, for a pull request
  std::string csv_path;              // the same, as CSV
  std::string baseline_path;         // compare with this earlier perf run (baseline.hpp)
  double baseline_threshold = 0.05;  // a slowdown beyond this, the whole interval beyond it, fails the run
  bool intended_change = false;      // a reference whose time moved against the baseline is meant (not a failure)
  shape_request shapes;              // --shape / --axis: shapes chosen at run time (sweep.hpp)
  bool help = false;                 // --help: kbench's options, then the framework's
  std::string help_text;
  double max_elements = 0.0;         // run only shapes whose buffers hold at most this many elements (0: all)
  bool quick = false;                // skip the extended checks (nearby shapes, edges, most misalignments)
  std::vector<std::string> passthrough;  // for Catch2 (correctness) or Google Benchmark (perf)
};

// The seeds of one correctness run: the pinned ones, or `seed_count` fresh ones from the OS.
[[nodiscard]] inline std::vector<std::uint64_t> seeds_for_run(const run_options& o) {
  if (!o.seeds.empty()) return o.seeds;
  std::vector<std::uint64_t> fresh;
  for (int i = 0; i < o.seed_count; ++i) fresh.push_back(detail::entropy_word());
  return fresh;
}

}  // namespace kbench
