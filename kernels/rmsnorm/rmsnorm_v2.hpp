// rmsnorm v2's launcher, declared: a test file includes this, and kernels/rmsnorm/rmsnorm_v2.hip is compiled
// as a source of its own, so that an edit of the kernel recompiles the kernel alone.
#pragma once

#include <cstdint>

#include <kbench/contract/platform.hpp>

namespace rmsnorm_v2 {

// y[r, j] = x[r, j] * w[j] / sqrt(mean_j(x[r, j]^2) + eps), rows x cols. T: the types rmsnorm_v2.hip
// instantiates (kbench::fp16_t); another type links only once a line there instantiates it.
template <class T>
void launch(const T* x, const T* w, T* y, std::int64_t rows, std::int64_t cols, float eps, hipStream_t stream);

}  // namespace rmsnorm_v2
