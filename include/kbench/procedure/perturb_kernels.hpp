// kbench/procedure/perturb_kernels.hpp: the tolerance probe's perturbation on the GPU (tolerance_probe.hpp
// declares it): its kernel, compiled once per program (device_work_perturb.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "../contract/hip_check.hpp"
#include "../contract/platform.hpp"
#include "../engines/random.hpp"
#include "tolerance_probe.hpp"

namespace kbench {
namespace detail {

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

template <class Unused>
void perturb_on_device(void* data, dtype t, std::size_t size, std::size_t count, const tolerance& tol,
                       double aggregate, hipStream_t stream) {
  element_rule r[4] = {};
  const int n = static_cast<int>(std::min<std::size_t>(tol.element_rules.size(), 4));
  for (int k = 0; k < n; ++k) r[k] = tol.element_rules[static_cast<std::size_t>(k)];
  const int mantissa = info(t).mantissa_bits;
  visit_dtype(t, [&](auto d) {
    using T = element_t<decltype(d)::value>;
    hipLaunchKernelGGL(perturb_kernel<T>, dim3(256), dim3(256), 0, stream, static_cast<T*>(data), size, count, r[0], r[1],
                       r[2], r[3], n, mantissa, aggregate);
    KBENCH_HIP_CHECK_LAUNCH();
  });
}

}  // namespace detail
}  // namespace kbench
