# Example 9's optimized kernel, in Triton: y = relu(x + bias) over fp32, BLOCK elements per program. Compiled
# ahead of time by cmake/kbench-triton-compile.py (kbench_add_triton_kernel in examples/CMakeLists.txt).
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, bias_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    bias = tl.load(bias_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.maximum(x + bias, 0.0), mask=mask)
