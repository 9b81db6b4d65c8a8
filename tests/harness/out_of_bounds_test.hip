// Reads outside a buffer: a kbench program of its own (its main is run_main, supervised) whose planted kernels
// read just beyond an input and are right on ordinary memory, where the read is served from whatever lies
// next to the buffer and the value read changes nothing: only the runs with each buffer against unmapped
// memory (procedure/bounds_check.hpp) can catch them. In declaration order:
//
//   plain_scale            y = 2x, one element a thread: passes
//   reads_past_end         y = halfway from x[i] to x[i+1] (x[i] at the last), loading x[i+1] for every i:
//                          one element past the end of x
//   reads_before_start     the same leftwards, loading x[i-1] for every i: one element before the start of x
//   vector_past_end        y = 2x, eight elements a thread as two 16-byte loads, the tail guarded by thread
//                          and not by load: n is 4 more than a multiple of 8, so the last thread's second load
//                          lies wholly past the end of x
//   reads_past_second      y = a + (halfway from b[i] to b[i+1]), loading b[i+1] for every i: past the end of
//                          its second input only, so the failure names b
//   tail_in_last_vector    y = 2x, four elements a thread as one 16-byte load, the tail too: reads up to 12 bytes
//                          past the end, inside the 16 bytes the last element is in. It passes: the case
//                          requires 16-byte alignment, so x ends at most 12 bytes short of the fence, and no
//                          fence can be nearer (memory is mapped in pages, multiples of 16 bytes)
//   vector_scalar_tail     y = 2x, four elements a thread, the tail element by element: passes
//   in_place_scale         x = 2x in place (inout): passes
//
// On NVIDIA each plant's read faults, and the fault leaves the device unusable: the case fails naming the
// buffer and the side, and the cases after it run in a new process. On AMD the HIP runtime aborts the process
// at the fault, and kbench prints the buffer and the side just before each such launch.
// tests/harness/CMakeLists.txt runs it (kbench.bounds.*) and checks each run's status and lines; skipped
// without a GPU.
#include <kbench/compare.hpp>

namespace {

constexpr int block = 256;

unsigned int blocks_for(int threads) { return static_cast<unsigned int>((threads + block - 1) / block); }

__device__ int thread_index() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }

// A load the compiler keeps even where its value goes unused (volatile): the planted read.
__device__ float load_always(const float* p) { return *static_cast<const volatile float*>(p); }

// What both sides of the stencils compute: halfway from `centre` to `neighbour`.
__device__ float halfway(float centre, float neighbour) { return centre + 0.5f * (neighbour - centre); }

// Halfway to the right neighbour (to itself at the last element); `overread`: x[i+1] loaded for every i.
template <bool Overread>
__global__ void right_halfway_kernel(const float* x, float* y, int n) {
  const int i = thread_index();
  if (i >= n) return;
  const bool last = i + 1 == n;
  const float right = Overread ? load_always(x + i + 1) : x[last ? i : i + 1];
  y[i] = halfway(x[i], last ? x[i] : right);
}

// Halfway to the left neighbour (to itself at the first element); `overread`: x[i-1] loaded for every i.
template <bool Overread>
__global__ void left_halfway_kernel(const float* x, float* y, int n) {
  const int i = thread_index();
  if (i >= n) return;
  const float left = Overread ? load_always(x + i - 1) : x[i == 0 ? i : i - 1];
  y[i] = halfway(x[i], i == 0 ? x[i] : left);
}

// a + halfway from b to its right neighbour; `overread`: b[i+1] loaded for every i.
template <bool Overread>
__global__ void add_halfway_kernel(const float* a, const float* b, float* y, int n) {
  const int i = thread_index();
  if (i >= n) return;
  const bool last = i + 1 == n;
  const float right = Overread ? load_always(b + i + 1) : b[last ? i : i + 1];
  y[i] = a[i] + halfway(b[i], last ? b[i] : right);
}

__global__ void scale_kernel(const float* x, float* y, int n) {
  const int i = thread_index();
  if (i < n) y[i] = 2.0f * x[i];
}

__global__ void scale_in_place_kernel(float* x, int n) {
  const int i = thread_index();
  if (i < n) x[i] *= 2.0f;
}

// Four elements a thread as one float4 (x and y 16-byte aligned): the tail element by element, or (the
// `whole_tail` plant) loaded as a whole vector, of which only the elements inside are written.
template <bool WholeTail>
__global__ void scale_by_four_kernel(const float* x, float* y, int n) {
  const int i = 4 * thread_index();
  if (i >= n) return;
  if (i + 4 <= n) {
    const float4 v = *reinterpret_cast<const float4*>(x + i);
    *reinterpret_cast<float4*>(y + i) = make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
  } else if (WholeTail) {
    const float4 v = *reinterpret_cast<const float4*>(x + i);
    const float values[4] = {v.x, v.y, v.z, v.w};
    for (int k = 0; i + k < n; ++k) y[i + k] = 2.0f * values[k];
  } else {
    for (int k = i; k < n; ++k) y[k] = 2.0f * x[k];
  }
}

// Eight elements a thread as two float4 loads, both made wherever the thread's first element is inside
// (the plant): only the elements inside are written.
__global__ void scale_by_eight_kernel(const float* x, float* y, int n) {
  const int i = 8 * thread_index();
  if (i >= n) return;
  const float4 low = *reinterpret_cast<const float4*>(x + i);
  const float4 high = *reinterpret_cast<const float4*>(x + i + 4);
  const float values[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
  for (int k = 0; k < 8 && i + k < n; ++k) y[i + k] = 2.0f * values[k];
}

template <class Kernel, class... Arguments>
void launch(Kernel kernel, int threads, hipStream_t stream, Arguments... arguments) {
  hipLaunchKernelGGL(kernel, dim3(blocks_for(threads)), dim3(block), 0, stream, arguments...);
  KBENCH_HIP_CHECK_LAUNCH();
}

// One input x, one output y: the reference and the optimized kernel given as a launch of (x, y, n).
template <class Reference, class Optimized>
void declare_unary(kbench::kernel_case& c, Reference reference, Optimized optimized) {
  const auto n = c.dim("n");
  auto x = c.input<float>("x", {n});
  auto y = c.output<float>("y", {n});
  c.reference([=](hipStream_t s) { reference(x, y, static_cast<int>(n), s); });
  c.optimized([=](hipStream_t s) { optimized(x, y, static_cast<int>(n), s); });
  c.bytes_moved(8.0 * n);
}

void scale(const float* x, float* y, int n, hipStream_t s) { launch(scale_kernel, n, s, x, y, n); }

}  // namespace

static void plain_scale(kbench::kernel_case& c) { declare_unary(c, scale, scale); }

static void reads_past_end(kbench::kernel_case& c) {
  declare_unary(
      c, [](const float* x, float* y, int n, hipStream_t s) { launch(right_halfway_kernel<false>, n, s, x, y, n); },
      [](const float* x, float* y, int n, hipStream_t s) { launch(right_halfway_kernel<true>, n, s, x, y, n); });
}

static void reads_before_start(kbench::kernel_case& c) {
  declare_unary(
      c, [](const float* x, float* y, int n, hipStream_t s) { launch(left_halfway_kernel<false>, n, s, x, y, n); },
      [](const float* x, float* y, int n, hipStream_t s) { launch(left_halfway_kernel<true>, n, s, x, y, n); });
}

static void vector_past_end(kbench::kernel_case& c) {
  declare_unary(c, scale, [](const float* x, float* y, int n, hipStream_t s) {
    launch(scale_by_eight_kernel, (n + 7) / 8, s, x, y, n);
  });
  c.requires_alignment(16);
}

static void reads_past_second(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto a = c.input<float>("a", {n});
  auto b = c.input<float>("b", {n});
  auto y = c.output<float>("y", {n});
  const int count = static_cast<int>(n);
  c.reference([=](hipStream_t s) { launch(add_halfway_kernel<false>, count, s, a.get(), b.get(), y.get(), count); });
  c.optimized([=](hipStream_t s) { launch(add_halfway_kernel<true>, count, s, a.get(), b.get(), y.get(), count); });
  c.bytes_moved(12.0 * n);
}

static void tail_in_last_vector(kbench::kernel_case& c) {
  declare_unary(c, scale, [](const float* x, float* y, int n, hipStream_t s) {
    launch(scale_by_four_kernel<true>, (n + 3) / 4, s, x, y, n);
  });
  c.requires_alignment(16);
}

static void vector_scalar_tail(kbench::kernel_case& c) {
  declare_unary(c, scale, [](const float* x, float* y, int n, hipStream_t s) {
    launch(scale_by_four_kernel<false>, (n + 3) / 4, s, x, y, n);
  });
  c.requires_alignment(16);
}

static void in_place_scale(kbench::kernel_case& c) {
  const auto n = c.dim("n");
  auto x = c.inout<float>("x", {n});
  const int count = static_cast<int>(n);
  c.reference([=](hipStream_t s) { launch(scale_in_place_kernel, count, s, x.get(), count); });
  c.optimized([=](hipStream_t s) { launch(scale_in_place_kernel, count, s, x.get(), count); });
  c.bytes_moved(8.0 * n);
}

// 65537: no multiple of 4 elements (nor of 16 bytes); 65540: a multiple of 4 elements, not of 8.
KBENCH_REGISTER(plain_scale).shape({{"n", 65537}});
KBENCH_REGISTER(reads_past_end).shape({{"n", 65537}});
KBENCH_REGISTER(reads_before_start).shape({{"n", 65537}});
KBENCH_REGISTER(vector_past_end).shape({{"n", 65540}});
KBENCH_REGISTER(reads_past_second).shape({{"n", 65537}});
KBENCH_REGISTER(tail_in_last_vector).shape({{"n", 65537}});
KBENCH_REGISTER(vector_scalar_tail).shape({{"n", 65537}});
KBENCH_REGISTER(in_place_scale).shape({{"n", 65537}});
