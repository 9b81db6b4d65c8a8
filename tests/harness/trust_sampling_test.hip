// Trust, round three: checked launches that look like every other launch,
// every launch of a batch checkable, and caches that are really cold. Planted kernels of each class must be
// caught with a reason that names it; correct kernels must pass. Runs on a GPU (skipped without one).
//
//   poison sniffing  a compute-bound map that looks at its output before writing it and does the full work
//                    only when the output holds kbench's poison: every sample's outputs are poisoned, so it
//                    always does the full work (no gain left to report); one that does less work on a share
//                    of its launches, whatever it sees, is caught by the checks drawn after each sample
//   batch siblings   a map that, from the second replay of a batch on, does the real work only on the last
//                    launch of the batch (the one that reads the highest input set): every launch has
//                    outputs of its own where they fit beside the cache (these do on the H200), and any
//                    can be checked
//   checked only     where they do not (one copy of 1 MiB outputs), a map that learns from the reference's
//                    capture which launches the checks reach and works on those alone: every check passes,
//                    and its batch is timed against its launches alone
//   persisting L2    a kernel that sets an access-policy window on its stream (NVIDIA; skipped on AMD,
//                    which has no persisting L2)
//   honest           a vectorised map 2-3x faster than a scalar reference, in cold and batch mode: "faster",
//                    no finding, its launches checked
//   physics          the same map more than 10x faster than a reference slowed by useless
//                    arithmetic passes, the roofline bounding it; declaring that arithmetic as the work
//                    puts the map far above the device's measured peak, and fails
//   clocks           every sample carries the SM clock over it, close to the clock the driver
//                    reports; with a threshold no sample can meet, every sample is throttled, all are kept
//                    (too few unthrottled) and the timing fails
#include <kbench/compare.hpp>
#include <kbench/contract/device_buffer.hpp>
#include <kbench/procedure.hpp>
#include <kbench/program/options.hpp>
#include <kbench/reports/report.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "support/catch2_runner.hpp"
#include "support/rushed.hpp"

const char* const kbench_test::suite_name = "the sampling trust tests";

namespace {

// ---- harness -----------------------------------------------------------------------------------------
const kbench::case_registration& registration(kbench::case_function f) {
  static std::deque<kbench::case_registration> keep;  // registrations outlive the runs
  return keep.emplace_back("planted", f, __FILE__, __LINE__);
}

// `throttle_threshold`: past the option's range where a test needs it (above 1: no sample can meet it).
kbench::perf_outcome time(kbench::case_function f, const kbench::shape& s, const char* mode, double throttle_threshold = 0.75,
                          int samples = 0) {
  // 300 launches of warm-up (mutation_test.hip says why).
  const char* argv[] = {"trust_sampling_test", "perf", "--max-time", "0.5", "--timing", mode, "--warmup", "300"};
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kbench::run_options options = kbench::parse_options(8, argv);
  options.throttle_threshold = throttle_threshold;
  if (samples > 0) options.iterations = samples;  // at least this many, whatever the time
  return kbench::measure_case(registration(f), s, options, 0x7159);
}

// Every finding of the timing and the census of a perf outcome, failing or not, with its kind.
std::string findings_of(const kbench::perf_outcome& o) {
  std::string all = o.failure() + "\n";
  for (const kbench::sourced_finding& f : o.findings()) {
    if (f.source != kbench::finding_source::check) all += "[" + std::string(kbench::to_string(f.kind)) + "] " + f.text + "\n";
  }
  if (o.timing) all += kbench::format_timing("planted", *o.timing, {});
  return all;
}

bool found(const kbench::perf_outcome& o, const std::string& text) { return findings_of(o).find(text) != std::string::npos; }

// Called in quick succession more often than a correctness run calls (about 70 times for these two fp32
// buffers, most with them moved off their alignment at every offset below 256 bytes, four against unmapped
// memory): rushed, as in the warm-up and a batch's capture (support/rushed.hpp).
using kbench_test::rushed;

// ---- compute-bound maps ------------------------------------------------------------------------------
// 200 dependent steps per element, which converge on a fixed point; the approximation stops after one
// (off by up to ~1.5).
template <int Steps = 200>
__device__ float heavy(float v) {
  for (int k = 0; k < Steps; ++k) v = __sinf(v) * 0.999f + 0.25f;
  return v;
}

__global__ void map_kernel(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = heavy(x[i]);
  }
}

void map(const float* x, float* y, std::int64_t n, hipStream_t s) {
  hipLaunchKernelGGL(map_kernel, dim3(1024), dim3(256), 0, s, x, y, n);
  KBENCH_HIP_CHECK_LAUNCH();
}

// The full work where the output holds kbench's poison, the approximation where it does not.
__global__ void sniffing_map_kernel(const float* x, float* y, std::int64_t n, unsigned int poison) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const bool watched = __float_as_uint(y[i]) == poison;
    y[i] = watched ? heavy(x[i]) : heavy<1>(x[i]);
  }
}

void sniffing_map(const float* x, float* y, std::int64_t n, hipStream_t s) {
  hipLaunchKernelGGL(sniffing_map_kernel, dim3(1024), dim3(256), 0, s, x, y, n, kbench::poison_word(kbench::dtype::f32));
  KBENCH_HIP_CHECK_LAUNCH();
}

__global__ void approximate_map_kernel(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = heavy<1>(x[i]);
  }
}

// The approximation on one call in four from its 400th call on, whatever the output holds: a correctness
// run calls it about a hundred times, a timing run of 600 samples (its test asks for them) far more. Not
// keyed on rushed(): a cold sample, which flushes the caches and checks a launch, may take more than its 2 ms,
// and then the plant would never engage.
void sometimes_approximate_map(const float* x, float* y, std::int64_t n, hipStream_t s) {
  static long long calls = 0;
  if (++calls > 400 && calls % 4 == 0) {
    hipLaunchKernelGGL(approximate_map_kernel, dim3(1024), dim3(256), 0, s, x, y, n);
    KBENCH_HIP_CHECK_LAUNCH();
  } else {
    map(x, y, n, s);
  }
}

// Batch siblings: when rushed, a launch does the real work only when its input is at least the highest
// input address seen in the previous run of launches (a batch: launches on rising addresses, input set 1,
// 2, ...); from a batch's second replay on, that is its last launch alone, which the harness used to
// compare. A correctness run never rushes it: there it always does the real work.
struct sibling_state {
  unsigned long long last_x, current_highest, previous_highest;
  int real;
};

__global__ void sibling_bookkeeping_kernel(const float* x, sibling_state* state, bool watched) {
  const auto address = reinterpret_cast<unsigned long long>(x);
  if (address < state->last_x) {  // a new batch began
    state->previous_highest = state->current_highest;
    state->current_highest = 0;
  }
  state->real = watched || address >= state->previous_highest;
  state->current_highest = address > state->current_highest ? address : state->current_highest;
  state->last_x = address;
}

__global__ void sibling_map_kernel(const float* x, float* y, std::int64_t n, const sibling_state* state) {
  const bool real = state->real != 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = real ? heavy(x[i]) : heavy<1>(x[i]);
  }
}

void last_of_batch_map(const float* x, float* y, std::int64_t n, hipStream_t s) {
  static kbench::device_buffer<sibling_state> state = [] {
    kbench::device_buffer<sibling_state> made(1);
    KBENCH_HIP_CHECK(hipMemset(made.data(), 0, made.bytes()));
    return made;
  }();
  hipLaunchKernelGGL(sibling_bookkeeping_kernel, dim3(1), dim3(1), 0, s, x, state.data(), !rushed());
  KBENCH_HIP_CHECK_LAUNCH();
  hipLaunchKernelGGL(sibling_map_kernel, dim3(64), dim3(256), 0, s, x, y, n, state.data());
  KBENCH_HIP_CHECK_LAUNCH();
}

void small_map(const float* x, float* y, std::int64_t n, hipStream_t s) {
  hipLaunchKernelGGL(map_kernel, dim3(64), dim3(256), 0, s, x, y, n);
  KBENCH_HIP_CHECK_LAUNCH();
}

// Batch, knowing what the checks reach: the reference learns, while its batch is captured, how many launches
// a batch has and how many output copies they cycle through; the optimized side, captured next, does the
// real work on the last `copies` launches only (the launches the checks can reach) and the approximation on
// the others. Launched alone (correctness runs, the latency launches) it always does the real work.
struct capture_watch {
  bool capturing = false;
  int calls = 0;
  std::vector<const void*> outputs;
  void see(const void* y, hipStream_t s) {
    hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
    KBENCH_HIP_CHECK(hipStreamIsCapturing(s, &status));
    const bool now = status == hipStreamCaptureStatusActive;
    if (now && !capturing) calls = 0, outputs.clear();
    capturing = now;
    if (!now) return;
    ++calls;
    if (std::find(outputs.begin(), outputs.end(), y) == outputs.end()) outputs.push_back(y);
  }
};
capture_watch reference_watch, optimized_watch;

void watching_map(const float* x, float* y, std::int64_t n, hipStream_t s) {
  reference_watch.see(y, s);
  small_map(x, y, n, s);
}

// What the reference's capture just before taught: taken when the optimized side's capture starts, so that a
// capture of the optimized side alone (the census's) learns nothing from an older one.
int learned_batch = 0, learned_copies = 0;

void checked_launches_only_map(const float* x, float* y, std::int64_t n, hipStream_t s) {
  optimized_watch.see(y, s);
  if (optimized_watch.capturing && optimized_watch.calls == 1) {
    learned_batch = reference_watch.calls;
    learned_copies = static_cast<int>(reference_watch.outputs.size());
    reference_watch = capture_watch{};
  }
  if (!optimized_watch.capturing || optimized_watch.calls > learned_batch - learned_copies) {
    small_map(x, y, n, s);
    return;
  }
  hipLaunchKernelGGL(approximate_map_kernel, dim3(64), dim3(256), 0, s, x, y, n);
  KBENCH_HIP_CHECK_LAUNCH();
}

template <void (*Reference)(const float*, float*, std::int64_t, hipStream_t),
          void (*Optimized)(const float*, float*, std::int64_t, hipStream_t)>
void map_case(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.reference([=](hipStream_t s) { Reference(x, y, n, s); });
  c.optimized([=](hipStream_t s) { Optimized(x, y, n, s); });
  c.tolerance(kbench::tol::exact{});
}

const kbench::shape heavy_shape{{"n", std::int64_t{1} << 22}};
const kbench::shape batch_shape{{"n", std::int64_t{1} << 12}};  // outputs small enough for a copy per launch
// 1 MiB outputs: on the H200 one copy of both sides' fits in a sixteenth of the L2, not two.
const kbench::shape one_copy_shape{{"n", std::int64_t{1} << 18}};

// ---- memory-bound maps: y = 2x + 1 ---------------------------------------------------------------------
int multiprocessors() {
  int device = 0, units = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  KBENCH_HIP_CHECK(hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, device));
  return units > 0 ? units : 1;
}

// One float per thread per step, one load in flight at a time: far fewer bytes in flight than the memory
// needs to run at full speed.
__global__ void scalar_affine_kernel(const float* x, float* y, std::int64_t n) {
#pragma unroll 1
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    y[i] = 2.0f * x[i] + 1.0f;
  }
}

// Four floats per thread per step where both pointers allow it, one at a time where they do not.
__global__ void vector_affine_kernel(const float* x, float* y, std::int64_t n) {
  const bool aligned = reinterpret_cast<std::uintptr_t>(x) % 16 == 0 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
  const std::int64_t start = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  if (!aligned) {
    for (std::int64_t i = start; i < n; i += step) y[i] = 2.0f * x[i] + 1.0f;
    return;
  }
  for (std::int64_t v = start; v < n / 4; v += step) {
    const float4 a = reinterpret_cast<const float4*>(x)[v];
    reinterpret_cast<float4*>(y)[v] = make_float4(2.0f * a.x + 1.0f, 2.0f * a.y + 1.0f, 2.0f * a.z + 1.0f, 2.0f * a.w + 1.0f);
  }
  for (std::int64_t i = n / 4 * 4 + start; i < n; i += step) y[i] = 2.0f * x[i] + 1.0f;
}

template <bool Vector>
void affine(const float* x, float* y, std::int64_t n, hipStream_t s) {
  static const int units = multiprocessors();
  const dim3 grid(static_cast<unsigned int>(8 * units));
  if (Vector) {
    hipLaunchKernelGGL(vector_affine_kernel, grid, dim3(256), 0, s, x, y, n);
  } else {
    hipLaunchKernelGGL(scalar_affine_kernel, grid, dim3(256), 0, s, x, y, n);
  }
  KBENCH_HIP_CHECK_LAUNCH();
}

void vector_affine_case(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.reference([=](hipStream_t s) { affine<false>(x, y, n, s); });
  c.optimized([=](hipStream_t s) { affine<true>(x, y, n, s); });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * n);
}

const kbench::shape stream_shape{{"n", std::int64_t{1} << 26}};
const kbench::shape batch_stream_shape{{"n", std::int64_t{1} << 22}};

// ---- physics: the roofline in place of the fixed 10x -------------------------------------------------
// The affine map after a chain of 1024 fused multiply-adds per element that change nothing (x * one + zero,
// with one = 1 and zero = 0 given at run time, so no compiler can fold them): correct, and about as slow as
// 2 x 1024 flops an element at the device's peak make it.
constexpr int wasted_fmas = 1024;
__global__ void chained_affine_kernel(const float* x, float* y, std::int64_t n, float one, float zero) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = x[i];
    for (int k = 0; k < wasted_fmas; ++k) v = fmaf(v, one, zero);
    y[i] = 2.0f * v + 1.0f;
  }
}

void chained_affine(const float* x, float* y, std::int64_t n, hipStream_t s) {
  static const int units = multiprocessors();
  hipLaunchKernelGGL(chained_affine_kernel, dim3(static_cast<unsigned int>(8 * units)), dim3(256), 0, s, x, y, n, 1.0f, 0.0f);
  KBENCH_HIP_CHECK_LAUNCH();
}

// Honest: the vectorised map against the chained one, with the map's own work (8 bytes and 2 flops an
// element). `Overstated`: the same kernels declaring the chain's flops as the work, which the optimized
// kernel does at well above the device's peak.
template <bool Overstated>
void slow_reference_case(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.reference([=](hipStream_t s) { chained_affine(x, y, n, s); });
  c.optimized([=](hipStream_t s) { affine<true>(x, y, n, s); });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * n);
  c.flops(Overstated ? 2.0 * (wasted_fmas + 1) * n : 2.0 * n);
}

// ---- persisting L2 -----------------------------------------------------------------------------------
#if defined(KBENCH_PLATFORM_NVIDIA)
// Sets aside L2 for persisting accesses and marks its input persisting on the stream kbench gives it.
void persisting_affine(const float* x, float* y, std::int64_t n, hipStream_t s) {
  int device = 0;
  KBENCH_HIP_CHECK(hipGetDevice(&device));
  int max_window = 0, max_persisting = 0;
  (void)cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device);
  (void)cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device);
  (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(max_persisting));
  cudaStreamAttrValue window{};
  window.accessPolicyWindow.base_ptr = const_cast<float*>(x);
  window.accessPolicyWindow.num_bytes = std::min<std::size_t>(static_cast<std::size_t>(n) * sizeof(float),
                                                              static_cast<std::size_t>(max_window));
  window.accessPolicyWindow.hitRatio = 1.0f;
  window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  (void)cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &window);
  (void)cudaGetLastError();
  affine<true>(x, y, n, s);
}

void persisting_case(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.reference([=](hipStream_t s) { affine<false>(x, y, n, s); });
  c.optimized([=](hipStream_t s) { persisting_affine(x, y, n, s); });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * n);
}

// What the planted kernel set, undone for the tests after it.
void release_persisting_l2() {
  (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
  (void)cudaCtxResetPersistingL2Cache();
  (void)cudaGetLastError();
}
#endif

}  // namespace

TEST_CASE("an honest vectorised kernel 2-3x faster than a scalar reference reads faster, with no finding", "[sampling][perf]") {
  for (const char* mode : {"cold", "batch"}) {
    const kbench::shape& s = std::string(mode) == "cold" ? stream_shape : batch_stream_shape;
    const kbench::perf_outcome o = time(vector_affine_case, s, mode);
    INFO(mode << ": " << findings_of(o));
    REQUIRE(o.timing);
    CHECK(o.passed());
    for (const kbench::sourced_finding& f : o.findings()) CHECK_FALSE(f.fails());
    CHECK(o.timing->verdict == kbench::speedup_verdict::faster);
    CHECK(o.timing->checks.checked >= 1);
    CHECK(o.timing->checks.checked <= o.timing->checks.timed);
    // Its 16 MiB outputs have one copy a sample in batch mode (one per launch would not fit beside the cache).
    if (std::string(mode) == "cold") CHECK(o.timing->checks.limit.empty());
    CHECK(found(o, "timed launches against the reference on the same inputs"));
  }
}

TEST_CASE("an honest kernel more than 10x faster than its reference passes where the roofline bounds it", "[physics][perf]") {
  const kbench::perf_outcome o = time(slow_reference_case<false>, stream_shape, "cold");
  INFO(findings_of(o));
  REQUIRE(o.timing);
  REQUIRE(o.timing->speedup > 10.0);  // the premise: the fixed limit would have failed it
  CHECK(o.passed());
  for (const kbench::sourced_finding& f : o.findings()) CHECK_FALSE(f.fails());
  CHECK(o.timing->roofline.binding == "memory");
  CHECK(o.timing->roofline.optimized_share > 0.3);
  CHECK(o.timing->roofline.optimized_share < 1.05);
  CHECK(found(o, "roofline   memory-bound"));
}

TEST_CASE("a kernel faster than the roofline allows fails, naming the ceiling", "[physics][perf]") {
  const kbench::perf_outcome o = time(slow_reference_case<true>, stream_shape, "cold");
  INFO(findings_of(o));
  REQUIRE(o.timing);
  CHECK_FALSE(o.passed());
  CHECK(o.timing->roofline.binding == "compute");
  CHECK(found(o, "is above the device's measured peak for its arithmetic"));
  CHECK(found(o, "fp32 FMA"));
}

// ---- clocks ------------------------------------------------------------------------------------------
// What share of a timing's samples have a clock.
double share_read(const std::vector<double>& hz) {
  const auto read = std::count_if(hz.begin(), hz.end(), [](double h) { return std::isfinite(h); });
  return hz.empty() ? 0.0 : static_cast<double>(read) / static_cast<double>(hz.size());
}

TEST_CASE("every sample carries the SM clock over it, near the driver's, in every timing mode", "[clocks][perf]") {
  for (const char* mode : {"cold", "hot", "batch"}) {
    const kbench::shape& s = std::string(mode) == "batch" ? batch_stream_shape : stream_shape;
    const kbench::perf_outcome o = time(slow_reference_case<false>, s, mode);
    INFO(mode << ": " << findings_of(o));
    REQUIRE(o.timing);
    const kbench::sample_clocks& c = o.timing->clocks;
    INFO(c.unmeasured);
    REQUIRE(c.measured);
    REQUIRE(c.optimized);
    REQUIRE(c.reference);
    CHECK(c.optimized_hz.size() == o.timing->optimized_samples.size());
    CHECK(c.reference_hz.size() == o.timing->reference_samples.size());
    CHECK(share_read(c.optimized_hz) > 0.95);
    CHECK(share_read(c.reference_hz) > 0.95);
    CHECK(c.optimized->median > 0.5 * c.highest_hz);
    CHECK(c.optimized->median < 1.02 * c.highest_hz);
    CHECK(c.throttled_hz.empty());
    // Both sides of a sample run back to back at one clock: the speedup in cycles is the one in seconds.
    CHECK(c.speedup_in_cycles == Approx(o.timing->speedup).epsilon(0.05));
    // The driver's reading, taken right after the device's ceilings were measured under load.
    const double driver = kbench::detail::device_ceilings_once().clock_setting.current_hz;
    if (driver > 0) CHECK(c.optimized->median == Approx(driver).epsilon(0.1));
  }
}

TEST_CASE("samples below the throttle threshold are left out; with too few left, all count and the timing fails", "[clocks][perf]") {
  const kbench::perf_outcome none = time(slow_reference_case<false>, stream_shape, "cold", 0.0);
  REQUIRE(none.timing);
  CHECK(none.timing->clocks.throttled_hz.empty());
  CHECK(none.passed());
  // Above 1: no sample can meet it, every one is throttled.
  const kbench::perf_outcome all = time(slow_reference_case<false>, stream_shape, "cold", 2.0);
  INFO(findings_of(all));
  REQUIRE(all.timing);
  const kbench::sample_clocks& c = all.timing->clocks;
  CHECK(c.throttled_kept);
  CHECK(c.throttled_hz.size() == all.timing->optimized_samples.size());
  CHECK(all.timing->optimized_samples.size() >= 100);  // sampling went on to the options' minimum, then stopped
  CHECK_FALSE(all.timing->precise);
  CHECK(all.timing->optimized_precision > 0);  // the precision of the samples reported, not of none
  CHECK_FALSE(all.passed());
  CHECK(found(all, "[throttled]"));
  CHECK(found(all, "samples ran below 200% of the highest SM clock"));
  CHECK(found(all, "too few ran unthrottled"));
}

TEST_CASE("a kernel that sniffs the poison in its output gains nothing: every sample's outputs are poisoned", "[sampling][perf]") {
  const kbench::perf_outcome o = time(map_case<map, sniffing_map>, heavy_shape, "cold");
  INFO(findings_of(o));
  REQUIRE(o.timing);
  CHECK(o.timing->verdict != kbench::speedup_verdict::faster);  // it always does the full work
  CHECK_FALSE(found(o, "[timed_launch_wrong]"));
  CHECK(o.timing->checks.checked >= 3);
}

TEST_CASE("a kernel that does less work on a share of its launches is caught by the checks drawn after each sample", "[sampling][perf]") {
  const kbench::perf_outcome o = time(map_case<map, sometimes_approximate_map>, heavy_shape, "cold", 0.75, 600);
  INFO(findings_of(o));
  REQUIRE(o.timing);
  CHECK_FALSE(o.passed());
  CHECK(found(o, "[timed_launch_wrong] a timed launch of the optimized kernel (sample"));
}

TEST_CASE("in batch mode small outputs have a copy per launch: real work on the last launch alone is caught", "[sampling][perf]") {
  const kbench::perf_outcome honest = time(map_case<small_map, small_map>, batch_shape, "batch");
  INFO("honest: " << findings_of(honest));
  REQUIRE(honest.timing);
  CHECK(honest.timing->mode == kbench::timing_mode::batch);
  CHECK(honest.passed());
  // A copy per launch where they fit in a sixteenth of the L2 (the H200's: 16 KiB outputs, ~100 copies).
  int l2_bytes = 0;
  KBENCH_HIP_CHECK(hipDeviceGetAttribute(&l2_bytes, hipDeviceAttributeL2CacheSize, 0));
  if (l2_bytes >= 8000000) CHECK(honest.timing->checks.limit.empty());
  CHECK(honest.timing->checks.timed >= honest.timing->launches_per_sample);
  const kbench::perf_outcome cheat = time(map_case<small_map, last_of_batch_map>, batch_shape, "batch");
  INFO("cheat: " << findings_of(cheat));
  REQUIRE(cheat.timing);
  CHECK(cheat.timing->launches_per_sample > 1);
  CHECK_FALSE(cheat.passed());
  CHECK(found(cheat, "[timed_launch_wrong] a timed launch of the optimized kernel (sample"));
}

TEST_CASE("in batch mode, real work on the checked launches alone is caught against launches alone", "[sampling][perf]") {
  const kbench::perf_outcome honest = time(map_case<watching_map, small_map>, one_copy_shape, "batch");
  INFO("honest: " << findings_of(honest));
  REQUIRE(honest.timing);
  CHECK(honest.timing->mode == kbench::timing_mode::batch);
  CHECK(honest.passed());
  CHECK_FALSE(found(honest, "in a batch the optimized kernel takes"));
  reference_watch = capture_watch{};  // nothing learned from the honest run's captures
  const kbench::perf_outcome cheat = time(map_case<watching_map, checked_launches_only_map>, one_copy_shape, "batch");
  INFO("cheat: " << findings_of(cheat));
  REQUIRE(cheat.timing);
  CHECK(cheat.timing->launches_per_sample > learned_copies);
  CHECK_FALSE(cheat.passed());
  CHECK_FALSE(found(cheat, "[timed_launch_wrong]"));  // the checks reach only the launches that work
  CHECK(found(cheat, "[unseen_work] in a batch the optimized kernel takes"));
}

TEST_CASE("a kernel that sets a persisting access-policy window on its stream is caught", "[sampling][perf][last]") {
#if defined(KBENCH_PLATFORM_NVIDIA)
  const kbench::perf_outcome o = time(persisting_case, stream_shape, "cold");
  release_persisting_l2();
  INFO(findings_of(o));
  REQUIRE(o.timing);
  CHECK_FALSE(o.passed());
  CHECK(found(o, "[persisting_cache] the optimized kernel set an access-policy window"));
#else
  WARN("skipped: AMD GPUs have no persisting L2, so there is no access-policy window to set and nothing to catch");
  SUCCEED();
#endif
}
