// Writes the perf results shipped in tests/data/ (what kbench-compare and kbench-plot.py are tested on):
//   results.json         rmsnorm over cols = 1024..65536 (x2) at rows = 4096, and softmax at one shape
//   results-slower.json  the same run with rmsnorm/rows=4096/cols=16384's optimized kernel 1.3x slower
// Made-up but plausible numbers for an H200 (time = launch overhead + bytes / bandwidth, 0.4% noise and
// rare outliers), serialised by kbench::to_json itself, so they are "kbench-results/1" documents.
// Deterministic: regenerate with `kbench_make_test_results tests/data` (built in the tests folder).
#include <kbench/reports/json_report.hpp>
#include <kbench/decisions/judge.hpp>
#include <kbench/version.hpp>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr double copy_bytes_per_second = 4.0e12;
constexpr double read_bytes_per_second = 4.4e12;
// An H200's vector-unit peaks, as compute_peak.hpp measures them (the datasheet: 33.5, 66.9, 133.8 TFLOP/s).
const std::vector<kbench::compute_peak> peaks = {{kbench::dtype::f64, 33.0e12, "fp64 FMA"},
                                                 {kbench::dtype::f32, 66.0e12, "fp32 FMA"},
                                                 {kbench::dtype::f16, 131.0e12, "packed fp16 FMA (two a lane)"},
                                                 {kbench::dtype::bf16, 131.0e12, "packed bf16 FMA (two a lane)"}};

// Noise with only + and *: the same numbers on every platform (std::normal_distribution is not).
class noise {
 public:
  explicit noise(std::uint64_t seed) : rng_(seed) {}
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1p-53; }
  // Near 1: roughly normal with a 0.4% spread, one sample in 25 is 3% slow.
  double factor() {
    const double z = (uniform() + uniform() + uniform() + uniform() - 2.0) / 0.57735;
    return (1.0 + 0.004 * z) * (uniform() < 0.04 ? 1.03 : 1.0);
  }

 private:
  std::mt19937_64 rng_;
};

// `calls_per_layer`: as the case declares it (0: not declared).
kbench::timing_result timing(double optimized_seconds, double reference_seconds, double bytes, double flops,
                             int samples, noise& n, double calls_per_layer = 0.0) {
  kbench::timing_result t;
  const bool batch = optimized_seconds < 10e-6;  // what --timing auto picks
  t.mode = batch ? kbench::timing_mode::batch : kbench::timing_mode::cold;
  t.launches_per_sample = batch ? 100 : 1;
  t.method = batch ? "batch: a graph of 100 launches per event pair, time per launch; hot caches; reference and "
                     "optimized interleaved"
                   : "cold: a 256 MiB read evicts the caches before each launch; one launch per event pair; "
                     "reference and optimized interleaved";
  t.warmup = 10;
  t.input_sets = t.input_sets_wanted = t.launches_per_sample;
  t.input_set_bytes = bytes / 2;
  for (int i = 0; i < samples; ++i) {  // back to back in each sample, as kbench takes them
    t.reference_samples.push_back(reference_seconds * n.factor());
    t.optimized_samples.push_back(optimized_seconds * n.factor());
  }
  t.optimized = kbench::summarize(t.optimized_samples);
  t.reference = kbench::summarize(t.reference_samples);
  t.precision_target = 0.005;
  t.optimized_precision = kbench::median_relative_precision(t.optimized_samples);
  t.reference_precision = kbench::median_relative_precision(t.reference_samples);
  t.precise = t.optimized_precision <= 0.005 && t.reference_precision <= 0.005;
  t.speedup = t.reference->median / t.optimized.median;
  t.speedup_interval = kbench::ratio_of_medians_interval(t.reference_samples, t.optimized_samples);
  t.verdict = kbench::judge_speedup(t.speedup_interval);
  t.idle_wait = 1.2e-6;
  t.single_launch = optimized_seconds + 2.0e-6;
  t.fresh_launch = t.seen_launch = t.single_launch;
  t.latency = t.single_launch - 1.5e-6;
  t.launch_wall = t.single_launch + 6e-6;
  if (batch) t.reference_graph_operations = t.optimized_graph_operations = 100;
  t.work.bytes = bytes;
  t.work.flops = flops;
  t.work.calls_per_layer = calls_per_layer;
  t.throughput = kbench::throughput_of(t.work, t.optimized.median, t.reference->median, copy_bytes_per_second);
  kbench::roofline_ceilings ceilings;
  ceilings.memory_bytes_per_second = read_bytes_per_second;
  ceilings.peak = kbench::peak_for(peaks, kbench::dtype::f32);
  ceilings.memory_binds = !batch && bytes > 2 * 60e6;
  t.roofline = kbench::roofline_of(t.work, ceilings, t.optimized.median, t.reference->median);
  t.saved = kbench::time_saved_of(t.work, t.optimized.median, t.reference->median, t.optimized_samples,
                                  t.reference_samples);
  return t;
}

void add_case(kbench::run_record& run, const std::string& name, kbench::shape shape, kbench::timing_result t) {
  kbench::case_record& c = run.cases.emplace_back();
  c.case_name = name;
  c.shape = std::move(shape);
  c.verdict = kbench::case_verdict::pass;
  c.message = "";
  c.wall_seconds = 0.4 + 1e3 * t.optimized.median;
  c.timing = std::move(t);
}

// One run; `slow_cols`'s optimized kernel takes `slowdown` times as long.
kbench::run_record make_run(std::int64_t slow_cols, double slowdown) {
  kbench::run_record run;
  run.mode = kbench::run_mode::perf;
  run.kbench_version = kbench::version;
  run.compiler = "nvcc 12.6.85, host gcc 12.2.0";
  run.device.usable = true;
  run.device.platform = "nvidia";
  run.device.name = "NVIDIA H200";
  run.device.arch = "sm_90";
  run.device.multiprocessors = 132;
  run.device.wave_size = 32;
  run.device.memory_bytes = 150e9;
  run.device.l2_bytes = 60e6;
  run.device.open_seconds = 0.21;
  run.warmup = 10;
  run.warmup_time = 0.02;
  run.iterations = 100;
  kbench::copy_bandwidth copy;
  copy.bytes_per_second = copy_bytes_per_second;
  copy.read_bytes_per_second = read_bytes_per_second;
  copy.buffer_bytes = std::size_t{1} << 30;
  copy.seconds = kbench::summarize({5.36e-4, 5.37e-4, 5.37e-4, 5.39e-4});
  run.copy = copy;
  kbench::timer_floor floor;
  floor.events_only = 2.1e-6;
  floor.empty_kernel = 3.4e-6;
  floor.empty_kernel_batch = 1.1e-6;
  floor.empty_launch_wall = 9.5e-6;
  run.timer_floor = floor;
  run.compute_peaks = peaks;
  run.ceilings_seconds = 0.31;
  noise n(0x6b62656e6368ull);  // the same draws for both files: only the slowed case differs
  const std::int64_t rows = 4096;
  for (std::int64_t cols = 1024; cols <= 65536; cols *= 2) {
    const double bytes = 2.0 * (2.0 * rows * cols + cols);  // fp16 x and y, and w
    const bool batch = bytes / 3.3e12 + 2.5e-6 < 10e-6;
    const double overhead = batch ? 0.4e-6 : 2.5e-6;       // back to back, launches hide most of it
    const double optimized = (overhead + bytes / 3.3e12) * (cols == slow_cols ? slowdown : 1.0);
    add_case(run, "rmsnorm", {{"rows", rows}, {"cols", cols}},
             timing(optimized, overhead + bytes / 2.1e12, bytes, 4.0 * rows * cols, 100 + static_cast<int>(cols % 97), n,
                    2.0));  // two rmsnorms per transformer layer
  }
  const double bytes = 2.0 * 2.0 * 8192 * 4096;
  add_case(run, "softmax", {{"rows", 8192}, {"cols", 4096}}, timing(2.5e-6 + bytes / 3.1e12, 2.5e-6 + bytes / 2.0e12,
                                                                     bytes, 5.0 * 8192 * 4096, 120, n));
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FOLDER  (writes results.json and results-slower.json there)\n", argv[0]);
    return 2;
  }
  const std::string folder = std::string(argv[1]) + "/";
  try {
    kbench::write_json(make_run(0, 1.0), folder + "results.json");
    kbench::write_json(make_run(16384, 1.3), folder + "results-slower.json");
  } catch (const kbench::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::printf("wrote %sresults.json and %sresults-slower.json\n", folder.c_str(), folder.c_str());
  return 0;
}
