// Trust, round four: errors inside the tolerance that all lean one way. Each element of these planted
// kernels is within its case's tolerance (atol hides them: the values are small against it); their sums are
// not. kbench must fail each with the reason, whether the output is compared on the host or on the GPU
// (2^20 elements and more); honest kernels whose errors scatter must pass. Runs on a GPU (skipped without one).
//
// Softmax over rows of `cols` logits, fp32, under allclose{1e-3, 1e-4} (probabilities near 1/cols are judged
// almost by atol alone). The reference: one block per row, the sums in a shared-memory tree.
//   honest_atomics  the row's sums by float atomics in shared memory: another order on each run
//   honest_serial   one thread sums the row left to right: another order, the same every run
//   leans_all       every probability 3% high: the rows sum to 1.03
//   leans_by_row    rows alternately 3% high and 3% low: the whole output cancels, each row does not
//   leans_one_row   row 5 alone 4% high
// Quantized to a grid of 2^-10, fp32, under allclose{0, 2^-10} (a step of the grid is allowed):
//   honest_round    round half to even, against the reference's round half away from zero
//   floors          floor instead of round: every value half a step low on average
//   scales          the step taken as 2^-10 (1 + 2^-11): values of both signs, their magnitudes 0.05% high
//                   (at most half a step): the plain sum of the errors cancels, their sum toward the
//                   magnitudes does not
#include <kbench/compare.hpp>
#include <kbench/program/options.hpp>
#include <kbench/procedure.hpp>
#include <kbench/reports/report.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <thread>

#include "catch.hpp"
#include "support/catch2_runner.hpp"

const char* const kbench_test::suite_name = "the bias trust tests";

namespace {

// ---- harness -----------------------------------------------------------------------------------------
const kbench::case_registration& registration(kbench::case_function f) {
  static std::deque<kbench::case_registration> keep;  // registrations outlive the runs
  return keep.emplace_back("bias", f, __FILE__, __LINE__);
}

kbench::seed_result check(kbench::case_function f, const kbench::shape& s) {
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return kbench::check_case(registration(f), s, 0xb1a5);
}

std::string report_of(const kbench::seed_result& r) { return kbench::format_seed_result("bias", {}, r); }
bool says(const kbench::seed_result& r, const std::string& text) { return report_of(r).find(text) != std::string::npos; }

// ---- softmax -----------------------------------------------------------------------------------------
enum class variant { reference, honest_atomics, honest_serial, leans_all, leans_by_row, leans_one_row };

// One block of 256 threads per row: the maximum, the sum of exp(x - max) (in the variant's order), then each
// probability, leaned as the variant says.
template <variant V>
__global__ void __launch_bounds__(256) softmax_kernel(const float* x, float* p, int cols) {
  __shared__ float partial[256];
  __shared__ float total;
  const float* row = x + static_cast<std::int64_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int width = 128; width > 0; width /= 2) {
    if (threadIdx.x < width) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + width]);
    __syncthreads();
  }
  m = partial[0];
  __syncthreads();
  if (V == variant::honest_serial) {
    if (threadIdx.x == 0) {
      float s = 0.0f;
      for (int c = 0; c < cols; ++c) s += expf(row[c] - m);
      total = s;
    }
  } else {
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
    if (V == variant::honest_atomics) {
      if (threadIdx.x == 0) total = 0.0f;
      __syncthreads();
      atomicAdd(&total, s);
    } else {
      partial[threadIdx.x] = s;
      __syncthreads();
      for (int width = 128; width > 0; width /= 2) {
        if (threadIdx.x < width) partial[threadIdx.x] += partial[threadIdx.x + width];
        __syncthreads();
      }
      if (threadIdx.x == 0) total = partial[0];
    }
  }
  __syncthreads();
  float lean = 1.0f;
  if (V == variant::leans_all) lean = 1.03f;
  if (V == variant::leans_by_row) lean = blockIdx.x % 2 ? 1.03f : 0.97f;
  if (V == variant::leans_one_row && blockIdx.x == 5) lean = 1.04f;
  float* out = p + static_cast<std::int64_t>(blockIdx.x) * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) / total * lean;
}

template <variant V>
void softmax_case(kbench::kernel_case& c) {
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto x = c.input<float>("x", {rows, cols}, kbench::uniform(-1.0, 1.0));
  auto p = c.output<float>("p", {rows, cols});
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(softmax_kernel<variant::reference>, dim3(static_cast<unsigned int>(rows)), dim3(256), 0, s, x.get(),
                       p.get(), static_cast<int>(cols));
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(softmax_kernel<V>, dim3(static_cast<unsigned int>(rows)), dim3(256), 0, s, x.get(), p.get(),
                       static_cast<int>(cols));
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.tolerance(kbench::tol::allclose{1e-3, 1e-4});
  c.bytes_moved(8.0 * static_cast<double>(rows * cols));
}

// ---- quantization to a grid --------------------------------------------------------------------------
enum class rounding { away, even, floor, scales };

template <rounding R>
__global__ void quantize_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float steps = x[i] * 1024.0f;
  const float q = R == rounding::away || R == rounding::scales ? roundf(steps) : R == rounding::even ? rintf(steps) : floorf(steps);
  y[i] = R == rounding::scales ? q * (1.0f + 0x1p-11f) / 1024.0f : q / 1024.0f;
}

template <rounding R>
void quantize_case(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n}, kbench::uniform(-1.0, 1.0));
  auto y = c.output<float>("y", {n});
  const dim3 grid(static_cast<unsigned int>((n + 255) / 256));
  c.reference([=](hipStream_t s) {
    hipLaunchKernelGGL(quantize_kernel<rounding::away>, grid, dim3(256), 0, s, x.get(), y.get(), n);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.optimized([=](hipStream_t s) {
    hipLaunchKernelGGL(quantize_kernel<R>, grid, dim3(256), 0, s, x.get(), y.get(), n);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  c.tolerance(kbench::tol::allclose{0.0, 1.0 / 1024.0});
  c.bytes_moved(8.0 * static_cast<double>(n));
}

// Compared on the host (below 2^20 elements) and on the GPU.
const kbench::shape host_rows{{"rows", 64}, {"cols", 1024}};
const kbench::shape device_rows{{"rows", 2048}, {"cols", 1024}};

// An output's comparison: no element outside the tolerance, and the audit of its signs made.
const kbench::comparison& within_elements(const kbench::seed_result& r) {
  REQUIRE(r.outputs.size() == 1);
  const kbench::comparison& out = r.outputs[0].result;
  CHECK(out.mismatches == 0);
  REQUIRE(out.bias);
  return out;
}

}  // namespace

TEST_CASE("honest softmax sums in other orders pass, on the host and on the GPU", "[bias]") {
  for (const kbench::shape& s : {host_rows, device_rows}) {
    for (kbench::case_function f : {softmax_case<variant::honest_atomics>, softmax_case<variant::honest_serial>}) {
      const kbench::seed_result r = check(f, s);
      INFO(report_of(r));
      CHECK(r.passed());
      const kbench::comparison& p = within_elements(r);
      CHECK(p.bias->groups == static_cast<std::size_t>(s["rows"]) + 1);
      CHECK(p.bias->worst_ratio < 0.5);
    }
  }
}

TEST_CASE("a softmax whose rows sum to 1.03 is caught, each element inside the tolerance", "[bias]") {
  for (const kbench::shape& s : {host_rows, device_rows}) {
    const kbench::seed_result r = check(softmax_case<variant::leans_all>, s);
    INFO(report_of(r));
    CHECK_FALSE(r.passed());
    const kbench::comparison& p = within_elements(r);
    CHECK(p.bias->worst_bias == Approx(0.03).epsilon(0.01));
    CHECK(says(r, "the errors lean one way: over "));
  }
}

TEST_CASE("rows leaning each way, cancelling in the whole output, are caught by row", "[bias]") {
  for (const kbench::shape& s : {host_rows, device_rows}) {
    const kbench::seed_result r = check(softmax_case<variant::leans_by_row>, s);
    INFO(report_of(r));
    CHECK_FALSE(r.passed());
    within_elements(r);
    CHECK(says(r, "the errors lean one way: over row "));
  }
  const kbench::seed_result one = check(softmax_case<variant::leans_one_row>, device_rows);
  INFO(report_of(one));
  CHECK_FALSE(one.passed());
  CHECK(says(one, "the errors lean one way: over row 5 they sum to 4"));
}

TEST_CASE("rounding to a grid: half to even passes; floor, or a step 0.05% long, is caught", "[bias]") {
  for (const kbench::shape& s : {kbench::shape{{"n", 100000}}, kbench::shape{{"n", 1 << 21}}}) {
    const kbench::seed_result even = check(quantize_case<rounding::even>, s);
    INFO(report_of(even));
    CHECK(even.passed());
    const kbench::seed_result floors = check(quantize_case<rounding::floor>, s);
    INFO(report_of(floors));
    CHECK_FALSE(floors.passed());
    within_elements(floors);
    CHECK(says(floors, "the errors lean one way: over the whole output they sum to -"));
    const kbench::seed_result scales = check(quantize_case<rounding::scales>, s);
    INFO(report_of(scales));
    CHECK_FALSE(scales.passed());
    const kbench::comparison& y = within_elements(scales);
    CHECK(y.bias->worst_scale);
    CHECK(y.bias->worst_bias == Approx(0x1p-11).epsilon(0.05));
    CHECK(says(scales, "the errors lean one way: over the whole output they scale the reference's magnitudes by 0.04"));
  }
}
