// kbench/results/results.hpp: what a run found, as plain data: the report, the JSON file and the exit status are
// all made from these. HIP-free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../contract/declaration.hpp"
#include "../contract/dtype.hpp"
#include "../contract/shape.hpp"
#include "census.hpp"
#include "clocks.hpp"
#include "comparison_result.hpp"
#include "outcome.hpp"
#include "roofline.hpp"
#include "statistics.hpp"
#include "throughput.hpp"
#include "time_saved.hpp"

namespace kbench {

// Host seconds of each step of a procedure, in order: ("first check", 0.05), ("sampling", 1.2)...
using stage_times = std::vector<std::pair<std::string, double>>;

// The GPU the program runs on, or why there is none.
struct gpu_info {
  bool usable = false;
  std::string reason;  // when not usable
  int device = 0;        // the ordinal among the devices this process sees
  std::string assigned_by;  // --device / KBENCH_DEVICE, a CTest resource group, or the default
  std::string pci_bus_id;  // which physical device that is ("0000:19:00.0"), whatever the visible-devices mapping
  std::string platform;  // "amd" or "nvidia"
  std::string name;
  std::string arch;
  int multiprocessors = 0;
  int wave_size = 0;
  double memory_bytes = 0.0;
  double l2_bytes = 0.0;
  double highest_clock_hz = 0.0;  // the SM clock the runtime gives as the device's peak (0: unknown)
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

// Both sides against the oracle (kernel_case::oracle): the share of elements that are not the correctly
// rounded value, and the most units of the dtype apart.
struct oracle_result {
  double reference_inexact = 0.0;
  double optimized_inexact = 0.0;
  std::uint64_t reference_max_ulps = 0;
  std::uint64_t optimized_max_ulps = 0;
  double allowed_inexact = 0.0;  // max_ratio x the reference's share + 0.1%
};

struct output_result {
  std::string name;
  dtype type = dtype::f32;
  std::vector<std::size_t> extents;
  comparison result;
  std::optional<oracle_result> oracle;
};

// Where a host reference's time went: bringing the inputs to the host as double, and the function.
struct host_run {
  double input_bytes = 0.0;  // as the device holds them
  double transfer_seconds = 0.0;
  double compute_seconds = 0.0;
};

// Whether a correctness run passed: every output agreed, and nothing that fails was found.
[[nodiscard]] inline bool run_passed(const std::vector<finding>& problems, const std::vector<output_result>& outputs) {
  if (any_failing(problems) || outputs.empty()) return false;
  return std::all_of(outputs.begin(), outputs.end(), [](const output_result& o) { return o.result.passed; });
}

// One correctness run: one seed, every output.
struct seed_result {
  std::uint64_t seed = 0;
  std::optional<host_run> host_reference;  // with a host reference
  std::vector<finding> problems;  // the test, the reference or the harness contract broken; and notes
  std::vector<output_result> outputs;
  int edge_runs = 0;  // runs on inputs at the edges of their values (procedure/edge_check.hpp)
  int spike_runs = 0;  // runs with spikes in an input or another family (procedure/spike_check.hpp)
  stage_times stage_seconds;  // host seconds of each step of the run (procedure/correctness_run.hpp)
  [[nodiscard]] bool passed() const { return run_passed(problems, outputs); }
};

// The timed launches checked against the reference's outputs on the same inputs, each chosen at random
// once its sample had run (timing_run.hpp).
struct launch_checks {
  long long timed = 0;    // timed launches of the optimized kernel
  long long checked = 0;  // of them, compared with the reference on the same inputs
  // The smallest share of wrong launches found with 99% probability, 1 - 0.01^(1/checked): for a kernel
  // that is wrong on that share of its timed launches, the chance that none of `checked` launches drawn
  // uniformly at random among them is one is at most 1% (NaN: none checked).
  double smallest_share_caught = std::numeric_limits<double>::quiet_NaN();
  std::string limit;  // why only some launches could be checked (empty: any could be)
};

// What a timing run measured (procedure/timing_run.hpp), assembled once at its end; no conclusion drawn.
struct timing_measurements {
  timing_mode mode = timing_mode::cold;   // cold, hot or batch (never automatic)
  std::string method;                     // how the samples were taken, in words
  int launches_per_sample = 1;            // batch mode times this many launches per event pair
  int warmup = 0;                         // warm-up launches of each kernel
  int input_sets = 1;                     // input sets drawn anew before every sample
  int input_sets_wanted = 1;              // what the options asked for (more than input_sets: memory ran short)
  double input_set_bytes = 0.0;           // bytes of one set (inputs and in-place buffers)
  sample_stats optimized;                 // seconds per launch
  std::optional<sample_stats> reference;  // absent for a host reference
  std::vector<double> optimized_samples;  // every sample, in the order taken (seconds per launch): what a
  std::vector<double> reference_samples;  // later run is compared with (baseline.hpp); empty: host reference
  double precision_target = 0.0;          // the options' precision: stop when both medians are known this well
  double optimized_precision = 0.0;       // half-width of the median's 95% interval, relative
  double reference_precision = 0.0;
  bool precise = false;                   // sampling stopped because both medians were known well enough
  double speedup = std::numeric_limits<double>::quiet_NaN();  // reference median / optimized median
  interval speedup_interval;              // 95%, paired bootstrap
  double idle_wait = 0.0;                 // median wait for the device after each sample's last event
  double single_launch = 0.0;             // one cold launch of the optimized kernel on the timed stream
  double fresh_launch = 0.0;              // median cold launch on inputs drawn just before it
  double seen_launch = 0.0;               // median cold launch on the inputs of the launch just before it
  double latency = 0.0;                   // single_launch less the event-pair floor
  double hot_latency = 0.0;               // median hot launch (caches warm, behind a spin) less that floor
  double launch_wall = 0.0;               // host time of one launch on an idle device until it is idle again
  double launch_call = 0.0;               // ...of which the launch function's call (its host work, any wait in it)
  double saturated_call = 0.0;            // the call while every compute unit is kept busy on another stream
  double saturation = 0.0;                // for that long (0: not measured; unseen_work.hpp says when)
  // Batch mode through a graph: operations captured for launches_per_sample launches (-1: no graph).
  long long reference_graph_operations = -1;
  long long optimized_graph_operations = -1;
  work_model work;                        // the case's declared work and expectations, as the run was told them
  perf_expectations expectations;
  launch_checks checks;                   // the timed launches checked against the reference
  sample_clocks clocks;                   // the SM clock over each sample, and the samples left out as throttled
  // What the run met while measuring (a checked launch that was wrong, the audit's, throttled samples, notes
  // on how the samples were taken); the judgement lists them first among the timing's findings.
  std::vector<finding> found;
  // Host seconds of each step of the timing run (warm-up, sampling, audit...), in order; the perf
  // procedure's whole list, checks and census included, is perf_outcome's (and case_record's).
  stage_times stage_seconds;
};

// What the measurements of a timing mean (decisions/judge.hpp's judge_timing): the figures of the declared
// work, the time saved, the speedup's verdict, and every finding, the run's own first; each but a note fails
// the perf test.
struct timing_judgement {
  throughput_figures throughput;
  kbench::roofline roofline;  // the work against the device's ceilings
  std::optional<time_saved> saved;  // per call, layer and token; absent without a device reference
  speedup_verdict verdict = speedup_verdict::none;
  std::vector<finding> findings;
};

// A timing as every writer reads it: its measurements and their judgement, put together once
// (timing_result{measured, judge_timing(measured, context)}) and only read afterwards.
struct timing_result : timing_measurements, timing_judgement {
  [[nodiscard]] bool flagged() const { return any_failing(findings); }
};

// Everything kbench learned about one case at one shape.
struct case_record {
  std::string case_name;
  kbench::shape shape;
  std::optional<kbench::shape> near_shape;  // the declared shape this one is near (decisions/nearby_shapes.hpp)
  case_verdict verdict = case_verdict::error;
  std::string message;            // why it was skipped, failed outside a comparison, or refused timing
  std::vector<seed_result> checks;
  std::optional<timing_result> timing;
  std::optional<case_census> census;  // perf and census runs of a correct kernel
  stage_times stage_seconds;          // perf runs: host seconds of each step of the perf procedure
  double wall_seconds = 0.0;  // from the start of this case's test to its end, checks included
  // The GPUs the case ran on (logical device d on devices[d]; one for most cases), whether two of them
  // were one GPU (--share-devices), and whether every pair of distinct GPUs had peer access.
  std::vector<int> devices;
  bool devices_shared = false;
  bool peer_access = false;
  // The declaration at this shape as canonical lines (contract/declaration_digest.hpp): the JSON carries
  // them and their digest, so that a comparison sees a test that changed; empty when it could not be read.
  std::vector<std::string> declaration;
};

// What the timing methods report for (next to) no work on this device (measure.hpp).
struct timer_floor {
  double events_only = 0.0;         // an event pair with nothing between (median seconds)
  double empty_kernel = 0.0;        // an empty kernel between an event pair, queued behind a spin
  double empty_kernel_batch = 0.0;  // per launch, in a graph of 100 empty launches
  double empty_launch_wall = 0.0;   // host time to launch an empty kernel on an idle device and see it finish
};

// What timings are judged against, measured once per program: the copy bandwidth, the timer floor and the
// arithmetic peaks.
struct device_ceilings {
  copy_bandwidth copy;
  kbench::timer_floor floor;
  std::vector<compute_peak> compute;  // f64, f32, f16, bf16
  kbench::clock_control clock_setting;  // read right after them, with the device still at its working clock
  double seconds = 0.0;  // host time the measurements took
};

// What `<program> perf` does for one case at one shape: a correctness run, the timing, the census, and a
// second correctness run with another seed; each step's own result, as the step returned it, and the host
// seconds of every step. The timing is absent when the first run fails (a wrong kernel is never timed).
struct perf_outcome {
  seed_result before;
  std::optional<timing_result> timing;
  std::optional<case_census> census;
  std::optional<seed_result> after;
  stage_times stage_seconds;  // the first check, the timing run's steps, the census, the second check
  [[nodiscard]] bool passed() const { return failure().empty(); }
  // Why the perf test fails, in one line; empty when it passes.
  [[nodiscard]] std::string failure() const {
    if (!before.passed()) return "refusing to time a kernel that is not correct (report above)";
    if (!timing) return "not timed";
    for (const sourced_finding& f : findings()) {
      if (f.fails() && f.source != finding_source::check) return f.text;
    }
    if (!after || !after->passed()) return "the optimized kernel was correct before timing and wrong after it (report above)";
    return {};
  }
  // Every finding of every step, in the order of the steps, each once and with its source.
  [[nodiscard]] std::vector<sourced_finding> findings() const {
    std::vector<sourced_finding> all;
    auto add = [&all](const std::vector<finding>& found, finding_source source) {
      for (const finding& f : found) all.push_back({f, source});
    };
    add(before.problems, finding_source::check);
    if (timing) add(timing->findings, finding_source::timing);
    if (census) add(census->findings, finding_source::census);
    if (after) add(after->problems, finding_source::check);
    return all;
  }
};

struct run_record {
  run_mode mode = run_mode::correctness;
  std::string kbench_version;
  std::string compiler;
  bool optimized_build = true;  // the GPU translation unit was compiled with optimization (__OPTIMIZE__)
  gpu_info device;
  int warmup = 0;
  double warmup_time = 0.0;
  int iterations = 0;
  std::optional<copy_bandwidth> copy;              // perf runs
  std::optional<kbench::timer_floor> timer_floor;  // perf runs
  std::vector<compute_peak> compute_peaks;         // perf runs
  std::optional<kbench::clock_control> clock_setting;  // perf runs
  double ceilings_seconds = 0.0;                   // host time measuring the three, once per program
  bool quick = false;  // --quick: the extended checks were skipped
  // Whether the program ran to its end and decided its status: a supervising parent that saw its child end
  // early records the run as incomplete, with the reason (program/supervisor.hpp).
  bool complete = true;
  std::optional<std::string> incomplete_reason;
  // Whether its cases carry their declarations and their kernels' digests: a run kbench made does (each case
  // that has them); a document of a kbench before them lacks their keys (json_read.hpp), and a comparison with
  // a baseline sees no change where one run could not carry it.
  bool declarations_carried = true;
  bool kernels_digests_carried = true;
  std::deque<case_record> cases;  // a deque: references to a record stay valid while others are added
};

}  // namespace kbench
