// kbench/contract/platform.hpp: the one header that knows the GPU platform. Everything that differs between AMD
// (hipcc/clang, wavefront 64 on gfx9, 32 on RDNA) and NVIDIA (HIP's NVIDIA platform through nvcc, warp 32)
// is here: the 16-bit float types, their conversions, packed bf16 arithmetic, the wave size and the
// cross-lane shuffles, the device's clocks and persisting L2 (NVIDIA only); but for profiler ranges
// (engines/profiler_range.hpp) and the driver's clock settings (engines/clock_control.hpp): costly
// headers that test files never need.
// Kernels written against these names compile unchanged on both.
#pragma once

#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

#include <cstddef>
#include <cstdio>

#include "dtype.hpp"

#if defined(__HIP_PLATFORM_NVIDIA__) || defined(__HIP_PLATFORM_NVCC__)
#define KBENCH_PLATFORM_NVIDIA 1
#define KBENCH_PLATFORM_NAME "nvidia"
#include <cuda_bf16.h>
#elif defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define KBENCH_PLATFORM_AMD 1
#define KBENCH_PLATFORM_NAME "amd"
#if __has_include(<hip/hip_bf16.h>)
#include <hip/hip_bf16.h>
#define KBENCH_AMD_HAS_HIP_BF16 1
#else
#include <hip/hip_bfloat16.h>
#endif
#else
#error "kbench: no HIP platform is defined; compile with hipcc (AMD) or with nvcc and -D__HIP_PLATFORM_NVIDIA__"
#endif

// A translation unit compiled for the GPU (nvcc, or clang in HIP mode) sees the device helpers below (wave
// shuffles, packed bf16, the device's clocks); a host-only unit of kbench (plain C++ over the runtime's API:
// the stages of the procedure, whose kernels are compiled elsewhere) sees none of them.
#if defined(__CUDACC__) || defined(__HIP__)
#define KBENCH_DEVICE_CODE 1
#endif

namespace kbench {

// 16-bit float element types of the platform (fp8_e4m3, emulated, is in fp8.hpp).
using fp16_t = __half;
#if defined(KBENCH_PLATFORM_NVIDIA)
using bf16_t = __nv_bfloat16;
#elif defined(KBENCH_AMD_HAS_HIP_BF16)
using bf16_t = __hip_bfloat16;
#else
using bf16_t = hip_bfloat16;  // HIP 5.x
#endif

template <> struct dtype_of<fp16_t> { static constexpr dtype value = dtype::f16; };
template <> struct dtype_of<bf16_t> { static constexpr dtype value = dtype::bf16; };
static_assert(sizeof(fp16_t) == 2 && sizeof(bf16_t) == 2, "16-bit float types must be two bytes");

// The element type kernels see for each dtype (visit_dtype gives the dtype; this, the C++ type).
template <dtype D> struct element_of { using type = storage_t<D>; };  // the integers
template <> struct element_of<dtype::f64> { using type = double; };
template <> struct element_of<dtype::f32> { using type = float; };
template <> struct element_of<dtype::f16> { using type = fp16_t; };
template <> struct element_of<dtype::bf16> { using type = bf16_t; };
template <> struct element_of<dtype::f8e4m3> { using type = fp8_e4m3; };
template <dtype D>
using element_t = typename element_of<D>::type;

// Conversions usable in kernels (and on the host), rounding to nearest even.
__host__ __device__ inline float to_float(float x) { return x; }
__host__ __device__ inline float to_float(fp16_t x) { return __half2float(x); }
// (HIP 5's hip_bfloat16 converts only in HIP code: a host-only unit on AMD has no bf16 conversion here.)
#if defined(KBENCH_PLATFORM_NVIDIA) || defined(KBENCH_AMD_HAS_HIP_BF16) || defined(KBENCH_DEVICE_CODE)
#define KBENCH_HAS_BF16_CONVERSIONS 1
__host__ __device__ inline float to_float(bf16_t x) {
#if defined(KBENCH_PLATFORM_NVIDIA) || defined(KBENCH_AMD_HAS_HIP_BF16)
  return __bfloat162float(x);
#else
  return static_cast<float>(x);
#endif
}
#endif

template <class T> __host__ __device__ inline T from_float(float x);
template <> __host__ __device__ inline float from_float<float>(float x) { return x; }
template <> __host__ __device__ inline fp16_t from_float<fp16_t>(float x) { return __float2half(x); }
template <> __host__ __device__ inline fp8_e4m3 from_float<fp8_e4m3>(float x) { return fp8_e4m3{float_to_fp8_e4m3(x)}; }
#if defined(KBENCH_HAS_BF16_CONVERSIONS)
template <> __host__ __device__ inline bf16_t from_float<bf16_t>(float x) {
#if defined(KBENCH_PLATFORM_NVIDIA) || defined(KBENCH_AMD_HAS_HIP_BF16)
  return __float2bfloat16(x);
#else
  return bf16_t(x);
#endif
}
#endif

// Lanes per wave. Not a compile-time constant (HIP 7 dropped constexpr warpSize; gfx9 runs 64, RDNA 32):
// size shared arrays with max_wave_size / min_wave_size and loop with wave_size().
inline constexpr int max_wave_size = 64;
inline constexpr int min_wave_size = 32;
inline constexpr int max_waves_per_block = 1024 / min_wave_size;
#if defined(KBENCH_DEVICE_CODE)
__device__ inline int wave_size() { return warpSize; }

// Butterfly and downward shuffles across the whole wave; every lane of the wave must take part.
template <class T>
__device__ inline T shfl_xor(T value, int lane_mask) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return __shfl_xor_sync(0xffffffffu, value, lane_mask);
#else
  return __shfl_xor(value, lane_mask);
#endif
}

template <class T>
__device__ inline T shfl_down(T value, unsigned int delta) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return __shfl_down_sync(0xffffffffu, value, delta);
#else
  return __shfl_down(value, delta);
#endif
}

// Sum over the lanes of a wave, returned to every lane.
template <class T>
__device__ inline T wave_sum(T value) {
  for (int offset = wave_size() / 2; offset > 0; offset /= 2) value += shfl_xor(value, offset);
  return value;
}

// Maximum over the lanes of a wave, returned to every lane.
template <class T>
__device__ inline T wave_max(T value) {
  for (int offset = wave_size() / 2; offset > 0; offset /= 2) {
    const T other = shfl_xor(value, offset);
    value = other > value ? other : value;
  }
  return value;
}
#endif  // KBENCH_DEVICE_CODE

// Kernel files include this header: its host helpers return no std::string (error.hpp says why).
//
// The name the runtime knows a kernel by, from its host function (mangled; empty when it will not say),
// held by the runtime.
inline const char* kernel_symbol(const void* host_function, hipStream_t stream) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  (void)stream;
#if CUDART_VERSION >= 12030
  const char* name = nullptr;
  if (cudaFuncGetName(&name, host_function) == cudaSuccess && name) return name;
#endif
  (void)cudaGetLastError();
  return "";
#else
  const char* name = hipKernelNameRefByPtr(host_function, stream);
  (void)hipGetLastError();
  return name ? name : "";
#endif
}

// The error type of a call, as HIP's: KBENCH_HIP_CHECK takes what HIP returns and, on NVIDIA, what the
// CUDA libraries a reference may call (CUB, cuBLAS through the runtime) return.
namespace detail {
inline hipError_t as_hip_error(hipError_t status) { return status; }
#if defined(KBENCH_PLATFORM_NVIDIA)
inline hipError_t as_hip_error(cudaError_t status) { return hipCUDAErrorTohipError(status); }
#endif
}  // namespace detail

// A device's architecture as code objects name it: "sm_90" on NVIDIA, the gcnArchName with its features
// ("gfx90a:sramecc+:xnack-") on AMD.
struct architecture_text {
  char text[sizeof(hipDeviceProp_t::gcnArchName)];
};

inline architecture_text architecture_name(const hipDeviceProp_t& prop) {
  architecture_text name{};
#if defined(KBENCH_PLATFORM_NVIDIA)
  std::snprintf(name.text, sizeof name.text, "sm_%d%d", prop.major, prop.minor);
#else
  std::snprintf(name.text, sizeof name.text, "%s", prop.gcnArchName);
#endif
  return name;
}

// The most dynamic shared memory (LDS) one block of `kernel` may ask for on the current device once it
// opted in (hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize, bytes)): HIP 5.2's
// NVIDIA platform has no mapping for hipDeviceAttributeSharedMemPerBlockOptin ("invalid argument"), so
// the CUDA attribute is read there. AMD GPUs need no opt-in: their LDS per block is the limit.
inline hipError_t shared_memory_per_block_optin(int& bytes) {
  int device = 0;
  const hipError_t status = hipGetDevice(&device);
  if (status != hipSuccess) return status;
#if defined(KBENCH_PLATFORM_NVIDIA)
  return hipCUDAErrorTohipError(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
#else
  return hipDeviceGetAttribute(&bytes, hipDeviceAttributeMaxSharedMemoryPerBlock, device);
#endif
}

// The most dynamic shared memory a launch of the kernel of `attributes` may ask for, where the kernel itself
// sets it: on NVIDIA 48 KiB less its static until it opts in (a launch past it fails); -1 on AMD, whose
// kernels opt in to nothing and whose runtime fills the attribute differently from version to version.
inline long long kernel_dynamic_shared_limit(const hipFuncAttributes& attributes) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return attributes.maxDynamicSharedSizeBytes;
#else
  (void)attributes;
  return -1;
#endif
}

// Packed bf16 arithmetic (two lanes per instruction) that kernels can call: NVIDIA's __nv_bfloat162 (native
// from sm_80). On AMD none here: HIP 5's hip_bfloat16 has no packed type, and gfx9 before gfx950 computes
// bf16 in its fp32 units (the compute peak of bf16 is then fp32's).
#if defined(KBENCH_PLATFORM_NVIDIA) && defined(KBENCH_DEVICE_CODE)
#define KBENCH_HAS_PACKED_BF16_FMA 1
using bf16x2_t = __nv_bfloat162;
__device__ inline bf16x2_t packed_fma(bf16x2_t a, bf16x2_t b, bf16x2_t c) { return __hfma2(a, b, c); }
__device__ inline bf16x2_t packed_add(bf16x2_t a, bf16x2_t b) { return __hadd2(a, b); }
__device__ inline bf16x2_t packed_bf16(float low, float high) { return __floats2bfloat162_rn(low, high); }
#else
#define KBENCH_HAS_PACKED_BF16_FMA 0
#endif

// The device's clocks, read in a kernel: which multiprocessor (compute unit) a thread runs on, and a timer
// that counts at a constant rate whatever the SM clock does (NVIDIA's %globaltimer, nanoseconds; AMD's
// s_memrealtime, at the rate device_wall_tick_rate gives). clock64() counts the SM clock's cycles, one
// counter per multiprocessor: a rate is read between two stamps of the same multiprocessor
// (engines/clock_stamps.hpp).
#if defined(KBENCH_DEVICE_CODE)
__device__ inline unsigned int multiprocessor_id() {
#if defined(KBENCH_PLATFORM_NVIDIA)
  unsigned int id = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
#else
  return __smid();
#endif
}

__device__ inline unsigned long long device_wall_ticks() {
#if defined(KBENCH_PLATFORM_NVIDIA)
  unsigned long long ns = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
#elif defined(__HIP_DEVICE_COMPILE__) && __has_builtin(__builtin_amdgcn_s_memrealtime)
  return __builtin_amdgcn_s_memrealtime();  // HIP's wall_clock64(), which HIP 5 declares for the device pass only
#else
  return 0;  // a target without the timer (gfx11 and later), or the host pass: no stamp is read
#endif
}
#endif  // KBENCH_DEVICE_CODE

// Ticks per second of device_wall_ticks() on the current device; 0 where the runtime does not say (HIP 5
// on AMD: the caller measures it against the host's clock).
inline double device_wall_tick_rate() {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return 1e9;
#elif HIP_VERSION_MAJOR >= 6
  int device = 0, kilohertz = 0;
  if (hipGetDevice(&device) != hipSuccess ||
      hipDeviceGetAttribute(&kilohertz, hipDeviceAttributeWallClockRate, device) != hipSuccess) {
    (void)hipGetLastError();
    return 0.0;
  }
  return kilohertz * 1e3;
#else
  return 0.0;
#endif
}

// Whether the platform has persisting L2 (the functions below do nothing on one without).
#if defined(KBENCH_PLATFORM_NVIDIA)
inline constexpr bool has_persisting_l2 = true;
#else
inline constexpr bool has_persisting_l2 = false;
#endif

// Persisting L2 (NVIDIA since Ampere): lines that a kernel's access-policy window marks persisting stay
// in a set-aside part of L2 through any amount of other traffic, a cache flush included. AMD GPUs have no
// such cache: there the reset does nothing and no window or set-aside exists.
//
// Bytes of L2 set aside for persisting accesses on the current device (0: none; kbench sets none).
inline std::size_t persisting_l2_set_aside() {
#if defined(KBENCH_PLATFORM_NVIDIA)
  std::size_t bytes = 0;
  if (cudaDeviceGetLimit(&bytes, cudaLimitPersistingL2CacheSize) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return bytes;
#else
  return 0;
#endif
}

// Every persisting line set back to normal, so that the next flush evicts it (without L2 set aside none
// can persist: nothing to do). Takes effect when called: lines that a launch still queued marks
// persisting are not reset.
inline hipError_t reset_persisting_l2() {
#if defined(KBENCH_PLATFORM_NVIDIA)
  if (persisting_l2_set_aside() == 0) return hipSuccess;
  const cudaError_t status = cudaCtxResetPersistingL2Cache();
  if (status == cudaErrorNotSupported) {  // a GPU without persisting L2: nothing persists
    (void)cudaGetLastError();
    return hipSuccess;
  }
  return hipCUDAErrorTohipError(status);
#else
  return hipSuccess;
#endif
}

// The bytes of the access-policy window set on `stream` (0: none), and the window cleared; 0 while the
// stream captures a graph (the captured launches keep theirs).
inline std::size_t take_access_policy_window(hipStream_t stream) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone) {
    (void)cudaGetLastError();
    return 0;  // read once the capture has ended: a launch that sets a window sets it on every call
  }
  cudaStreamAttrValue value{};
  if (cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value) != cudaSuccess) {
    (void)cudaGetLastError();  // a GPU without the attribute: no window
    return 0;
  }
  const std::size_t bytes = value.accessPolicyWindow.num_bytes;
  if (bytes > 0) {
    cudaStreamAttrValue none{};
    if (cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &none) != cudaSuccess) {
      (void)cudaGetLastError();
    }
  }
  return bytes;
#else
  (void)stream;
  return 0;
#endif
}

}  // namespace kbench
