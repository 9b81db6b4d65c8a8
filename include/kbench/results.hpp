// kbench/results.hpp: what a run found, as plain data: the report, the JSON file and the exit status are
// all made from these. HIP-free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "comparison.hpp"
#include "dtype.hpp"
#include "shape.hpp"
#include "statistics.hpp"

namespace kbench {

// What one launch of the kernel moves and computes; the report turns it into GB/s, TFLOP/s, tokens/s.
struct work_model {
  double bytes = 0.0;
  double flops = 0.0;
  double tokens = 0.0;
};

// The GPU the program runs on, or why there is none.
struct gpu_info {
  bool usable = false;
  std::string reason;  // when not usable
  int device = 0;
  std::string platform;  // "amd" or "nvidia"
  std::string name;
  std::string arch;
  int multiprocessors = 0;
  int wave_size = 0;
  double memory_bytes = 0.0;
  double l2_bytes = 0.0;
  double open_seconds = 0.0;  // host time to start the runtime and open the device (once per program)
};

// Device-to-device copy bandwidth, bytes read plus bytes written per second: the ceiling that
// memory-bound kernels are measured against.
struct copy_bandwidth {
  double bytes_per_second = 0.0;       // copy: bytes read plus bytes written per second
  std::size_t buffer_bytes = 0;
  sample_stats seconds;
  double read_bytes_per_second = 0.0;  // reading alone, which is faster: the ceiling of read-only kernels
};

struct output_result {
  std::string name;
  dtype type = dtype::f32;
  std::vector<std::size_t> extents;
  comparison result;
};

// One correctness run: one seed, every output.
struct seed_result {
  std::uint64_t seed = 0;
  std::vector<std::string> problems;  // the test, the reference or the harness contract broken
  std::vector<output_result> outputs;
  [[nodiscard]] bool passed() const {
    if (!problems.empty() || outputs.empty()) return false;
    return std::all_of(outputs.begin(), outputs.end(), [](const output_result& o) { return o.result.passed; });
  }
};

// What a case declares about its own performance (kernel_case::require_speedup and friends).
struct perf_expectations {
  double required_speedup = 0.0;       // fail when the speedup's whole interval is below
  double required_bandwidth = 0.0;     // as a fraction of the copy bandwidth; likewise
  double max_plausible_speedup = 10.0; // above this a speedup is flagged as implausible, and fails
};

struct timing_result {
  std::string mode;                       // "cold", "hot" or "batch"
  std::string method;                     // how the samples were taken, in words
  int launches_per_sample = 1;            // batch mode times this many launches per event pair
  int warmup = 0;                         // warm-up launches of each kernel
  int input_sets = 1;                     // input sets the timed launches rotated among
  double input_set_bytes = 0.0;           // bytes of one set (inputs and in-place buffers)
  sample_stats optimized;                 // seconds per launch
  std::optional<sample_stats> reference;  // absent for a host reference
  double optimized_precision = 0.0;       // half-width of the median's 95% interval, relative
  double reference_precision = 0.0;
  bool precise = false;                   // sampling stopped because both medians were known well enough
  double speedup = std::numeric_limits<double>::quiet_NaN();  // reference median / optimized median
  interval speedup_interval;              // 95%, paired bootstrap
  std::string verdict;                    // "faster", "slower", "no significant difference" ("" without reference)
  double idle_wait = 0.0;                 // median wait for the device after each sample's last event
  double latency = 0.0;                   // one cold launch of the optimized kernel, less the event-pair floor
  double launch_wall = 0.0;               // host time of one launch on an idle device until it is idle again
  work_model work;
  perf_expectations expectations;
  std::vector<std::string> flags;         // implausible, dishonest-looking or short of a requirement: fails
  std::vector<std::string> notes;         // worth knowing, not failing
};

// Everything kbench learned about one case at one shape.
struct case_record {
  std::string case_name;
  kbench::shape shape;
  std::string verdict = "error";  // "pass", "fail", "skipped" (no GPU), "filtered" (--max-elements) or "error"
  std::string message;            // why it was skipped, failed outside a comparison, or refused timing
  std::vector<seed_result> checks;
  std::optional<timing_result> timing;
  double wall_seconds = 0.0;  // from the start of this case's test to its end, checks included
};

// What the timing methods report for (next to) no work on this device (measure.hpp).
struct timer_floor {
  double events_only = 0.0;         // an event pair with nothing between (median seconds)
  double empty_kernel = 0.0;        // an empty kernel between an event pair, queued behind a spin
  double empty_kernel_batch = 0.0;  // per launch, in a graph of 100 empty launches
  double empty_launch_wall = 0.0;   // host time to launch an empty kernel on an idle device and see it finish
};

// What timings are judged against, measured once per program: the copy bandwidth and the timer floor.
struct device_ceilings {
  copy_bandwidth copy;
  kbench::timer_floor floor;
  double seconds = 0.0;  // host time the two measurements took
};

struct run_record {
  std::string mode;  // "correctness" or "perf"
  std::string kbench_version;
  std::string compiler;
  gpu_info device;
  int warmup = 0;
  int iterations = 0;
  std::optional<copy_bandwidth> copy;              // perf runs
  std::optional<kbench::timer_floor> timer_floor;  // perf runs
  double ceilings_seconds = 0.0;                   // host time measuring the two, once per program
  std::deque<case_record> cases;  // a deque: references to a record stay valid while others are added
};

}  // namespace kbench
