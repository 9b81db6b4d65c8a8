// kbench/runner.hpp: the procedure behind every verdict. For one registered case at one shape:
//
//   check(seed): draw fresh inputs on the device; poison the optimized outputs and run the optimized
//     kernel, then the same for the reference (in that order, so the reference's outputs for these inputs
//     do not exist while the optimized kernel runs); after each, check the guard regions and that no input
//     changed; prove the test has teeth (the tolerance must reject an unwritten output, an all-zero
//     output, the reference perturbed beyond tolerance, and an in-place buffer left as drawn); compare
//     every output (on the GPU when large).
//   measure(): only after a passing check; warm-up, then reference and optimized launches interleaved in
//     the chosen timing mode (measure.hpp), rotating among input sets, until the medians are known well
//     enough; a last sample on poisoned outputs, checked against the reference on the same inputs, with
//     the guards and every input set; latency, speedup with its interval, and flags for whatever looks
//     implausible or escaped the timed stream. The caller then checks again with another seed, so a
//     kernel that is right only before timing fails.
//
// Compiled once per program (it is included by kbench/main.hpp), not by every test file.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "comparison.hpp"
#include "compare.hpp"
#include "device_buffer.hpp"
#include "device_compare.hpp"
#include "integrity.hpp"
#include "measure.hpp"
#include "options.hpp"
#include "random.hpp"
#include "report.hpp"
#include "results.hpp"
#include "statistics.hpp"
#include "timing.hpp"

namespace kbench {

namespace detail {

inline gpu_info probe_gpu(int device) {
  gpu_info g;
  g.device = device;
  g.platform = KBENCH_PLATFORM_NAME;
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess) {
    (void)hipGetLastError();
    g.reason = fmt::format("no GPU: hipGetDeviceCount reports {} ({})", hipGetErrorName(status), hipGetErrorString(status));
    return g;
  }
  if (count == 0) {
    g.reason = "no GPU: hipGetDeviceCount found 0 devices";
    return g;
  }
  if (device >= count) {
    g.reason = fmt::format("GPU {} was asked for, but only {} present", device, count);
    return g;
  }
  KBENCH_HIP_CHECK(hipSetDevice(device));
  KBENCH_HIP_CHECK(hipFree(nullptr));  // opens the device now, so that open_seconds holds all of it
  hipDeviceProp_t prop{};
  KBENCH_HIP_CHECK(hipGetDeviceProperties(&prop, device));
  g.usable = true;
  g.platform = KBENCH_PLATFORM_NAME;
  g.name = prop.name;
  g.l2_bytes = static_cast<double>(prop.l2CacheSize);
#if defined(KBENCH_PLATFORM_NVIDIA)
  g.arch = fmt::format("sm_{}{}", prop.major, prop.minor);
#else
  g.arch = prop.gcnArchName;
#endif
  g.multiprocessors = prop.multiProcessorCount;
  g.wave_size = prop.warpSize;
  g.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  return g;
}

}  // namespace detail

// Probed once, on first use inside a test (never before: a missing GPU skips each test, it does not
// abort the program).
inline const gpu_info& gpu(int device) {
  static const gpu_info probed = [device] {
    const auto start = std::chrono::steady_clock::now();
    gpu_info g = detail::probe_gpu(device);
    g.open_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return g;
  }();
  return probed;
}

// Copies a buffer of up to 1 GiB (a quarter of the free memory at most) 5 times untimed, then 20 times
// timed by event pairs; the median gives the rate.
[[nodiscard]] inline copy_bandwidth measure_copy_bandwidth() {
  std::size_t free_bytes = 0, total_bytes = 0;
  KBENCH_HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4) / 256 * 256;
  device_allocation source(bytes), destination(bytes);
  KBENCH_HIP_CHECK(hipMemset(source.data(), 0x3C, bytes));
  kbench::stream s;
  event start, stop;
  std::vector<double> seconds;
  for (int i = 0; i < 25; ++i) {
    start.record(s.get());
    KBENCH_HIP_CHECK(hipMemcpyAsync(destination.data(), source.data(), bytes, hipMemcpyDeviceToDevice, s.get()));
    stop.record(s.get());
    stop.synchronize();
    if (i >= 5) seconds.push_back(stop.seconds_since(start));
  }
  copy_bandwidth c;
  c.buffer_bytes = bytes;
  c.seconds = summarize(seconds);
  c.bytes_per_second = 2.0 * static_cast<double>(bytes) / c.seconds.median;
  // Reading alone (a read-only kernel can beat the copy: no writes share the bus).
  int multiprocessors = 0, device = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  KBENCH_HIP_CHECK(hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, device));
  std::vector<double> reads;
  auto* words = static_cast<const uint4*>(source.data());
  for (int i = 0; i < 25; ++i) {
    start.record(s.get());
    hipLaunchKernelGGL(detail::flush_kernel<>, dim3(static_cast<unsigned int>(8 * multiprocessors)), dim3(256), 0, s.get(),
                       words, bytes / 16 - 1, static_cast<unsigned int*>(destination.data()));
    KBENCH_HIP_CHECK_LAUNCH();
    stop.record(s.get());
    stop.synchronize();
    if (i >= 5) reads.push_back(stop.seconds_since(start));
  }
  c.read_bytes_per_second = static_cast<double>(bytes - 16) / summarize(reads).median;
  return c;
}

// The copy bandwidth and the timer floor of the current device, measured once per program on first use.
[[nodiscard]] inline const device_ceilings& measured_ceilings() {
  static const device_ceilings measured = [] {
    const auto start = std::chrono::steady_clock::now();
    device_ceilings c;
    c.copy = measure_copy_bandwidth();
    c.floor = measure_timer_floor();
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c;
  }();
  return measured;
}

namespace detail {

// A host array of any dtype, as raw bytes.
struct host_array {
  dtype type = dtype::f32;
  std::vector<unsigned char> bytes;
  [[nodiscard]] array_view view(std::size_t size, const std::vector<std::size_t>& extents) const {
    return {bytes.data(), type, size, extents};
  }
};

inline constexpr std::uint64_t host_reference_sentinel = 0x7FF4BADB7FF4BADBull;  // a NaN no arithmetic makes

// How far the teeth probe moves an element with expected value e: well beyond every element rule (8x
// its bound), at least a quarter of the value plus one so rounding to the dtype cannot undo it; with only
// aggregate rules, far enough to outweigh the whole output (`aggregate`).
__host__ __device__ inline double perturbation(double e, const element_rule* rules, int rule_count, int mantissa_bits,
                                               double aggregate) {
  double delta = rule_count == 0 ? aggregate : 0.0;
  for (int k = 0; k < rule_count; ++k) {
    double bound = rules[k].atol + rules[k].rtol * fabs(e);
    if (rules[k].rule == element_rule::kind::ulp) {
      bound = ldexp(fabs(e) + 1.0, -mantissa_bits) * static_cast<double>(rules[k].max_ulps + 1);
    }
    delta = fmax(delta, 8.0 * bound);
  }
  return fmax(delta, fabs(e) * 0.25 + 1.0);
}

template <class T>
__device__ inline double element_value(T v) {
  if constexpr (std::is_same_v<T, double> || std::is_integral_v<T>) {
    return static_cast<double>(v);
  } else {
    return static_cast<double>(to_float(v));
  }
}

// The device version of perturbed_probe(): `count` evenly spaced elements of `data` moved in place.
template <class T, int MaxRules = 4>
__global__ void perturb_kernel(T* data, std::size_t size, std::size_t count, element_rule r0, element_rule r1,
                               element_rule r2, element_rule r3, int rule_count, int mantissa_bits, double aggregate) {
  const element_rule rules[MaxRules] = {r0, r1, r2, r3};
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < count;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t i = static_cast<std::size_t>(static_cast<double>(k) * static_cast<double>(size) / static_cast<double>(count));
    const double e = element_value(data[i]);
    const double delta = perturbation(e, rules, rule_count, mantissa_bits, aggregate);
    // Up, unless that saturates (the largest int8 code, 448 in fp8) or overflows: then down.
    T moved = sample_cast<T>(e + delta);
    const double up = element_value(moved);
    if (!isfinite(up) || up == e) moved = sample_cast<T>(e - delta);
    data[i] = moved;
  }
}

inline void perturb_on_device(void* data, dtype t, std::size_t size, std::size_t count, const tolerance& tol,
                              double aggregate, hipStream_t stream) {
  element_rule r[4] = {};
  const int n = static_cast<int>(std::min<std::size_t>(tol.element_rules.size(), 4));
  for (int k = 0; k < n; ++k) r[k] = tol.element_rules[static_cast<std::size_t>(k)];
  const int mantissa = info(t).mantissa_bits;
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    hipLaunchKernelGGL(perturb_kernel<T>, dim3(256), dim3(256), 0, stream, static_cast<T*>(data), size, count, r[0], r[1],
                       r[2], r[3], n, mantissa, aggregate);
    KBENCH_HIP_CHECK_LAUNCH();
  };
  switch (t) {
    case dtype::f64: launch(double{}); break;
    case dtype::f32: launch(float{}); break;
    case dtype::f16: launch(fp16_t{}); break;
    case dtype::bf16: launch(bf16_t{}); break;
    case dtype::f8e4m3: launch(fp8_e4m3{}); break;
    case dtype::i8: launch(std::int8_t{}); break;
    case dtype::u8: launch(std::uint8_t{}); break;
    case dtype::i16: launch(std::int16_t{}); break;
    case dtype::u16: launch(std::uint16_t{}); break;
    case dtype::i32: launch(std::int32_t{}); break;
    case dtype::u32: launch(std::uint32_t{}); break;
    case dtype::i64: launch(std::int64_t{}); break;
    case dtype::u64: launch(std::uint64_t{}); break;
  }
}

// Expected values perturbed "well beyond" the tolerance at just more elements than it lets mismatch.
inline host_array perturbed_probe(const host_array& expected, dtype out_type, std::size_t size, const tolerance& tol,
                                  std::size_t allowed) {
  host_array probe{out_type, {}};
  if (expected.type == out_type) {
    probe.bytes = expected.bytes;
  } else {
    probe.bytes.resize(size * info(out_type).size);
    for (std::size_t i = 0; i < size; ++i) {
      store_from_double(probe.bytes.data(), out_type, i, load_as_double(expected.bytes.data(), expected.type, i));
    }
  }
  double norm = 0.0;
  if (tol.element_rules.empty()) {  // only aggregate rules: one element must outweigh the whole output
    for (std::size_t i = 0; i < size; ++i) {
      const double e = load_as_double(probe.bytes.data(), out_type, i);
      if (std::isfinite(e)) norm += e * e;
    }
  }
  const std::size_t count = std::min(size, allowed + 1);
  const double aggregate = 2.0 * std::sqrt(norm) + 1.0;
  for (std::size_t k = 0; k < count; ++k) {
    const auto i = static_cast<std::size_t>(static_cast<double>(k) * static_cast<double>(size) / static_cast<double>(count));
    const double e = load_as_double(probe.bytes.data(), out_type, i);
    const double delta = perturbation(e, tol.element_rules.data(), static_cast<int>(tol.element_rules.size()),
                                      info(out_type).mantissa_bits, aggregate);
    // Up, unless that saturates (the largest int8 code, 448 in fp8) or overflows: then down.
    store_from_double(probe.bytes.data(), out_type, i, e + delta);
    const double up = load_as_double(probe.bytes.data(), out_type, i);
    if (!std::isfinite(up) || up == e) store_from_double(probe.bytes.data(), out_type, i, e - delta);
  }
  return probe;
}

// A registered case instantiated at one shape, with its device memory.
class case_instance {
 public:
  case_instance(const case_registration& registration, const kbench::shape& s) : case_(registration.name(), s) {
    registration.function()(case_);
    case_.validate();
    const auto& buffers = case_.buffers();
    for (std::size_t id = 0; id < buffers.size(); ++id) {
      buffer_slot* slot = buffers[id].get();
      const std::size_t bytes = slot->size * info(slot->type).size;
      if (slot->role == buffer_role::input) {
        inputs_.push_back({slot, checked_input(bytes), id, {}, {}});
      } else {
        outputs_.push_back({slot, guarded_output(bytes), guarded_output(bytes), {}, false, {},
                            device_allocation(slot->role == buffer_role::inout ? bytes : 0), id, {}});
      }
    }
  }

  [[nodiscard]] const kernel_case& declaration() const { return case_; }
  [[nodiscard]] bool has_device_reference() const { return static_cast<bool>(case_.device_reference()); }

  // One correctness run at `seed`. `probe_teeth` also proves that the tolerance can fail.
  [[nodiscard]] seed_result check(std::uint64_t seed, bool probe_teeth) {
    seed_result r;
    r.seed = seed;
    draw_inputs(seed);
    // The optimized kernel first: the reference's outputs for these inputs do not exist yet, so a kernel
    // that copies them (from a pointer kept from an earlier launch) is caught.
    run_side(case_.optimized_launch(), side::optimized, r.problems);
    if (has_device_reference()) {
      run_device_reference(r.problems);
    } else {
      run_host_reference(r.problems);
    }
    if (probe_teeth) check_teeth(r.problems);
    for (output_memory& out : outputs_) {
      r.outputs.push_back({out.slot->name, out.slot->type, out.slot->extents, compare_output(out)});
    }
    return r;
  }

  // Times the reference and the optimized kernel, interleaved, as the options say (see measure.hpp):
  // warm-up by count and by time, the timing mode (automatic: cold, or batch for kernels shorter than
  // batch_below_us), then samples until both medians are known to `precision` (never fewer than
  // `iterations`), or until max_time or max_iterations. Consecutive launches rotate among input sets, and
  // the last sample, run on poisoned outputs, is verified against the reference on the same inputs.
  // Flags what looks implausible or dishonest.
  [[nodiscard]] timing_result measure(const run_options& o, const gpu_info& g, const copy_bandwidth& ceiling,
                                      const timer_floor& floor) {
    using clock = std::chrono::steady_clock;
    timing_result t;
    t.warmup = o.warmup;
    t.work = case_.work();
    t.expectations = case_.expectations();
    const bool with_reference = has_device_reference();
    const hipStream_t s = stream_.get();
    const spinner spin(s);
    const int sets = draw_rotation(o, g, t);

    const auto warm_start = clock::now();
    for (int i = 0; i < o.warmup || std::chrono::duration<double>(clock::now() - warm_start).count() < o.warmup_time;
         ++i) {
      restore_in_place(side::reference, i % sets);
      restore_in_place(side::optimized, i % sets);
      if (with_reference) launch_bound(case_.device_reference(), side::reference, i % sets);
      launch_bound(case_.optimized_launch(), side::optimized, i % sets);
      stream_.synchronize();
    }

    // A pilot of a few hot samples decides the automatic mode and the batch size.
    std::vector<double> pilot;
    for (int i = 0; i < 5; ++i) {
      restore_in_place(side::optimized);
      spin.enqueue(s, 20e-6);
      start_.record(s);
      launch_bound(case_.optimized_launch(), side::optimized);
      stop_.record(s);
      stop_.synchronize();
      pilot.push_back(stop_.seconds_since(start_));
    }
    const double pilot_median = summarize(pilot).median;
    timing_mode mode = o.timing;
    if (mode == timing_mode::automatic) mode = pilot_median < o.batch_below_us * 1e-6 ? timing_mode::batch : timing_mode::cold;

    std::optional<cache_flush> flush;
    std::optional<launch_graph> reference_graph, optimized_graph;
    int per_sample = 1;
    if (mode == timing_mode::cold) {
      flush.emplace(flush_bytes(o, g), std::max(g.multiprocessors, 1));
      t.mode = "cold";
      t.method = fmt::format("cold: a {} MiB read evicts the caches before each launch; one launch per event pair; "
                             "reference and optimized interleaved",
                             flush->bytes() >> 20);
    } else if (mode == timing_mode::hot) {
      t.mode = "hot";
      t.method = "hot: no cache flush; one launch per event pair, queued behind a 20 us spin kernel; reference and "
                 "optimized interleaved";
    } else {
      per_sample = static_cast<int>(std::clamp(std::ceil(200e-6 / std::max(pilot_median, 1e-7)), 16.0, 4096.0));
      t.mode = "batch";
      try {
        if (with_reference) {
          reference_graph.emplace(
              s, [&](int i) { launch_bound(case_.device_reference(), side::reference, i % sets); }, per_sample);
        }
        optimized_graph.emplace(
            s, [&](int i) { launch_bound(case_.optimized_launch(), side::optimized, i % sets); }, per_sample);
        t.method = fmt::format("batch: a graph of {} launches per event pair, time per launch; hot caches; reference "
                               "and optimized interleaved", per_sample);
      } catch (const error& e) {
        reference_graph.reset();
        optimized_graph.reset();
        t.method = fmt::format("batch: {} launches on the stream per event pair, time per launch; hot caches; reference "
                               "and optimized interleaved",
                               per_sample);
        t.notes.push_back(fmt::format("the launches could not be captured in a graph ({}); batched on the stream", e.what()));
      }
    }
    t.launches_per_sample = per_sample;
    t.method += sets > 1 ? fmt::format("; consecutive launches rotate among {} input sets of {:.4g} MiB", sets,
                                       t.input_set_bytes / 1048576.0)
                         : std::string("; every launch reads the same input set");

    auto before_launch = [&] {
      if (flush) {
        flush->enqueue(s);
      } else {
        spin.enqueue(s, 20e-6);
      }
    };
    auto timed = [&](side target, const std::optional<launch_graph>& graph, event& start, event& stop, int set) {
      before_launch();
      start.record(s);
      if (graph) {
        graph->launch(s);
      } else {
        const launch_function& launch = target == side::optimized ? case_.optimized_launch() : case_.device_reference();
        for (int i = 0; i < per_sample; ++i) launch_bound(launch, target, per_sample > 1 ? i % sets : set);
      }
      stop.record(s);
    };

    std::vector<double> reference_s, optimized_s, waits;
    auto sample = [&](int set, bool optimized_first) {
      restore_in_place(side::reference, set);
      restore_in_place(side::optimized, set);
      if (optimized_first) timed(side::optimized, optimized_graph, end_start_, stop_, set);
      if (with_reference) timed(side::reference, reference_graph, start_, middle_, set);
      if (!optimized_first) timed(side::optimized, optimized_graph, end_start_, stop_, set);
      stop_.synchronize();
      if (with_reference) middle_.synchronize();
      waits.push_back(device_idle_wait());
      if (with_reference) reference_s.push_back(middle_.seconds_since(start_) / per_sample);
      optimized_s.push_back(stop_.seconds_since(end_start_) / per_sample);
    };
    const auto sampling_start = clock::now();
    int n = 0;
    for (;;) {
      sample(n++ % sets, false);
      if (n < o.iterations || n % 10 != 0) continue;
      t.optimized_precision = median_relative_precision(optimized_s);
      t.reference_precision = with_reference ? median_relative_precision(reference_s) : 0.0;
      t.precise = t.optimized_precision <= o.precision && t.reference_precision <= o.precision;
      const double elapsed = std::chrono::duration<double>(clock::now() - sampling_start).count();
      if (t.precise || elapsed >= o.max_time || n >= o.max_iterations) break;
    }
    // One more sample, on poisoned outputs, whose results are then checked: a kernel that skips work once
    // it has warmed up, or only while it is timed, leaves poison or another input set's values behind. The
    // optimized kernel goes first, so the reference's outputs it could copy are poison too.
    for (output_memory& out : outputs_) {
      out.reference.poison_contents(out.slot->type, out.slot->size, s);
      out.optimized.poison_contents(out.slot->type, out.slot->size, s);
    }
    const int last_set = per_sample > 1 ? (per_sample - 1) % sets : n % sets;
    sample(n % sets, true);
    for (std::string& problem : check_timed_launches(last_set, per_sample > 1, t.notes)) {
      t.flags.push_back(std::move(problem));
    }
    if (!t.precise) {
      t.notes.push_back(fmt::format("stopped before the medians were known to +-{:.2g}% (optimized +-{:.2g}%, reference "
                                    "+-{:.2g}%): the time or sample limit came first",
                                    100 * o.precision, 100 * t.optimized_precision, 100 * t.reference_precision));
    }
    t.optimized = summarize(optimized_s);
    t.idle_wait = summarize(waits).median;
    if (with_reference) {
      t.reference = summarize(reference_s);
      t.speedup = t.reference->median / t.optimized.median;
      t.speedup_interval = ratio_of_medians_interval(reference_s, optimized_s);
      // Significant, and larger than the 1% that separate runs and builds move a median.
      t.verdict = t.speedup_interval.low > 1.01    ? "faster"
                  : t.speedup_interval.high < 0.99 ? "slower"
                                                   : "no significant difference";
    }
    // Latency as a profiler sees it: one cold launch (the samples, or a few more when batched), less the
    // event pair's own cost.
    double single = t.optimized.median;
    if (per_sample > 1) {
      const cache_flush cold(flush_bytes(o, g), std::max(g.multiprocessors, 1));
      std::vector<double> singles;
      for (int i = 0; i < 30; ++i) {
        restore_in_place(side::optimized, i % sets);
        cold.enqueue(s);
        start_.record(s);
        launch_bound(case_.optimized_launch(), side::optimized, i % sets);
        stop_.record(s);
        stop_.synchronize();
        singles.push_back(stop_.seconds_since(start_));
      }
      single = summarize(singles).median;
    }
    release_rotation();
    t.latency = std::max(single - floor.events_only, 0.0);
    // One launch on an idle device, timed on the host until the device is idle: work the timed stream did
    // not see (another stream, or started after the launch returned) shows up here.
    t.launch_wall = launch_wall_time([&] { restore_in_place(side::optimized); },
                                     [&] { launch_bound(case_.optimized_launch(), side::optimized); });
    const double unseen = t.launch_wall - floor.empty_launch_wall - 2 * single;
    if (unseen > std::max(20e-6, single)) {
      t.flags.push_back(fmt::format("one launch keeps the device busy {} on the host's clock but {} on the timed "
                                    "stream: work ran on another stream or after the launch returned, outside the "
                                    "timed region",
                                    format_duration(t.launch_wall - floor.empty_launch_wall), format_duration(single)));
    }
    for (const auto* graph : {&reference_graph, &optimized_graph}) {
      if (!*graph) continue;
      const char* who = graph == &optimized_graph ? "optimized" : "reference";
      if ((*graph)->nodes() == 0) {
        t.flags.push_back(fmt::format("the {} launch put no work on the stream kbench gave it: work on another stream is "
                                      "not timed",
                                      who));
      } else if ((*graph)->nodes() < static_cast<std::size_t>(per_sample)) {
        t.flags.push_back(fmt::format("the {} launch put no work on the stream on some calls: {} launches captured {} "
                                      "operations, so the timing would count skipped calls as fast ones",
                                      who, per_sample, (*graph)->nodes()));
      }
    }
    judge(t, g, ceiling);
    return t;
  }

 private:
  struct input_memory {
    buffer_slot* slot;
    checked_input memory;   // input set 0: the one every check runs on
    std::size_t stream_id;  // the random stream of this buffer: its position in the declaration
    std::vector<device_allocation> rotation;  // input sets 1.. while timing
    std::vector<std::uint64_t> fingerprints;  // of each of those, as drawn
  };
  enum class side { reference, optimized };
  struct output_memory {
    buffer_slot* slot;
    guarded_output reference;
    guarded_output optimized;
    host_array expected;        // valid when expected_on_host
    bool expected_on_host = false;
    host_array actual;
    device_allocation initial;  // in-place buffers: the drawn values every run starts from
    std::size_t stream_id;
    std::vector<device_allocation> rotation;  // in-place buffers: their drawn values in input sets 1..
    guarded_output& memory(side target) { return target == side::optimized ? optimized : reference; }
    [[nodiscard]] bool in_place() const { return slot->role == buffer_role::inout; }
  };

  // Where the values of an input, or the starting values of an in-place buffer, live in an input set.
  [[nodiscard]] static void* input_data(const input_memory& in, int set) {
    return set == 0 ? in.memory.data() : in.rotation[static_cast<std::size_t>(set - 1)].data();
  }
  [[nodiscard]] static void* initial_data(const output_memory& out, int set) {
    return set == 0 ? out.initial.data() : out.rotation[static_cast<std::size_t>(set - 1)].data();
  }
  [[nodiscard]] static std::size_t word_bytes(const buffer_slot& slot) {
    return (slot.size * info(slot.type).size + 3) / 4 * 4;
  }

  // True when a launch changed input set `set` of `in` since it was drawn.
  [[nodiscard]] bool input_changed(const input_memory& in, int set) {
    if (set == 0) {
      std::size_t first = 0;
      return in.memory.changed_words(stream_.get(), first) != 0;
    }
    const auto k = static_cast<std::size_t>(set - 1);
    return fingerprint(in.rotation[k].data(), in.rotation[k].bytes(), stream_.get()) != in.fingerprints[k];
  }

  // Draws the input sets the timed launches rotate among: set 0 is the one just checked, sets 1.. are
  // drawn here from seeds that follow it. How many: the options' count (auto: 2), or for beyond-cache as
  // many as together fill the cold flush; fewer when they would take over a quarter of the free memory.
  int draw_rotation(const run_options& o, const gpu_info& g, timing_result& t) {
    std::size_t set_bytes = 0;
    for (const input_memory& in : inputs_) set_bytes += word_bytes(*in.slot);
    for (const output_memory& out : outputs_) set_bytes += out.in_place() ? word_bytes(*out.slot) : 0;
    t.input_set_bytes = static_cast<double>(set_bytes);
    if (set_bytes == 0) return t.input_sets = 1;  // nothing drawn, nothing to rotate
    std::size_t wanted = 2;
    if (o.input_sets == input_sets_beyond_cache) {
      wanted = std::clamp<std::size_t>((flush_bytes(o, g) + set_bytes - 1) / set_bytes, 2, 4096);
    } else if (o.input_sets > 0) {
      wanted = static_cast<std::size_t>(o.input_sets);
    }
    std::size_t free_bytes = 0, total_bytes = 0;
    KBENCH_HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t sets = std::min(wanted, 1 + free_bytes / 4 / set_bytes);
    if (sets < wanted) {
      t.notes.push_back(fmt::format("inputs rotate among {} set(s), not {}: {} sets of {:.4g} MiB would take more than "
                                    "a quarter of the free device memory",
                                    sets, wanted, wanted, static_cast<double>(set_bytes) / 1048576.0));
    }
    const hipStream_t s = stream_.get();
    auto draw = [&](const buffer_slot& slot, std::size_t stream_id, std::uint64_t seed) {
      device_allocation memory(word_bytes(slot));
      KBENCH_HIP_CHECK(hipMemsetAsync(memory.data(), 0, memory.bytes(), s));  // the padding too
      fill_random(memory.data(), slot.type, slot.size, slot.init, seed, stream_id, s);
      return memory;
    };
    for (std::size_t k = 1; k < sets; ++k) {
      const std::uint64_t seed = seed_ + 0x9E3779B97F4A7C15ull * k;
      for (input_memory& in : inputs_) in.rotation.push_back(draw(*in.slot, in.stream_id, seed));
      for (output_memory& out : outputs_) {
        if (out.in_place()) out.rotation.push_back(draw(*out.slot, out.stream_id, seed));
      }
    }
    for (input_memory& in : inputs_) {
      for (const device_allocation& set : in.rotation) {
        in.fingerprints.push_back(fingerprint(set.data(), set.bytes(), s));
      }
    }
    t.input_sets = static_cast<int>(sets);
    return t.input_sets;
  }

  void release_rotation() {
    for (input_memory& in : inputs_) in.rotation.clear(), in.fingerprints.clear();
    for (output_memory& out : outputs_) out.rotation.clear();
  }

  // What the timed launches did, checked once they are done: guard regions, every input set, and the
  // outputs of the last sample against the reference on the same input set (`set`). With `batched`,
  // in-place buffers went through many launches without a restore, so they are not compared.
  std::vector<std::string> check_timed_launches(int set, bool batched, std::vector<std::string>& notes) {
    KBENCH_HIP_CHECK(hipDeviceSynchronize());
    std::vector<std::string> found;
    const bool with_reference = has_device_reference();
    for (output_memory& out : outputs_) {
      for (const side target : {side::reference, side::optimized}) {
        if (target == side::reference && !with_reference) continue;
        const std::string stray = out.memory(target).check_guards();
        if (!stray.empty()) {
          found.push_back(fmt::format("while timed, the {} kernel wrote outside output '{}': {}",
                                      target == side::optimized ? "optimized" : "reference", out.slot->name, stray));
        }
      }
    }
    for (input_memory& in : inputs_) {
      for (int k = 0; k <= static_cast<int>(in.rotation.size()); ++k) {
        if (input_changed(in, k)) {
          found.push_back(fmt::format("while timed, a launch modified input '{}' (input set {}); inputs must be read-only",
                                      in.slot->name, k));
        }
      }
    }
    std::vector<std::string> problems;
    if (with_reference) {
      for (output_memory& out : outputs_) {
        out.expected_on_host = false;
        if (!info(out.slot->type).is_float || (batched && out.in_place())) continue;
        const std::size_t unwritten = count_poison_on_device(out.reference.data(), out.slot->type, out.slot->size, stream_.get());
        if (unwritten) {
          problems.push_back(fmt::format("the reference left {} of {} elements of output '{}' unwritten", unwritten,
                                         out.slot->size, out.slot->name));
        }
      }
    } else {
      run_host_reference(problems, set);
    }
    for (const std::string& p : problems) found.push_back("in the last timed sample, " + p);
    if (!problems.empty()) return found;
    for (output_memory& out : outputs_) {
      if (batched && out.in_place()) {
        notes.push_back(fmt::format("in-place buffer '{}' was updated by every launch of a batch, without a restore "
                                    "between them, so the last sample's values were not compared",
                                    out.slot->name));
        continue;
      }
      const comparison c = compare_output(out);
      if (!c.passed) {
        found.push_back(fmt::format("the last timed launch of the optimized kernel (input set {}) disagrees with the "
                                    "reference on the same inputs, output '{}': {}",
                                    set, out.slot->name, c.reasons.empty() ? std::string("failed") : c.reasons.front()));
      }
    }
    return found;
  }

  // One output of the optimized kernel against the reference's: on the GPU when large and clean; else,
  // or when the GPU found anything, with the host engine, which lists the first mismatches.
  comparison compare_output(output_memory& out) {
    const buffer_slot& slot = *out.slot;
    const tolerance tol = case_.tolerance_of(slot);
    if (compared_on_device(out)) {
      device_comparison d = compare_on_device(out.optimized.data(), out.reference.data(), slot.type, slot.size,
                                              slot.extents, tol, stream_.get());
      if (d.clean) return std::move(d.result);
    }
    out.actual = copy_to_host(out.optimized.data(), slot.type, slot.size);
    return compare(out.actual.view(slot.size, slot.extents), expected_on_host(out).view(slot.size, slot.extents), tol);
  }

  // Bytes that cold launches read to evict the caches: --flush-mib, or max(256 MiB, 4 x L2).
  static std::size_t flush_bytes(const run_options& o, const gpu_info& g) {
    const double bytes = o.flush_mib > 0 ? o.flush_mib * 1048576.0 : std::max(256.0 * 1048576.0, 4.0 * g.l2_bytes);
    return static_cast<std::size_t>(bytes);
  }

  // Outputs of a device reference with at least this many elements are compared on the GPU.
  static constexpr std::size_t device_compare_threshold = std::size_t{1} << 20;
  [[nodiscard]] bool compared_on_device(const output_memory& out) const {
    return has_device_reference() && out.slot->size >= device_compare_threshold &&
           device_can_compare(case_.tolerance_of(*out.slot));
  }

  // The reference's values on the host, copied on first need.
  const host_array& expected_on_host(output_memory& out) {
    if (!out.expected_on_host) {
      out.expected = copy_to_host(out.reference.data(), out.slot->type, out.slot->size);
      out.expected_on_host = true;
    }
    return out.expected;
  }

  // Flags results that are implausible, dishonest-looking, or short of what the case requires.
  static void judge(timing_result& t, const gpu_info& g, const copy_bandwidth& ceiling) {
    const double copy_bytes_per_second = ceiling.bytes_per_second;
    const double fastest = std::max(ceiling.bytes_per_second, ceiling.read_bytes_per_second);
    const perf_expectations& want = t.expectations;
    const double median = t.optimized.median;
    if (t.idle_wait > std::max(20e-6, 0.1 * median)) {
      t.flags.push_back(fmt::format("the device stayed busy {} after the timed launches ended (median): work ran on "
                                    "another stream or after the launch returned, outside the timed region",
                                    format_duration(t.idle_wait)));
    }
    if (t.reference && t.speedup > want.max_plausible_speedup) {
      t.flags.push_back(fmt::format("implausible speedup {:.1f}x (above {:.0f}x): a broken reference or a kernel that "
                                    "skips work; a case that means it says allow_speedup_up_to()",
                                    t.speedup, want.max_plausible_speedup));
    }
    if (t.work.bytes > 0 && copy_bytes_per_second > 0) {
      const double rate = t.work.bytes / median;
      if (rate > 1.05 * fastest) {
        const std::string what = fmt::format("{} is above the device's measured bandwidth ({} copying, {} reading)",
                                             format_rate(t.work.bytes, median, "B"),
                                             format_rate(copy_bytes_per_second, 1.0, "B"),
                                             format_rate(ceiling.read_bytes_per_second, 1.0, "B"));
        if (t.work.bytes > 2.0 * g.l2_bytes && t.mode == "cold") {
          t.flags.push_back(what + " with cold caches and a working set larger than the L2: bytes_moved() overstates "
                                   "the work, or the kernel skips it");
        } else {
          t.notes.push_back(what + ": the working set is served from cache");
        }
      }
      if (want.required_bandwidth > 0) {
        // The whole interval short: even the fastest plausible median misses the requirement.
        const double best = t.work.bytes / (median * (1.0 - t.optimized_precision)) / copy_bytes_per_second;
        if (best < want.required_bandwidth) {
          t.flags.push_back(fmt::format("bandwidth {:.1f}% of copy is short of the required {:.1f}%",
                                        100 * rate / copy_bytes_per_second, 100 * want.required_bandwidth));
        }
      }
    }
    if (want.required_speedup > 0 && t.reference && t.speedup_interval.high < want.required_speedup) {
      t.flags.push_back(fmt::format("speedup {:.3f}x (95% interval {:.3f} to {:.3f}) is short of the required {:.3f}x",
                                    t.speedup, t.speedup_interval.low, t.speedup_interval.high, want.required_speedup));
    }
  }

  void draw_inputs(std::uint64_t seed) {
    seed_ = seed;
    for (input_memory& in : inputs_) {
      fill_random(in.memory.data(), in.slot->type, in.slot->size, in.slot->init, seed, in.stream_id, stream_.get());
      in.memory.snapshot(stream_.get());
    }
    for (output_memory& out : outputs_) {
      if (!out.in_place()) continue;
      fill_random(out.initial.data(), out.slot->type, out.slot->size, out.slot->init, seed, out.stream_id, stream_.get());
    }
    stream_.synchronize();
  }

  // In-place buffers get the drawn values of an input set back (outside any timed region).
  void restore_in_place(side target, int set = 0) {
    for (output_memory& out : outputs_) {
      if (!out.in_place()) continue;
      KBENCH_HIP_CHECK(hipMemcpyAsync(out.memory(target).data(), initial_data(out, set), out.memory(target).bytes(),
                                      hipMemcpyDeviceToDevice, stream_.get()));
    }
  }

  // Points every handle at the memory of one side and one input set.
  void bind(side target, int set = 0) {
    for (input_memory& in : inputs_) in.slot->device = input_data(in, set);
    for (output_memory& out : outputs_) out.slot->device = out.memory(target).data();
  }
  void unbind() {
    for (const auto& slot : case_.buffers()) {
      slot->device = nullptr;
      slot->host = nullptr;
    }
  }

  void launch_bound(const launch_function& launch, side target, int set = 0) {
    bind(target, set);
    try {
      launch(stream_.get());
    } catch (...) {
      unbind();
      throw;
    }
    unbind();
    const hipError_t status = hipGetLastError();
    if (status != hipSuccess) {
      throw hip_error(status, fmt::format("the {} launch of '{}' failed: {} ({})",
                                          target == side::optimized ? "optimized" : "reference", case_.name(),
                                          hipGetErrorName(status), hipGetErrorString(status)));
    }
  }

  // Poison, launch, wait for the whole device (work left on other streams included), then check guards
  // and inputs.
  void run_side(const launch_function& launch, side target, std::vector<std::string>& problems) {
    const char* who = target == side::optimized ? "optimized" : "reference";
    for (output_memory& out : outputs_) out.memory(target).prepare(out.slot->type, out.slot->size, stream_.get());
    restore_in_place(target);
    launch_bound(launch, target);
    stream_.synchronize();
    KBENCH_HIP_CHECK(hipDeviceSynchronize());
    for (output_memory& out : outputs_) {
      const std::string stray = out.memory(target).check_guards();
      if (!stray.empty()) problems.push_back(fmt::format("the {} kernel wrote outside output '{}': {}", who, out.slot->name, stray));
    }
    for (input_memory& in : inputs_) {
      std::size_t first = 0;
      const std::size_t changed = in.memory.changed_words(stream_.get(), first);
      if (changed) {
        problems.push_back(fmt::format("the {} kernel modified input '{}' ({} words changed, first at byte {}); inputs "
                                       "must be read-only",
                                       who, in.slot->name, changed, first));
        in.memory.snapshot(stream_.get());  // report each modification once
        stream_.synchronize();
      }
    }
  }

  host_array copy_to_host(const void* device, dtype type, std::size_t size) {
    host_array h{type, std::vector<unsigned char>(size * info(type).size)};
    KBENCH_HIP_CHECK(hipMemcpy(h.bytes.data(), device, h.bytes.size(), hipMemcpyDeviceToHost));
    return h;
  }

  void run_device_reference(std::vector<std::string>& problems) {
    run_side(case_.device_reference(), side::reference, problems);
    for (output_memory& out : outputs_) out.expected_on_host = false;
    // Floats are poisoned with a NaN no arithmetic produces, so a poisoned element is an unwritten one.
    // An integer poison is a plausible value: confirm with a second run under another poison, since an
    // element the reference never writes holds each poison in turn.
    std::vector<std::size_t> suspects(outputs_.size(), 0);
    bool integer_suspects = false;
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      output_memory& out = outputs_[k];
      if (out.in_place()) continue;  // starts from the drawn values, not from poison
      suspects[k] = compared_on_device(out) ? count_poison_on_device(out.reference.data(), out.slot->type, out.slot->size, stream_.get())
                                            : count_poison(expected_on_host(out).bytes.data(), out.slot->type, out.slot->size);
      integer_suspects = integer_suspects || (suspects[k] && !info(out.slot->type).is_float);
    }
    if (integer_suspects) {
      for (output_memory& out : outputs_) {
        if (!info(out.slot->type).is_float) expected_on_host(out);  // the first run's values
        KBENCH_HIP_CHECK(hipMemsetAsync(out.reference.data(), 0x5A, out.reference.bytes(), stream_.get()));
      }
      restore_in_place(side::reference);
      launch_bound(case_.device_reference(), side::reference);
      KBENCH_HIP_CHECK(hipDeviceSynchronize());
      for (std::size_t k = 0; k < outputs_.size(); ++k) {
        output_memory& out = outputs_[k];
        if (info(out.slot->type).is_float || suspects[k] == 0) continue;
        const host_array second = copy_to_host(out.reference.data(), out.slot->type, out.slot->size);
        const std::size_t width = info(out.slot->type).size;
        suspects[k] = 0;
        for (std::size_t i = 0; i < out.slot->size; ++i) {
          bool unwritten = true;
          for (std::size_t b = i * width; b < (i + 1) * width; ++b) {
            unwritten = unwritten && out.expected.bytes[b] == 0xA5 && second.bytes[b] == 0x5A;
          }
          suspects[k] += unwritten;
        }
      }
      // The device copies now hold the second run: put the first run's values back.
      for (output_memory& out : outputs_) {
        if (out.expected_on_host) {
          KBENCH_HIP_CHECK(hipMemcpy(out.reference.data(), out.expected.bytes.data(), out.expected.bytes.size(),
                                     hipMemcpyHostToDevice));
        } else {
          out.expected_on_host = false;
        }
      }
    }
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (suspects[k]) {
        problems.push_back(fmt::format("the reference left {} of {} elements of output '{}' unwritten", suspects[k],
                                       outputs_[k].slot->size, outputs_[k].slot->name));
      }
    }
  }

  std::vector<double> host_values(const void* device, const buffer_slot& slot) {
    const host_array raw = copy_to_host(device, slot.type, slot.size);
    std::vector<double> values(slot.size);
    for (std::size_t i = 0; i < slot.size; ++i) values[i] = load_as_double(raw.bytes.data(), slot.type, i);
    return values;
  }

  void run_host_reference(std::vector<std::string>& problems, int set = 0) {
    std::vector<std::vector<double>> in_values(inputs_.size()), out_values(outputs_.size());
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      in_values[k] = host_values(input_data(inputs_[k], set), *inputs_[k].slot);
      inputs_[k].slot->host = in_values[k].data();
    }
    // Outputs start as a sentinel that must be overwritten; in-place buffers start as drawn.
    double sentinel;
    std::memcpy(&sentinel, &host_reference_sentinel, sizeof sentinel);
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (outputs_[k].in_place()) {
        out_values[k] = host_values(initial_data(outputs_[k], set), *outputs_[k].slot);
      } else {
        out_values[k].assign(outputs_[k].slot->size, sentinel);
      }
      outputs_[k].slot->host = out_values[k].data();
    }
    try {
      case_.host_reference_function()();
    } catch (...) {
      unbind();
      throw;
    }
    unbind();
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      output_memory& out = outputs_[k];
      std::size_t unassigned = 0;
      if (!out.in_place()) {
        for (double v : out_values[k]) unassigned += std::memcmp(&v, &sentinel, sizeof v) == 0;
      }
      if (unassigned) {
        problems.push_back(fmt::format("the host reference left {} of {} elements of output '{}' unassigned", unassigned,
                                       out.slot->size, out.slot->name));
      }
      out.expected.type = dtype::f64;
      out.expected.bytes.resize(out_values[k].size() * sizeof(double));
      std::memcpy(out.expected.bytes.data(), out_values[k].data(), out.expected.bytes.size());
      out.expected_on_host = true;
    }
    for (input_memory& in : inputs_) {
      if (set == 0 && input_changed(in, 0)) {
        problems.push_back(fmt::format("input '{}' changed during the host reference", in.slot->name));
      }
    }
  }

  // A test that cannot fail is an error: the tolerance must reject what a broken kernel would leave: an
  // unwritten output, an all-zero one, the reference perturbed beyond tolerance and, for an in-place
  // buffer, the values as drawn.
  void check_teeth(std::vector<std::string>& problems) {
    for (output_memory& out : outputs_) {
      const buffer_slot& slot = *out.slot;
      const tolerance tol = case_.tolerance_of(slot);
      const std::size_t allowed = static_cast<std::size_t>(std::floor(tol.max_mismatch_fraction * static_cast<double>(slot.size)));
      const std::uint32_t word = poison_word(slot.type);
      std::vector<std::string> accepted;
      if (compared_on_device(out)) {
        auto accepts = [&](const void* actual, std::uint64_t constant, double* norm = nullptr) {
          const device_comparison d = compare_on_device(actual, out.reference.data(), slot.type, slot.size, slot.extents,
                                                        tol, stream_.get(), constant);
          if (norm) *norm = d.expected_norm;
          return d.result.passed;
        };
        double norm = 0.0;
        if (accepts(nullptr, poison_as<std::uint64_t>(slot.type))) accepted.push_back("an output the kernel never wrote");
        if (accepts(nullptr, 0, &norm)) accepted.push_back("an all-zero output");
        const device_allocation probe(out.reference.bytes());
        KBENCH_HIP_CHECK(hipMemcpyAsync(probe.data(), out.reference.data(), out.reference.bytes(),
                                        hipMemcpyDeviceToDevice, stream_.get()));
        perturb_on_device(probe.data(), slot.type, slot.size, std::min(slot.size, allowed + 1), tol, 2.0 * norm + 1.0,
                          stream_.get());
        if (accepts(probe.data(), 0)) accepted.push_back("the reference perturbed well beyond tolerance");
        if (out.in_place() && accepts(out.initial.data(), 0)) {
          accepted.push_back("the buffer as drawn, i.e. a kernel that did nothing");
        }
      } else {
        const host_array& expected_values = expected_on_host(out);
        const array_view expected = expected_values.view(slot.size, slot.extents);
        compare_options quiet;
        quiet.mismatches_to_keep = 0;
        auto accepts = [&](const host_array& p) { return compare(p.view(slot.size, slot.extents), expected, tol, quiet).passed; };
        host_array probe{slot.type, std::vector<unsigned char>(slot.size * info(slot.type).size)};
        for (std::size_t i = 0; i < probe.bytes.size(); ++i) probe.bytes[i] = static_cast<unsigned char>(word >> (8 * (i % 4)));
        if (accepts(probe)) accepted.push_back("an output the kernel never wrote");
        std::fill(probe.bytes.begin(), probe.bytes.end(), 0);
        if (accepts(probe)) accepted.push_back("an all-zero output");
        if (accepts(perturbed_probe(expected_values, slot.type, slot.size, tol, allowed))) {
          accepted.push_back("the reference perturbed well beyond tolerance");
        }
        if (out.in_place() && accepts(copy_to_host(out.initial.data(), slot.type, slot.size))) {
          accepted.push_back("the buffer as drawn, i.e. a kernel that did nothing");
        }
      }
      for (const std::string& a : accepted) {
        problems.push_back(fmt::format("broken test: tolerance '{}' of output '{}' accepts {}; this test cannot fail",
                                       tol.description, slot.name, a));
      }
    }
  }

  kernel_case case_;
  kbench::stream stream_;
  event start_, middle_, end_start_, stop_;
  std::uint64_t seed_ = 0;  // of the inputs drawn last
  std::vector<input_memory> inputs_;
  std::vector<output_memory> outputs_;
};

}  // namespace detail

// One correctness run of a registered case at one shape, as `<program> correctness` does it: for tools
// and tests that drive kbench from their own code.
[[nodiscard]] inline seed_result check_case(const case_registration& registration, const kbench::shape& s,
                                            std::uint64_t seed) {
  detail::case_instance instance(registration, s);
  return instance.check(seed, true);
}

// What `<program> perf` does for one case at one shape: a correctness run, the timing, and a second
// correctness run with another seed. The timing is absent when the first run fails (a wrong kernel is
// never timed).
struct perf_outcome {
  seed_result before;
  std::optional<timing_result> timing;
  std::optional<seed_result> after;
  [[nodiscard]] bool passed() const { return failure().empty(); }
  // Why the perf test fails, in one line; empty when it passes.
  [[nodiscard]] std::string failure() const {
    if (!before.passed()) return "refusing to time a kernel that is not correct (report above)";
    if (!timing) return "not timed";
    if (!timing->flags.empty()) return timing->flags.front();
    if (!after || !after->passed()) return "the optimized kernel was correct before timing and wrong after it (report above)";
    return {};
  }
};

namespace detail {

// The perf procedure on an instance; `seeds` gives the seed of the first check, and of the second when
// it holds two (otherwise the second is derived from the first).
[[nodiscard]] inline perf_outcome run_perf_procedure(case_instance& instance, const run_options& options,
                                                     const gpu_info& g, const std::vector<std::uint64_t>& seeds) {
  const device_ceilings& ceilings = measured_ceilings();
  perf_outcome outcome;
  outcome.before = instance.check(seeds.front(), true);
  if (!outcome.before.passed()) return outcome;
  outcome.timing = instance.measure(options, g, ceilings.copy, ceilings.floor);
  // A kernel right only while warmed up, or only until its inputs change, fails now.
  outcome.after = instance.check(seeds.size() > 1 ? seeds[1] : seeds.front() ^ 0x9E3779B97F4A7C15ull, false);
  return outcome;
}

}  // namespace detail

// The perf procedure for tools and tests that drive kbench from their own code.
[[nodiscard]] inline perf_outcome measure_case(const case_registration& registration, const kbench::shape& s,
                                               const run_options& options, std::uint64_t seed) {
  const gpu_info& g = gpu(options.device);
  if (!g.usable) throw error(g.reason);
  detail::case_instance instance(registration, s);
  return detail::run_perf_procedure(instance, options, g, {seed});
}

// The registered case called `name`; usage_error if there is none.
[[nodiscard]] inline const case_registration& find_case(const std::string& name) {
  for (const case_registration& reg : registered_cases()) {
    if (reg.name() == name) return reg;
  }
  throw usage_error("no case named '" + name + "' is registered");
}

// "PASS rmsnorm [rows=37 cols=1531] seed=0x..." and, for each output, its metrics or its failure report.
[[nodiscard]] inline std::string format_seed_result(const std::string& case_name, const kbench::shape& s,
                                                    const seed_result& r) {
  std::string out = fmt::format("{} {} [{}] seed={:#x}\n", r.passed() ? "PASS" : "FAIL", case_name, s.to_string(), r.seed);
  for (const std::string& p : r.problems) out += fmt::format("  ! {}\n", p);
  for (const output_result& o : r.outputs) out += format_comparison(o.name, o.result, o.type, o.extents);
  return out;
}

}  // namespace kbench
