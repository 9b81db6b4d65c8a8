// kbench/engines/compute_peak.hpp: the device's arithmetic peak for f64, f32, f16 and bf16, measured on the
// spot as the copy bandwidth is: every lane of a full device runs eight independent chains of fused
// multiply-adds (packed two to a lane for f16, and for bf16 where the platform has packed bf16), and the
// fastest of the timed launches gives the rate. A peak is what the vector units can do: matrix units
// (MFMA, tensor cores) are not measured.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "../contract/device_buffer.hpp"
#include "../contract/hip_check.hpp"
#include "../contract/platform.hpp"
#include "../results/roofline.hpp"
#include "../results/statistics.hpp"
#include "timing.hpp"

namespace kbench {
namespace detail {

// One arithmetic: its register type, its FMA and add, and the flops of one FMA instruction per lane.
struct fma_f64 {
  using type = double;
  static constexpr int flops = 2;
  __device__ static type make(float x, float) { return x; }
  __device__ static type fma(type a, type b, type c) { return ::fma(a, b, c); }
  __device__ static type add(type a, type b) { return a + b; }
};
struct fma_f32 {
  using type = float;
  static constexpr int flops = 2;
  __device__ static type make(float x, float) { return x; }
  __device__ static type fma(type a, type b, type c) { return fmaf(a, b, c); }
  __device__ static type add(type a, type b) { return a + b; }
};
struct fma_f16x2 {
  using type = __half2;
  static constexpr int flops = 4;
  __device__ static type make(float low, float high) { return __floats2half2_rn(low, high); }
  __device__ static type fma(type a, type b, type c) { return __hfma2(a, b, c); }
  __device__ static type add(type a, type b) { return __hadd2(a, b); }
};
#if KBENCH_HAS_PACKED_BF16_FMA
struct fma_bf16x2 {
  using type = bf16x2_t;
  static constexpr int flops = 4;
  __device__ static type make(float low, float high) { return packed_bf16(low, high); }
  __device__ static type fma(type a, type b, type c) { return packed_fma(a, b, c); }
  __device__ static type add(type a, type b) { return packed_add(a, b); }
};
#endif

inline constexpr int fma_chains = 8;

// Each chain x <- x * step + bias climbs towards bias / (1 - step) = 1, so no value overflows (GPUs run
// the few subnormal starting values of fp16 at full rate); the chains start apart (no two can be merged)
// and their sum is written, so none can be left out.
template <class Arithmetic>
__global__ void fma_chains_kernel(float step, float bias, int iterations, typename Arithmetic::type* sink) {
  using T = typename Arithmetic::type;
  const unsigned int lane = blockIdx.x * blockDim.x + threadIdx.x;
  const T s = Arithmetic::make(step, step), b = Arithmetic::make(bias, bias);
  T chain[fma_chains];
#pragma unroll
  for (int c = 0; c < fma_chains; ++c) chain[c] = Arithmetic::make(0.001f * c + 1e-6f * lane, 0.002f * c);
  // Unrolled 16 times: the loop's own instructions issue beside the FMAs (unrolled 4 times, as compilers
  // choose, they held the H200 to 89% of its peak). `iterations` is a multiple of 16.
#pragma unroll 16
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < fma_chains; ++c) chain[c] = Arithmetic::fma(chain[c], s, b);
  }
  T sum = chain[0];
#pragma unroll
  for (int c = 1; c < fma_chains; ++c) sum = Arithmetic::add(sum, chain[c]);
  sink[lane] = sum;
}

// The peak of one arithmetic: a pilot launch sizes the iterations to about 0.5 ms, then the fastest of
// eight timed launches (after two untimed) gives the rate: a peak, which clocks still ramping up can only
// lower.
template <class Arithmetic>
compute_peak measure_peak(dtype type, const char* how, int multiprocessors, hipStream_t stream) {
  constexpr unsigned int threads = 256;
  const unsigned int blocks = 8u * static_cast<unsigned int>(std::max(multiprocessors, 1));
  device_allocation sink(static_cast<std::size_t>(blocks) * threads * sizeof(typename Arithmetic::type));
  auto samples = [&](int iterations, int count) {  // `count` timed, after two untimed
    return event_pair_samples(stream, count + 2, 2, [] {}, [&] {
      hipLaunchKernelGGL(fma_chains_kernel<Arithmetic>, dim3(blocks), dim3(threads), 0, stream, 0.999f, 0.001f,
                         iterations, static_cast<typename Arithmetic::type*>(sink.data()));
      KBENCH_HIP_CHECK_LAUNCH();
    });
  };
  constexpr int pilot_iterations = 256;
  const std::vector<double> pilot = samples(pilot_iterations, 3);
  const double pilot_seconds = *std::min_element(pilot.begin(), pilot.end());
  const int iterations = static_cast<int>(std::clamp(pilot_iterations * 5e-4 / std::max(pilot_seconds, 1e-7),
                                                     double{pilot_iterations}, double{1 << 20})) / 16 * 16;
  const std::vector<double> timed = samples(iterations, 8);
  const double fastest = *std::min_element(timed.begin(), timed.end());
  const double flops = double{Arithmetic::flops} * fma_chains * iterations * blocks * threads;
  return {type, flops / fastest, how};
}

}  // namespace detail

// The peaks of f64, f32, f16 and bf16 on the current device; where the platform has no packed bf16 FMA,
// bf16's peak is f32's (the units that compute it).
[[nodiscard]] inline std::vector<compute_peak> measure_compute_peaks(int multiprocessors, hipStream_t stream) {
  std::vector<compute_peak> peaks;
  peaks.push_back(detail::measure_peak<detail::fma_f64>(dtype::f64, "fp64 FMA", multiprocessors, stream));
  peaks.push_back(detail::measure_peak<detail::fma_f32>(dtype::f32, "fp32 FMA", multiprocessors, stream));
  peaks.push_back(detail::measure_peak<detail::fma_f16x2>(dtype::f16, "packed fp16 FMA (two a lane)", multiprocessors, stream));
#if KBENCH_HAS_PACKED_BF16_FMA
  peaks.push_back(detail::measure_peak<detail::fma_bf16x2>(dtype::bf16, "packed bf16 FMA (two a lane)", multiprocessors, stream));
#else
  compute_peak bf16 = peaks[1];
  bf16.type = dtype::bf16;
  bf16.how = "fp32 FMA's (no packed bf16 FMA on this platform: bf16 is computed in fp32)";
  peaks.push_back(bf16);
#endif
  return peaks;
}

}  // namespace kbench
