// The kernel of example 7, compiled apart from the test into a code object file (kbench_add_code_object in
// examples/CMakeLists.txt), as a kernel from another build or another compiler would come: extern "C", so
// that it is found by its plain name.
#include <hip/hip_runtime.h>

#include <cstdint>

// y = a * x, each thread four elements apart by the grid's width.
extern "C" __global__ void scale_kernel(const float* x, float* y, float a, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] = a * x[i];
  }
}
