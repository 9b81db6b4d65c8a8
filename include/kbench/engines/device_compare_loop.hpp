// kbench/engines/device_compare_loop.hpp: the comparison engine's element loop on the GPU (device_compare.hpp is
// its entry). Each block reduces its elements to one partial summary; only the partials come back to the
// host, which merges them in block order (deterministic: the grid depends only on the device and the size).
// The result matches comparison.hpp's host loop: the same counts, first indices and maxima (ties to the
// smallest index); sums agree to rounding.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../contract/device_buffer.hpp"
#include "../contract/hip_check.hpp"
#include "../contract/platform.hpp"
#include "comparison.hpp"
#include "device_compare.hpp"
#include "device_pass.hpp"
#include "device_element_readers.hpp"

namespace kbench {
namespace detail {

// The element rules grouped by kind, so that an element meets no switch on the rule's kind: every exact
// rule is one flag, every ulp rule one bound (the smallest), the within rules a short list.
struct device_rules {
  int within_count;
  double atol[max_device_rules];  // beyond within_count: infinity (admits every finite pair)
  double rtol[max_device_rules];
  bool exact;
  unsigned long long max_ulps;  // ~0: no ulp rule
  bool equal_nan;
};

struct compare_parameters {
  std::size_t n;
  device_rules rules;
  bool detect_poison;
  double counted_from;  // the bias sums' smallest reference (tally.hpp): the type's smallest normal
};

// One thread's running tally. A thread meets its elements in increasing index order, so "first" is the
// first one seen and a maximum is replaced only by a strictly larger value: no index comparisons per
// element. Counts are 32-bit (registers): a thread sees n / (blocks x 256) elements, far below 2^32 for
// any output that fits in memory.
using thread_tally = basic_tally<unsigned int>;

// An element's relative error where it could be a thread's new maximum (`max_rel`), else 0: the division only
// for a candidate (any element whose error could exceed the maximum passes this relaxed test), so the maximum
// is the host's, exactly, at a fraction of the cost.
__device__ inline double candidate_relative_error(double abs_err, double magnitude, double max_rel) {
  if (abs_err == 0.0) return 0.0;
  if (magnitude == 0.0) return __longlong_as_double(0x7FF0000000000000ll);  // infinity
  return abs_err > max_rel * magnitude * (1.0 - 1e-12) ? abs_err / magnitude : 0.0;
}

// One element into a thread's tally: the host engine's element loop, on the device.
template <class R>
__device__ inline void compare_element(thread_tally& t, std::size_t i, typename R::storage sa, typename R::storage se,
                                       typename R::storage poison, const compare_parameters& c) {
  const double a = R::value(sa), e = R::value(se);
  const bool identical = R::is_float ? a == e : sa == se;
  if (c.detect_poison && sa == poison && !identical) {
    if (t.never_written++ == 0) t.first_never_written = i;
  }
  bool ok = true;
  double abs_err, rel_err;
  const double infinity = __longlong_as_double(0x7FF0000000000000ll);
  if (!isfinite(a) || !isfinite(e)) {
    const bool nan_a = isnan(a), nan_e = isnan(e);
    if (nan_e && t.nan_expected++ == 0) t.first_nan_expected = i;
    t.nan_actual += nan_a;
    ok = identical || (nan_a && nan_e && c.rules.equal_nan);
    abs_err = rel_err = ok ? 0.0 : infinity;
    if (!ok && t.nonfinite++ == 0) t.first_nonfinite = i;
  } else {
    const unsigned long long ulps = R::ulps(sa, se);  // integers: their difference
    abs_err = R::is_float ? fabs(a - e) : static_cast<double>(ulps);
    const double magnitude = fabs(e);
    rel_err = candidate_relative_error(abs_err, magnitude, t.max_rel);
    t.count_ulps(ulps);
    ok = (identical || !c.rules.exact) && ulps <= c.rules.max_ulps;
    // Unrolled over the fixed maximum: a loop bound by within_count would index the parameter arrays at
    // run time, which puts them in local memory and costs a load per element.
#pragma unroll
    for (int k = 0; k < max_device_rules; ++k) {
      if (k < c.rules.within_count) ok = ok && abs_err <= c.rules.atol[k] + c.rules.rtol[k] * magnitude;
    }
    ++t.finite_pairs;
    t.dot += a * e;
    t.norm_a += a * a;
    t.norm_e += e * e;
    t.norm_diff += (a - e) * (a - e);
    if (R::is_float && magnitude >= c.counted_from) {  // the signs' audit is of floats; clean results only
      t.bias_error += a - e;
      t.bias_toward += e < 0 ? e - a : a - e;
      t.bias_magnitude += magnitude;
    }
  }
  if (abs_err > t.max_abs) t.max_abs = abs_err, t.max_abs_index = i, t.max_abs_expected = e;
  if (rel_err > t.max_rel) t.max_rel = rel_err, t.max_rel_index = i;
  t.mismatches += !ok;
}

// A group's elements against the tally's maxima (compare_group's last step): compared once for the group, and
// replaced element by element, in index order, only when the group holds a candidate.
template <class R, int G>
__device__ inline void keep_group_maxima(thread_tally& t, std::size_t first, const double* abs_err, const double* magnitude,
                                         const typename R::storage* se, double group_max, bool rel_candidate) {
  if (group_max > t.max_abs) {
#pragma unroll
    for (int k = 0; k < G; ++k) {
      if (abs_err[k] > t.max_abs) {
        t.max_abs = abs_err[k], t.max_abs_index = first + k;
        t.max_abs_expected = R::value(se[k]);
      }
    }
  }
  if (rel_candidate) {  // in index order, as compare_element meets them
#pragma unroll
    for (int k = 0; k < G; ++k) {
      const double rel_err = candidate_relative_error(abs_err[k], magnitude[k], t.max_rel);
      if (rel_err > t.max_rel) t.max_rel = rel_err, t.max_rel_index = first + k;
    }
  }
}

// G elements at once (four, or two of 64 bits), with compare_element's result on each: the common case
// without a branch per element, the maxima last (keep_group_maxima). The common case: floats all finite (a
// float's poison pattern is a NaN, so it is not among them), integers none holding the poison pattern where
// the reference does not. Any other group goes through compare_element, in a loop that is not unrolled and
// reads the elements again (from the cache): one copy of that code per group of the kernel's unrolled chunk
// instead of one per element, which was most of the comparison's compile time.
template <class R, int G>
__device__ inline void compare_group(thread_tally& t, std::size_t first, const typename R::storage* sa,
                                     const typename R::storage* se, const typename R::storage* actual,
                                     const typename R::storage* expected, typename R::storage constant,
                                     typename R::storage poison, const compare_parameters& c) {
  bool common = true;
#pragma unroll
  for (int k = 0; k < G; ++k) {
    if constexpr (R::is_float) {
      common &= R::finite_bits(sa[k]) & R::finite_bits(se[k]);
    } else {
      common &= !c.detect_poison | (sa[k] != poison) | (sa[k] == se[k]);
    }
  }
  if (!common) {
#pragma unroll 1
    for (std::size_t i = first; i < first + G; ++i) {
      compare_element<R>(t, i, actual ? actual[i] : constant, expected[i], poison, c);
    }
    return;
  }
  using distance = typename R::distance;
  double abs_err[G], magnitude[G];
  double group_max = 0.0;
  distance group_max_ulps = 0;
  // The pairs 0, 1, 2 and more ulps apart, one byte each (a group holds at most 4 pairs).
  unsigned int by_ulps = 0;
  // The ulp rule's bound in the same width (a bound beyond it admits every distance).
  const distance max_ulps = c.rules.max_ulps >= static_cast<unsigned long long>(~distance{0})
                                ? ~distance{0}
                                : static_cast<distance>(c.rules.max_ulps);
  bool rel_candidate = t.max_rel < 0.0;  // the first group: its first element sets the maximum
  const double rel_threshold = t.max_rel * (1.0 - 1e-12);
  // Every operation below is done for each element of the group, without a branch: a branch per element
  // splits the loop into blocks too small for the compiler to overlap the elements' arithmetic. Rule 0
  // always applies (run_compare makes an absent one admit every finite pair); the others, rarely present,
  // under one branch per group.
  bool ok[G];
#pragma unroll
  for (int k = 0; k < G; ++k) {
    const double a = R::value(sa[k]), e = R::value(se[k]);
    const double d = a - e;
    const distance ulps = R::ulps(sa[k], se[k]);  // integers: their difference, which d may have rounded
    abs_err[k] = R::is_float ? fabs(d) : static_cast<double>(ulps);
    magnitude[k] = fabs(e);
    by_ulps += 1u << (8 * static_cast<unsigned int>(ulps < 3 ? ulps : 3));
    group_max_ulps = ulps > group_max_ulps ? ulps : group_max_ulps;
    // For finite floats, ulps == 0 is a == e; for integers, sa == se.
    ok[k] = ((ulps == 0) | !c.rules.exact) & (ulps <= max_ulps) &
            (abs_err[k] <= c.rules.atol[0] + c.rules.rtol[0] * magnitude[k]);
    t.dot += a * e;
    t.norm_a += a * a;
    t.norm_e += e * e;
    t.norm_diff += d * d;
    // The signs' audit, of floats. Every pair counts, matching or not: the device's result is used only when
    // every element matched. A weight of 1 or 0 in a fused multiply-add adds the term or nothing, rounded as
    // the sum alone.
    if constexpr (R::is_float) {
      const double counted = magnitude[k] >= c.counted_from ? 1.0 : 0.0;
      const double toward =  // d toward the reference's magnitude: its sign flipped where e is negative
          __longlong_as_double(__double_as_longlong(d) ^ (__double_as_longlong(e) & std::numeric_limits<long long>::min()));
      t.bias_error = fma(d, counted, t.bias_error);
      t.bias_toward = fma(toward, counted, t.bias_toward);
      t.bias_magnitude = fma(magnitude[k], counted, t.bias_magnitude);
    }
    group_max = fmax(group_max, abs_err[k]);
    rel_candidate |= abs_err[k] > rel_threshold * magnitude[k];
  }
#pragma unroll
  for (int w = 1; w < max_device_rules; ++w) {
    if (w < c.rules.within_count) {
#pragma unroll
      for (int k = 0; k < G; ++k) ok[k] &= abs_err[k] <= c.rules.atol[w] + c.rules.rtol[w] * magnitude[k];
    }
  }
  unsigned int failed = 0;
#pragma unroll
  for (int k = 0; k < G; ++k) failed += !ok[k];
  t.mismatches += failed;
  t.finite_pairs += G;
  t.ulps_equal += by_ulps & 0xFFu, t.ulps_one += (by_ulps >> 8) & 0xFFu, t.ulps_two += (by_ulps >> 16) & 0xFFu;
  if (group_max_ulps > t.max_ulps) t.max_ulps = group_max_ulps;
  keep_group_maxima<R, G>(t, first, abs_err, magnitude, se, group_max, rel_candidate);
}

// Which types take compare_group's path: floats, and 8-bit integers (quantized outputs, which compare_element
// reads at a tenth of the copy bandwidth). Wider integers stay element by element: each unrolled path costs
// its unit seconds of compile time, and they reach half the copy bandwidth without it.
template <class R>
inline constexpr bool grouped = R::is_float || sizeof(typename R::storage) == 1;

// actual[i] is `constant` when `actual` is null (the tolerance probes: an unwritten or an all-zero output).
// Both arrays are read 16 bytes at a time (device allocations are aligned), `unroll` vectors of each per
// thread before any arithmetic, so that enough bytes are in flight to keep memory busy at the occupancy
// this register-heavy loop allows; a scalar loop takes the tail.
template <class R>
__global__ void __launch_bounds__(256) compare_kernel(const typename R::storage* actual, const typename R::storage* expected,
                                                      typename R::storage constant, typename R::storage poison,
                                                      compare_parameters c, element_tally* partials) {
  using S = typename R::storage;
  constexpr int per_vector = 16 / sizeof(S);
  constexpr int group = per_vector < 4 ? per_vector : 4;
  constexpr int unroll = sizeof(S) == 1 ? 2 : 4;  // 8-bit types: 32 elements a vector pair already
  union chunk {
    uint4 bits;
    S elements[per_vector];
  };
  thread_tally tally = thread_tally::none();
  const std::size_t vectors = c.n / per_vector;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const auto* ev = reinterpret_cast<const uint4*>(expected);
  const auto* av = reinterpret_cast<const uint4*>(actual);
  auto load = [&](std::size_t v, chunk& a, chunk& e) {
    e.bits = ev[v];
    if (actual) {
      a.bits = av[v];
    } else {
#pragma unroll
      for (int k = 0; k < per_vector; ++k) a.elements[k] = constant;
    }
  };
  // A thread meets its elements in increasing index order, as thread_tally requires.
  std::size_t v = first;
  if constexpr (grouped<R>) {
    for (; v + (unroll - 1) * stride < vectors; v += unroll * stride) {
      chunk a[unroll], e[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) load(v + u * stride, a[u], e[u]);
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
#pragma unroll
        for (int k = 0; k < per_vector; k += group) {
          compare_group<R, group>(tally, (v + u * stride) * per_vector + k, a[u].elements + k, e[u].elements + k,
                                  actual, expected, constant, poison, c);
        }
      }
    }
  }
  // The other integers, and every type's last vectors: element by element, a vector at a time, in a loop
  // that is not unrolled over vectors.
#pragma unroll 1
  for (; v < vectors; v += stride) {
    chunk a, e;
    load(v, a, e);
#pragma unroll
    for (int k = 0; k < per_vector; ++k) compare_element<R>(tally, v * per_vector + k, a.elements[k], e.elements[k], poison, c);
  }
  for (std::size_t i = vectors * per_vector + first; i < c.n; i += stride) {
    compare_element<R>(tally, i, actual ? actual[i] : constant, expected[i], poison, c);
  }
  // Thread partials merge in a fixed tree within the block, block partials in block order on the host. The
  // upper half's partials merge into the lower half's first: 128 tallies fit in a block's 48 KiB of static
  // shared memory, 256 do not.
  __shared__ element_tally shared[128];
  const unsigned int half = blockDim.x / 2;
  if (threadIdx.x >= half) {
    shared[threadIdx.x - half] = element_tally::none();
    shared[threadIdx.x - half].merge(tally);
  }
  __syncthreads();
  if (threadIdx.x < half) {
    element_tally mine = element_tally::none();
    mine.merge(tally);
    mine.merge(shared[threadIdx.x]);
    shared[threadIdx.x] = mine;
  }
  __syncthreads();
  for (unsigned int width = 1; width < half; width *= 2) {
    if (threadIdx.x % (2 * width) == 0 && threadIdx.x + width < half) shared[threadIdx.x].merge(shared[threadIdx.x + width]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}


template <class R>
element_tally run_compare(const void* actual, const void* expected, std::size_t n, std::uint64_t constant_bits,
                           dtype t, const tolerance& tol, bool detect_poison, hipStream_t stream) {
  using S = typename R::storage;
  device_rules rules{};
  rules.max_ulps = ~0ull;
  for (const element_rule& r : tol.element_rules) {
    switch (r.rule) {
      case element_rule::kind::exact: rules.exact = true; break;
      case element_rule::kind::ulp: rules.max_ulps = std::min<unsigned long long>(rules.max_ulps, r.max_ulps); break;
      case element_rule::kind::within:
        if (rules.within_count == max_device_rules) {
          throw usage_error("device comparison supports up to 4 allclose-type rules");
        }
        rules.atol[rules.within_count] = r.atol;
        rules.rtol[rules.within_count] = r.rtol;
        ++rules.within_count;
        break;
    }
  }
  // The rules not given admit every finite pair: compare_group applies the first without asking whether it
  // was given.
  for (int k = rules.within_count; k < max_device_rules; ++k) {
    rules.atol[k] = std::numeric_limits<double>::infinity(), rules.rtol[k] = 0.0;
  }
  rules.equal_nan = tol.equal_nan;
  const S poison = poison_as<S>(t);
  S constant;
  std::memcpy(&constant, &constant_bits, sizeof constant);
  // One full wave of resident blocks (fewer for small outputs): no tail wave. The grid depends only on the
  // device and n, so the merge order, hence the sums, are the same on every run.
  static const unsigned int full_wave = full_wave_blocks(compare_kernel<R>, 256);
  const auto blocks = static_cast<unsigned int>(std::clamp<std::size_t>((n + 4095) / 4096, 1, full_wave));
  // Allocated once: an allocation per comparison would cost as much as comparing a large output.
  static const device_buffer<element_tally> partials(full_wave);
  if (!on_quads(actual) || !on_quads(expected)) {
    throw usage_error("device comparison needs 16-byte aligned buffers");
  }
  hipLaunchKernelGGL(compare_kernel<R>, dim3(blocks), dim3(256), 0, stream, static_cast<const S*>(actual),
                     static_cast<const S*>(expected), constant, poison,
                     compare_parameters{n, rules, detect_poison, info(t).is_float ? smallest_normal(t) : 0.0},
                     partials.data());
  KBENCH_HIP_CHECK_LAUNCH();
  std::vector<element_tally> host(blocks);
  KBENCH_HIP_CHECK(
      hipMemcpyAsync(host.data(), partials.data(), blocks * sizeof(element_tally), hipMemcpyDeviceToHost, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));
  element_tally total = element_tally::none();
  for (const element_tally& p : host) total.merge(p);
  return total;
}

}  // namespace detail
}  // namespace kbench
