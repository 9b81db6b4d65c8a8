// Planted bugs and cheats in rmsnorm v2, each of which kbench must catch with a reason that names it, and
// correct-but-different variants, which must pass. Runs on a GPU (skipped without one).
//
//   caught by the correctness run: skipping the last row, a missing row tail, writing nothing, writing
//   zeros, writing the input, fp16 accumulation, writing past the end and before the start, changing an
//   input, computing on the first call only, caching on the input pointer, a kernel tuned for one shape,
//   a failing launch, a reference that leaves elements unwritten, a tolerance that accepts all zeros;
//   caught by the timing: work moved to another stream (left running, or waited for inside the call), an
//   implausible speedup; and, by the checks of the
//   timed launches, kernels that skip work, change an input, write past the output or copy the
//   reference's output only while timed (copying it always is caught by the correctness run).
#include <kbench/compare.hpp>
#include <kbench/contract/device_buffer.hpp>
#include <kbench/engines/measure.hpp>
#include <kbench/program/options.hpp>
#include <kbench/procedure.hpp>
#include <kbench/reports/report.hpp>
#include <kbench/engines/timing.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "catch.hpp"
#include "support/catch2_runner.hpp"
#include "support/rushed.hpp"

#include "rmsnorm/rmsnorm_v1.hip"
#include "rmsnorm/rmsnorm_v2.hip"

const char* const kbench_test::suite_name = "the mutation suite";

namespace {

using launch_fn = void (*)(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols,
                           hipStream_t s);

constexpr float eps = 1e-6f;

// ---- variants --------------------------------------------------------------------------------------
void correct(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  rmsnorm_v2::launch<__half>(x, w, y, rows, cols, eps, s);
}

void skip_last_row(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  rmsnorm_v2::launch<__half>(x, w, y, rows - 1, cols, eps, s);
}

void write_nothing(const __half*, const __half*, __half*, std::int64_t, std::int64_t, hipStream_t) {}

void write_zeros(const __half*, const __half*, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  KBENCH_HIP_CHECK(hipMemsetAsync(y, 0, static_cast<std::size_t>(rows * cols) * sizeof(__half), s));
}

__global__ void copy_kernel(const __half* x, __half* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = x[i];
}
// Plausible garbage: the input passed through, not normalised.
void write_input(const __half* x, const __half*, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  const std::int64_t n = rows * cols;
  hipLaunchKernelGGL(copy_kernel, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0, s, x, y, n);
}

__global__ void poke_kernel(__half* p, std::int64_t offset) { p[offset] = __float2half(7.0f); }  // outside every input range
void write_past_end(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  correct(x, w, y, rows, cols, s);
  hipLaunchKernelGGL(poke_kernel, dim3(1), dim3(1), 0, s, y, rows * cols);
}
void write_before_start(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  correct(x, w, y, rows, cols, s);
  hipLaunchKernelGGL(poke_kernel, dim3(1), dim3(1), 0, s, y, std::int64_t{-3});
}
void mutate_input(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  correct(x, w, y, rows, cols, s);
  hipLaunchKernelGGL(poke_kernel, dim3(1), dim3(1), 0, s, const_cast<__half*>(x), rows * cols / 2);
}

// Correct on the first call of the program, then it leaves the output alone (a cache of one result).
std::atomic<int> calls{0};
void first_call_only(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  if (calls++ == 0) correct(x, w, y, rows, cols, s);
}

// Accumulates the sum of squares in fp16: wrong for long rows.
__global__ void half_accumulation_kernel(const __half* x, const __half* w, __half* y, std::int64_t cols) {
  __shared__ float total;
  if (threadIdx.x == 0) {
    __half sum = __float2half(0.0f);
    for (std::int64_t j = 0; j < cols; ++j) sum = __hadd(sum, __hmul(x[blockIdx.x * cols + j], x[blockIdx.x * cols + j]));
    total = __half2float(sum);
  }
  __syncthreads();
  const float inv = rsqrtf(total / static_cast<float>(cols) + eps);
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    y[blockIdx.x * cols + j] = __float2half(__half2float(x[blockIdx.x * cols + j]) * inv * __half2float(w[j]));
  }
}
void half_accumulation(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  hipLaunchKernelGGL(half_accumulation_kernel, dim3(static_cast<unsigned int>(rows)), dim3(256), 0, s, x, w, y, cols);
}

// Handles whole groups of 8 elements only: the last cols % 8 elements of each row stay unwritten.
__global__ void no_tail_kernel(const __half* x, const __half* w, __half* y, std::int64_t cols) {
  const __half* row = x + blockIdx.x * cols;
  const std::int64_t covered = cols / 8 * 8;
  float sum = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) sum += __half2float(row[j]) * __half2float(row[j]);
  const float inv = rsqrtf(kernels::block_sum(sum) / static_cast<float>(cols) + eps);
  for (std::int64_t j = threadIdx.x; j < covered; j += blockDim.x) {
    y[blockIdx.x * cols + j] = __float2half(__half2float(row[j]) * inv * __half2float(w[j]));
  }
}
void no_tail(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  hipLaunchKernelGGL(no_tail_kernel, dim3(static_cast<unsigned int>(rows)), dim3(256), 0, s, x, w, y, cols);
}

void invalid_launch(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  hipLaunchKernelGGL(rmsnorm_v1::rmsnorm_kernel, dim3(static_cast<unsigned int>(rows)), dim3(4096), 0, s, x, w, y, cols, eps);
}

// Works only for the shape it was tuned on: the row stride is hard-coded to 8192.
void hard_coded_shape(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t, hipStream_t s) {
  rmsnorm_v2::launch<__half>(x, w, y, rows, 8192, eps, s);
}

// Caches its result keyed on the input pointer: computes once into a private buffer, then copies it out
// for as long as the pointer stays the same, whatever the input now holds.
struct pointer_cache_state {
  const void* key = nullptr;
  kbench::device_allocation saved;
};
void cache_by_pointer(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  static pointer_cache_state pointer_cache;
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * sizeof(__half);
  if (pointer_cache.key != x || pointer_cache.saved.bytes() != bytes) {
    pointer_cache.saved = kbench::device_allocation(bytes);
    correct(x, w, static_cast<__half*>(pointer_cache.saved.data()), rows, cols, s);
    pointer_cache.key = x;
  }
  KBENCH_HIP_CHECK(hipMemcpyAsync(y, pointer_cache.saved.data(), bytes, hipMemcpyDeviceToDevice, s));
}

// Does the work on a stream of its own and returns: the timed stream sees nothing.
void other_stream(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t) {
  static kbench::stream side;
  correct(x, w, y, rows, cols, side.get());
}

// Does the work on a stream of its own and waits for it before returning: the timed stream, held behind the
// launch gate until both sides are queued, sees nothing of it.
void waited_stream(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t) {
  static kbench::stream side;
  correct(x, w, y, rows, cols, side.get());
  KBENCH_HIP_CHECK(hipStreamSynchronize(side.get()));
}

// A reference made slow on purpose (a 2 ms spin first): the speedup it yields is implausible.
void slowed_reference(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  static const kbench::spinner spin(s);
  spin.enqueue(s, 2e-3);
  correct(x, w, y, rows, cols, s);
}

// Cheats that behave in a correctness run (which launches the optimized kernel about 130 times: once, again
// on the same inputs, up to three more under load, with buffers moved off their alignment at every offset in
// five groups (110 launches for these three fp16 buffers: 22 offsets below 256 bytes; all, the output, the
// inputs, each input alone), twice with each buffer against unmapped memory (6), once per run at the edges of
// the inputs' values (6 here, each after a reference run and a comparison on the host), once per run with
// spikes or another family (3 here), and on the checked
// buffers again) and misbehave once called in quick succession about twice as often, as in the warm-up
// (300 launches here) and the timed loop: they skip the work, change an input, or write past the output
// (support/rushed.hpp).
using kbench_test::rushed;
void skips_when_rushed(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  if (!rushed<0>()) correct(x, w, y, rows, cols, s);
}
void skips_every_other_call_when_rushed(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols,
                                        hipStream_t s) {
  static int calls = 0;
  if (rushed<3>() && calls++ % 2 == 1) return;
  correct(x, w, y, rows, cols, s);
}
void mutates_input_when_rushed(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols,
                               hipStream_t s) {
  correct(x, w, y, rows, cols, s);
  if (rushed<1>()) hipLaunchKernelGGL(poke_kernel, dim3(1), dim3(1), 0, s, const_cast<__half*>(x), rows * cols / 3);
}
void writes_past_end_when_rushed(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols,
                                 hipStream_t s) {
  correct(x, w, y, rows, cols, s);
  if (rushed<2>()) hipLaunchKernelGGL(poke_kernel, dim3(1), dim3(1), 0, s, y, rows * cols + 100);
}

// Copies the reference's output, from the pointer the reference's last launch wrote, instead of computing:
// always, or (like the cheats above) only when called in quick succession.
__half* reference_output = nullptr;
void recording_reference(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  reference_output = y;
  correct(x, w, y, rows, cols, s);
}
void copy_reference_output(__half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  if (reference_output) {
    KBENCH_HIP_CHECK(hipMemcpyAsync(y, reference_output, static_cast<std::size_t>(rows * cols) * sizeof(__half),
                                    hipMemcpyDeviceToDevice, s));
  }
}
void copies_reference(const __half*, const __half*, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  copy_reference_output(y, rows, cols, s);
}
void copies_reference_when_rushed(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols,
                                  hipStream_t s) {
  if (rushed<4>()) {
    copy_reference_output(y, rows, cols, s);
  } else {
    correct(x, w, y, rows, cols, s);
  }
}

// Correct but different: another summation order (each thread sums its elements backwards, one wave-level
// reduction less) must pass the same tolerance.
__global__ void backwards_kernel(const __half* x, const __half* w, __half* y, std::int64_t cols) {
  const __half* row = x + blockIdx.x * cols;
  float sum = 0.0f;
  for (std::int64_t j = cols - 1 - threadIdx.x; j >= 0; j -= blockDim.x) sum += __half2float(row[j]) * __half2float(row[j]);
  const float inv = rsqrtf(kernels::block_sum(sum) / static_cast<float>(cols) + eps);
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    y[blockIdx.x * cols + j] = __float2half(__half2float(row[j]) * inv * __half2float(w[j]));
  }
}
void backwards(const __half* x, const __half* w, __half* y, std::int64_t rows, std::int64_t cols, hipStream_t s) {
  hipLaunchKernelGGL(backwards_kernel, dim3(static_cast<unsigned int>(rows)), dim3(128), 0, s, x, w, y, cols);
}

// ---- cases -----------------------------------------------------------------------------------------
template <launch_fn Optimized, launch_fn Reference = correct>
void declare(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<__half>("x", {rows, cols}, kbench::uniform(-2, 2));
  auto w = c.input<__half>("w", {cols}, kbench::uniform(0.5, 1.5));
  auto y = c.output<__half>("y", {rows, cols});
  c.reference([=](hipStream_t s) { Reference(x, w, y, rows, cols, s); });
  c.optimized([=](hipStream_t s) { Optimized(x, w, y, rows, cols, s); });
  c.tolerance(kbench::tol::ulp{1});
}

void correct_case(kbench::kernel_case& c) { declare<correct>(c); }
void backwards_case(kbench::kernel_case& c) { declare<backwards>(c); }
void skip_last_row_case(kbench::kernel_case& c) { declare<skip_last_row>(c); }
void write_nothing_case(kbench::kernel_case& c) { declare<write_nothing>(c); }
void write_zeros_case(kbench::kernel_case& c) { declare<write_zeros>(c); }
void write_input_case(kbench::kernel_case& c) { declare<write_input>(c); }
void write_past_end_case(kbench::kernel_case& c) { declare<write_past_end>(c); }
void write_before_start_case(kbench::kernel_case& c) { declare<write_before_start>(c); }
void mutate_input_case(kbench::kernel_case& c) { declare<mutate_input>(c); }
void first_call_only_case(kbench::kernel_case& c) { declare<first_call_only>(c); }
void half_accumulation_case(kbench::kernel_case& c) { declare<half_accumulation>(c); }
void no_tail_case(kbench::kernel_case& c) { declare<no_tail>(c); }
void invalid_launch_case(kbench::kernel_case& c) { declare<invalid_launch>(c); }
void reference_skips_row_case(kbench::kernel_case& c) { declare<correct, skip_last_row>(c); }
void hard_coded_shape_case(kbench::kernel_case& c) { declare<hard_coded_shape>(c); }
void cache_by_pointer_case(kbench::kernel_case& c) { declare<cache_by_pointer>(c); }
void other_stream_case(kbench::kernel_case& c) {
  declare<other_stream>(c);
  c.bytes_moved(4.0 * c.dim("rows") * c.dim("cols"));
}
void waited_stream_case(kbench::kernel_case& c) {
  declare<waited_stream>(c);
  c.bytes_moved(4.0 * c.dim("rows") * c.dim("cols"));
}
void slowed_reference_case(kbench::kernel_case& c) { declare<correct, slowed_reference>(c); }
void skips_when_rushed_case(kbench::kernel_case& c) { declare<skips_when_rushed>(c); }
void mutates_input_when_rushed_case(kbench::kernel_case& c) { declare<mutates_input_when_rushed>(c); }
void skips_every_other_call_when_rushed_case(kbench::kernel_case& c) { declare<skips_every_other_call_when_rushed>(c); }
void copies_reference_case(kbench::kernel_case& c) { declare<copies_reference, recording_reference>(c); }
void copies_reference_when_rushed_case(kbench::kernel_case& c) {
  declare<copies_reference_when_rushed, recording_reference>(c);
}
void writes_past_end_when_rushed_case(kbench::kernel_case& c) { declare<writes_past_end_when_rushed>(c); }
void out_of_memory_case(kbench::kernel_case& c) {
  auto x = c.input<float>("x", {std::int64_t{1} << 40});  // 4 TiB
  auto y = c.output<float>("y", {8});
  c.reference([=](hipStream_t) { (void)x, (void)y; });
  c.optimized([=](hipStream_t) {});
}
void all_zero_tolerance_case(kbench::kernel_case& c) {
  declare<correct>(c);
  c.tolerance(kbench::tol::absolute{100.0});  // wider than any output: accepts all zeros
}

// ---- scratch memory (kernel_case::scratch): y computed into a staging buffer, then copied out ----------
using scratch_launch_fn = void (*)(const __half* x, const __half* w, __half* y, __half* staging, std::int64_t rows,
                                   std::int64_t cols, hipStream_t s);
void through_scratch(const __half* x, const __half* w, __half* y, __half* staging, std::int64_t rows, std::int64_t cols,
                     hipStream_t s) {
  correct(x, w, staging, rows, cols, s);
  write_input(staging, w, y, rows, cols, s);  // the copy
}
__global__ void add_kernel(const __half* a, __half* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = __float2half(__half2float(y[i]) + __half2float(a[i]));
}
// Expects its scratch to start at zero (as a fresh hipMalloc often does): adds it to the result.
void expects_zeroed_scratch(const __half* x, const __half* w, __half* y, __half* staging, std::int64_t rows,
                            std::int64_t cols, hipStream_t s) {
  correct(x, w, y, rows, cols, s);
  hipLaunchKernelGGL(add_kernel, dim3(static_cast<unsigned int>((rows * cols + 255) / 256)), dim3(256), 0, s, staging, y,
                     rows * cols);
}
void scratch_overrun(const __half* x, const __half* w, __half* y, __half* staging, std::int64_t rows, std::int64_t cols,
                     hipStream_t s) {
  through_scratch(x, w, y, staging, rows, cols, s);
  hipLaunchKernelGGL(poke_kernel, dim3(1), dim3(1), 0, s, staging, rows * cols);
}
template <scratch_launch_fn Optimized>
void declare_with_scratch(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<__half>("x", {rows, cols}, kbench::uniform(-2, 2));
  auto w = c.input<__half>("w", {cols}, kbench::uniform(0.5, 1.5));
  auto y = c.output<__half>("y", {rows, cols});
  auto staging = c.scratch<__half>("staging", rows * cols);
  c.reference([=](hipStream_t s) { correct(x, w, y, rows, cols, s); });
  c.optimized([=](hipStream_t s) { Optimized(x, w, y, staging, rows, cols, s); });
  c.tolerance(kbench::tol::ulp{1});
}
void through_scratch_case(kbench::kernel_case& c) { declare_with_scratch<through_scratch>(c); }
void expects_zeroed_scratch_case(kbench::kernel_case& c) { declare_with_scratch<expects_zeroed_scratch>(c); }
void scratch_overrun_case(kbench::kernel_case& c) { declare_with_scratch<scratch_overrun>(c); }

const kbench::shape odd{{"rows", 37}, {"cols", 1531}};
const kbench::shape wide{{"rows", 64}, {"cols", 8192}};
const kbench::shape large{{"rows", 8192}, {"cols", 8192}};

const kbench::case_registration& registration(kbench::case_function f) {
  static std::deque<kbench::case_registration> keep;  // registrations outlive the runs
  return keep.emplace_back("mutant", f, __FILE__, __LINE__);
}

// Both start after a pause, so that the first launch of a run never counts as rushed (see rushed()).
kbench::seed_result check(kbench::case_function f, const kbench::shape& s, std::uint64_t seed = 0x5EED) {
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return kbench::check_case(registration(f), s, seed);
}

// The perf procedure with a short sampling budget, in the given timing mode, rotating among `sets` inputs.
kbench::perf_outcome time(kbench::case_function f, const kbench::shape& s, const char* mode = "auto",
                          const char* sets = "auto") {
  // 300 launches of warm-up, where a perf run's own ends once the clock is up: the rushed plants wake in
  // it, before a batch's capture, as a cheat keyed on a burst of calls would in a longer warm-up.
  const char* argv[] = {"mutation_test", "perf", "--max-time", "0.5", "--timing", mode, "--input-sets", sets, "--warmup", "300"};
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return kbench::measure_case(registration(f), s, kbench::parse_options(10, argv), 0x7157);
}

std::string flags_of(const kbench::perf_outcome& o) {
  std::string all;
  if (o.timing) {
    for (const kbench::finding& f : o.timing->findings) {
      if (f.fails()) all += "[" + std::string(kbench::to_string(f.kind)) + "] " + f.text + "\n";
    }
  }
  return all;
}

std::string everything(const kbench::seed_result& r) {
  return kbench::format_seed_result("mutant", {}, r);
}

// Requires a failing verdict whose report contains `reason`.
void require_caught(kbench::case_function f, const kbench::shape& s, const std::string& reason) {
  const kbench::seed_result r = check(f, s);
  const std::string report = everything(r);
  INFO(report);
  CHECK_FALSE(r.passed());
  CHECK(report.find(reason) != std::string::npos);
}

}  // namespace

TEST_CASE("correct variants pass: v2 itself and another summation order", "[mutation]") {
  for (const kbench::shape& s : {odd, wide}) {
    const kbench::seed_result a = check(correct_case, s), b = check(backwards_case, s);
    INFO(everything(a) << everything(b));
    CHECK(a.passed());
    CHECK(b.passed());
  }
}

TEST_CASE("skipping the last row is caught as unwritten elements at the last row", "[mutation]") {
  require_caught(skip_last_row_case, odd, "1531 of 56647 elements (2.703%) were never written (first at (36, 0))");
  require_caught(skip_last_row_case, wide, "were never written (first at (63, 0))");
}

TEST_CASE("writing nothing is caught as every element unwritten", "[mutation]") {
  require_caught(write_nothing_case, odd, "56647 of 56647 elements (100%) were never written");
}

TEST_CASE("writing zeros or the unnormalised input is caught as a mismatch", "[mutation]") {
  require_caught(write_zeros_case, odd, "mismatch, 0 allowed");
  require_caught(write_input_case, wide, "mismatch, 0 allowed");
}

TEST_CASE("writes outside the output are caught by the guard regions", "[mutation]") {
  require_caught(write_past_end_case, odd, "the optimized kernel wrote outside output 'y': 2 bytes changed past the end (first at byte 113294");
  require_caught(write_before_start_case, wide, "the optimized kernel wrote outside output 'y': 2 bytes changed before the start (nearest at offset -5)");
}

TEST_CASE("changing an input is caught", "[mutation]") {
  require_caught(mutate_input_case, odd, "the optimized kernel modified input 'x'");
}

TEST_CASE("a kernel correct only on its first call is caught by the rerun on the same inputs", "[mutation]") {
  calls = 0;
  require_caught(first_call_only_case, odd, "were never written");
  calls = 0;
  require_caught(first_call_only_case, odd, "note: the optimized kernel gave other bits on the same inputs");
}

TEST_CASE("fp16 accumulation and a missing row tail are caught", "[mutation]") {
  require_caught(half_accumulation_case, wide, "mismatch, 0 allowed");
  require_caught(no_tail_case, odd, "111 of 56647 elements (0.196%) were never written (first at (0, 1528))");
}

TEST_CASE("scratch memory: used as declared it passes; expected zeroed, or written past its end, it is caught", "[mutation]") {
  for (const kbench::shape& s : {odd, wide}) {
    const kbench::seed_result r = check(through_scratch_case, s);
    INFO(everything(r));
    CHECK(r.passed());
  }
  const kbench::seed_result zeroed = check(expects_zeroed_scratch_case, odd);  // the poison reaches y
  INFO(everything(zeroed));
  CHECK_FALSE(zeroed.passed());
  require_caught(scratch_overrun_case, odd, "the optimized kernel wrote outside scratch 'staging': 2 bytes changed past the end (first at byte 113294");
}

TEST_CASE("a launch that fails is an error naming the launch", "[mutation]") {
  CHECK_THROWS_WITH(check(invalid_launch_case, odd), kbench_test::contains("the optimized launch of 'mutant' failed"));
}

TEST_CASE("a reference that leaves elements unwritten is reported", "[mutation]") {
  require_caught(reference_skips_row_case, odd, "the reference left 1531 of 56647 elements of output 'y' unwritten");
}

TEST_CASE("a kernel tuned for one shape is caught at another", "[mutation]") {
  CHECK(check(hard_coded_shape_case, wide).passed());
  require_caught(hard_coded_shape_case, odd, "mismatch");
}

TEST_CASE("a result cached on the input pointer is caught when the input changes", "[mutation]") {
  // The first run computes; the first seed's runs at the edges draw other values into the same buffers (x
  // 128 times larger gives the same rmsnorm, so the stale result passes there; 2^-10 times, eps shows).
  require_caught(cache_by_pointer_case, odd, "output 'y' disagrees with the reference");  // spikes first, or the edges
  require_caught(cache_by_pointer_case, odd, "mismatch, 0 allowed");  // a new case, its buffers where the last ones were
}

TEST_CASE("work moved to another stream passes correctness but its timing is flagged", "[mutation][perf]") {
  CHECK(check(other_stream_case, large).passed());
  // Timed one launch at a time, the device is still busy when the timed stream is done.
  const kbench::perf_outcome cold = time(other_stream_case, large, "cold");
  INFO(flags_of(cold));
  CHECK_FALSE(cold.passed());
  CHECK(flags_of(cold).find("outside the timed region") != std::string::npos);
  // Batched (automatic mode picks it: the timed stream looks idle), the captured graph is empty.
  const kbench::perf_outcome batched = time(other_stream_case, large);
  INFO(flags_of(batched));
  CHECK_FALSE(batched.passed());
  CHECK(flags_of(batched).find("put no work on the stream kbench gave it") != std::string::npos);
}

TEST_CASE("work waited for on another stream inside the call is flagged", "[mutation][perf]") {
  CHECK(check(waited_stream_case, large).passed());
  // Cold: the timed stream holds nothing but the events; the call, timed while every compute unit is busy
  // from another stream, waits for that load.
  const kbench::perf_outcome cold = time(waited_stream_case, large, "cold");
  INFO(flags_of(cold));
  CHECK_FALSE(cold.passed());
  // On the H200 (0c1985c) the side was timed without the gate, so the whole-call rule flagged it; either
  // rule names the work as unseen.
  CHECK(flags_of(cold).find("[unseen_work]") != std::string::npos);
}

TEST_CASE("an implausible speedup is flagged; an honest one is not", "[mutation][perf]") {
  const kbench::perf_outcome slowed = time(slowed_reference_case, odd);
  INFO(flags_of(slowed));
  CHECK_FALSE(slowed.passed());
  CHECK(flags_of(slowed).find("implausible speedup") != std::string::npos);
  const kbench::perf_outcome honest = time(correct_case, large);
  INFO(flags_of(honest));
  CHECK(honest.passed());
}

TEST_CASE("a kernel that skips work while timed is caught by the check of the last timed launch", "[mutation][perf]") {
  CHECK(check(skips_when_rushed_case, odd).passed());  // up to ~50 launches per correctness run: it computes
  for (const char* mode : {"cold", "hot"}) {
    for (const char* sets : {"auto", "1"}) {
      const kbench::perf_outcome o = time(skips_when_rushed_case, wide, mode, sets);
      INFO(mode << ", input sets " << sets << ": " << flags_of(o));
      CHECK_FALSE(o.passed());
      CHECK(flags_of(o).find("timed launch of the optimized kernel (sample") != std::string::npos);
      CHECK(flags_of(o).find("were never written") != std::string::npos);
    }
  }
  // Batched, the skipped calls leave holes in the captured graph: every call, or those after the streak
  // resumed, as the time between the warm-up and the capture allows.
  const kbench::perf_outcome batched = time(skips_when_rushed_case, odd, "batch");
  INFO(flags_of(batched));
  CHECK_FALSE(batched.passed());
  CHECK(flags_of(batched).find("[unseen_work] the optimized launch put no work on the stream") != std::string::npos);
  const kbench::perf_outcome holes = time(skips_every_other_call_when_rushed_case, odd, "batch");
  INFO(flags_of(holes));
  CHECK_FALSE(holes.passed());
  CHECK(flags_of(holes).find("the optimized launch put no work on the stream on some calls") != std::string::npos);
}

TEST_CASE("copying the reference's output is caught, in the correctness run and while timed", "[mutation][perf]") {
  // The optimized kernel runs before the reference: there is nothing to copy yet.
  reference_output = nullptr;
  require_caught(copies_reference_case, odd, "56647 of 56647 elements (100%) were never written");
  CHECK(check(copies_reference_when_rushed_case, odd).passed());
  for (const char* mode : {"cold", "batch"}) {
    const kbench::perf_outcome o = time(copies_reference_when_rushed_case, wide, mode);
    INFO(mode << ": " << flags_of(o));
    CHECK_FALSE(o.passed());
    CHECK(flags_of(o).find("timed launch of the optimized kernel (sample") != std::string::npos);
  }
}

TEST_CASE("changing an input or writing past the output while timed is caught after the timing", "[mutation][perf]") {
  CHECK(check(mutates_input_when_rushed_case, odd).passed());
  CHECK(check(writes_past_end_when_rushed_case, odd).passed());
  for (const char* mode : {"cold", "batch"}) {
    const kbench::perf_outcome mutated = time(mutates_input_when_rushed_case, wide, mode);
    INFO(mode << ": " << flags_of(mutated));
    CHECK_FALSE(mutated.passed());
    CHECK(flags_of(mutated).find("while timed, a launch modified input 'x'") != std::string::npos);
    const kbench::perf_outcome overrun = time(writes_past_end_when_rushed_case, wide, mode);
    INFO(mode << ": " << flags_of(overrun));
    CHECK_FALSE(overrun.passed());
    CHECK(flags_of(overrun).find("while timed, the optimized kernel wrote outside output 'y': 2 bytes changed past the end") !=
          std::string::npos);
  }
}

TEST_CASE("an honest kernel passes in every timing mode, whatever the input rotation", "[mutation][perf]") {
  for (const char* mode : {"cold", "hot", "batch"}) {
    for (const char* sets : {"1", "auto", "beyond-cache"}) {
      const kbench::perf_outcome o = time(correct_case, wide, mode, sets);
      INFO(mode << ", input sets " << sets << ": " << flags_of(o) << (o.timing ? o.timing->method : ""));
      CHECK(o.passed());
      REQUIRE(o.timing);
      // Fresh sets before every sample: one in cold and hot mode, one per launch of a batch; beyond the
      // cache, as many as together hold the cold flush (at least 256 MiB).
      if (std::string(sets) == "beyond-cache") {
        CHECK(o.timing->input_sets * o.timing->input_set_bytes >= 256.0 * 1048576.0);
      } else if (std::string(mode) == "batch") {
        CHECK(o.timing->input_sets == o.timing->launches_per_sample);
      } else {
        CHECK(o.timing->input_sets == 1);
      }
    }
  }
}

TEST_CASE("an allocation larger than the GPU is a clear error, and the GPU stays usable", "[mutation]") {
  CHECK_THROWS_WITH(check(out_of_memory_case, odd), kbench_test::contains("hipMalloc of 4398046511104 bytes failed"));
  CHECK(check(correct_case, odd).passed());
}

TEST_CASE("a tolerance that accepts all zeros is a broken test", "[mutation]") {
  require_caught(all_zero_tolerance_case, odd, "broken test: tolerance 'absolute(atol=100)' of output 'y' accepts an all-zero output");
}
