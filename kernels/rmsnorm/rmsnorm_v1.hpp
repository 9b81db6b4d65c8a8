// rmsnorm v1's launcher, declared: a test file includes this, and kernels/rmsnorm/rmsnorm_v1.hip is compiled
// as a source of its own, so that an edit of the kernel recompiles the kernel alone.
#pragma once

#include <cstdint>

#include <kbench/contract/platform.hpp>

namespace rmsnorm_v1 {

// y[r, j] = x[r, j] * w[j] / sqrt(mean_j(x[r, j]^2) + eps), rows x cols, fp16 in and out.
void launch(const kbench::fp16_t* x, const kbench::fp16_t* w, kbench::fp16_t* y, std::int64_t rows,
            std::int64_t cols, float eps, hipStream_t stream);

}  // namespace rmsnorm_v1
