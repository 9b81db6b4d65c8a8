// kbench/contract/module_platform.hpp: what differs between AMD and NVIDIA in loading a code object file and
// launching its kernels by name (code_object.hpp is what a test file uses). Opt-in, as code_object.hpp is.
//
// AMD: HIP's module API (hipModuleLoad, hipModuleGetFunction, hipModuleLaunchKernel), a .co or .hsaco file or
// a clang offload bundle of them (hipcc --genco). HIP cannot list a module's kernels, nor read the argument
// layout the code object's metadata records (.args): a kbench program reads it from the file instead
// (kernel_arguments.hpp's file_argument_reader).
// NVIDIA: the CUDA runtime's library API (cudaLibraryLoadFromFile, cudaLibraryGetKernel, cudaLaunchKernel), a
// .cubin, .fatbin or .ptx file. HIP's hipModule* calls map to the driver API there, which would have every
// program link libcuda and fail to start without a driver (kbench programs link only the static runtime, so
// that their host-side tests run on machines without a GPU); the runtime's library API loads the same files
// through the driver it opens itself. It lists a library's kernels, and from CUDA 13's runtime on it gives
// each parameter's offset and size (cudaFuncGetParamInfo).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hip_check.hpp"
#include "kernel_arguments.hpp"
#include "platform.hpp"

#if defined(KBENCH_PLATFORM_NVIDIA) && CUDART_VERSION < 12000
#error "kbench: kernels from code objects need CUDA 12 or later on NVIDIA (the runtime's library API)"
#endif

namespace kbench {
namespace detail {

#if defined(KBENCH_PLATFORM_NVIDIA)
using module_handle = cudaLibrary_t;
using module_function = cudaKernel_t;
#else
using module_handle = hipModule_t;
using module_function = hipFunction_t;
#endif

// Whether this platform can list the kernels of a loaded code object.
inline constexpr bool modules_listable =
#if defined(KBENCH_PLATFORM_NVIDIA) && CUDART_VERSION >= 13000
    true;
#else
    false;
#endif

// What loading a file returned, as HIP's error, and whether it means the file is no code object this device runs.
inline bool not_for_this_device(hipError_t status) {
  return status == hipErrorInvalidImage || status == hipErrorNoBinaryForGpu || status == hipErrorInvalidKernelFile ||
         status == hipErrorSharedObjectInitFailed || status == hipErrorInvalidSource;
}

inline hipError_t module_load(module_handle& module, const std::string& path) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return hipCUDAErrorTohipError(cudaLibraryLoadFromFile(&module, path.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
#else
  return hipModuleLoad(&module, path.c_str());
#endif
}

// The kernel `name` of `module`, loaded for the current device (NVIDIA loads lazily: its attributes are read
// here, so that a file without code for this device fails now, not at the first launch).
inline hipError_t module_get_function(module_function& function, module_handle module, const std::string& name) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  const cudaError_t found = cudaLibraryGetKernel(&function, module, name.c_str());
  if (found != cudaSuccess) return hipCUDAErrorTohipError(found);
  cudaFuncAttributes attributes{};
  return hipCUDAErrorTohipError(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(function)));
#else
  return hipModuleGetFunction(&function, module, name.c_str());
#endif
}

// The names of the kernels `module` holds (empty where the platform cannot list them: modules_listable).
inline std::vector<std::string> module_kernel_names(module_handle module) {
  std::vector<std::string> names;
#if defined(KBENCH_PLATFORM_NVIDIA) && CUDART_VERSION >= 13000
  unsigned int count = 0;
  KBENCH_HIP_CHECK(cudaLibraryGetKernelCount(&count, module));
  std::vector<cudaKernel_t> kernels(count);
  if (count) KBENCH_HIP_CHECK(cudaLibraryEnumerateKernels(kernels.data(), count, module));
  for (cudaKernel_t k : kernels) {
    const char* name = nullptr;
    KBENCH_HIP_CHECK(cudaFuncGetName(&name, reinterpret_cast<const void*>(k)));
    names.emplace_back(name ? name : "");
  }
#else
  (void)module;
#endif
  return names;
}

// The offset and size of each parameter of `function`, as its code object records them; none where this
// platform cannot read them.
inline std::optional<std::vector<argument_slot>> module_argument_record(module_function function) {
#if defined(KBENCH_PLATFORM_NVIDIA) && CUDART_VERSION >= 13000
  std::vector<argument_slot> slots;
  for (;;) {
    argument_slot s;
    // Asked one past the last parameter, the runtime answers "invalid value": that is the count.
    if (cudaFuncGetParamInfo(reinterpret_cast<const void*>(function), slots.size(), &s.offset, &s.size) != cudaSuccess) break;
    slots.push_back(s);
  }
  (void)cudaGetLastError();
  return slots;
#else
  (void)function;
  return std::nullopt;
#endif
}

inline hipError_t module_launch(module_function function, dim3 grid, dim3 block, unsigned int shared_bytes,
                                hipStream_t stream, void** arguments) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return hipCUDAErrorTohipError(
      cudaLaunchKernel(reinterpret_cast<const void*>(function), grid, block, arguments, shared_bytes, stream));
#else
  return hipModuleLaunchKernel(function, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes, stream,
                               arguments, nullptr);
#endif
}

// The name of a kernel loaded from a code object, for the census: on AMD a module's kernel is no host
// function, and hipKernelNameRefByPtr does not know it (NVIDIA's cudaFuncGetName knows both).
inline std::string module_function_name(module_function function) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return kernel_symbol(reinterpret_cast<const void*>(function), nullptr);
#else
  const char* name = hipKernelNameRef(function);
  (void)hipGetLastError();
  return name ? name : "";
#endif
}

#if defined(KBENCH_PLATFORM_AMD)
// A module kernel's attributes and blocks per compute unit, for the census: on AMD hipFuncGetAttributes and
// hipOccupancyMaxActiveBlocksPerMultiprocessor know host functions only.
inline hipError_t module_function_attributes(hipFuncAttributes& a, module_function function) {
  const std::pair<int*, hipFunction_attribute> wanted[] = {
      {&a.numRegs, HIP_FUNC_ATTRIBUTE_NUM_REGS}, {&a.maxThreadsPerBlock, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK}};
  for (const auto& [value, attribute] : wanted) {
    const hipError_t status = hipFuncGetAttribute(value, attribute, function);
    if (status != hipSuccess) return status;
  }
  int shared = 0, local = 0;
  hipError_t status = hipFuncGetAttribute(&shared, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function);
  if (status == hipSuccess) status = hipFuncGetAttribute(&local, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function);
  a.sharedSizeBytes = static_cast<std::size_t>(shared);
  a.localSizeBytes = static_cast<std::size_t>(local);
  return status;
}

inline hipError_t module_blocks_per_unit(int& blocks, module_function function, int threads, std::size_t shared_bytes) {
  return hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, threads, shared_bytes);
}
#endif

}  // namespace detail
}  // namespace kbench
