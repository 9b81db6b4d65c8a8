// kbench/engines/virtual_memory_platform.hpp: what differs between AMD and NVIDIA in managing virtual memory
// by hand (fenced_memory.hpp is what kbench uses): reserving a range of addresses, creating physical memory
// on a device, mapping it into the range and letting devices read and write it. Each call returns HIP's error.
//
// AMD: HIP's own calls (hipMemAddressReserve, hipMemCreate, hipMemMap, hipMemSetAccess and their inverses).
// NVIDIA: HIP 5.2's NVIDIA headers wrap none of them, and the driver's cuMem* calls would have every program
// link libcuda and fail to start without a driver (kbench programs link only the static runtime, so that
// their host-side tests run on machines without a GPU: module_platform.hpp). The runtime hands out the
// driver's functions by name (cudaGetDriverEntryPointByVersion, CUDA 12.5 and later; cudaGetDriverEntryPoint
// before): they are looked up once per process, and a runtime too old to do it answers "not supported".
#pragma once

#include <cstddef>
#include <vector>

#include "../contract/platform.hpp"

#if defined(KBENCH_PLATFORM_NVIDIA)
#include <cuda.h>
#include <cudaTypedefs.h>
#endif

namespace kbench {
namespace detail {

// Whether a kernel's fault on unmapped memory ends the process. NVIDIA: no, the launch's error comes back at
// the next synchronization (and the context is unusable from then on). AMD: the HIP runtime aborts the
// process on a GPU memory fault, before any call returns an error.
#if defined(KBENCH_PLATFORM_NVIDIA)
inline constexpr bool memory_fault_ends_process = false;
#else
inline constexpr bool memory_fault_ends_process = true;
#endif

#if defined(KBENCH_PLATFORM_NVIDIA)
using physical_memory = CUmemGenericAllocationHandle;
#else
using physical_memory = hipMemGenericAllocationHandle_t;
#endif

#if defined(KBENCH_PLATFORM_NVIDIA)
// The driver's virtual memory calls, looked up on first use; `missing` is why one could not be (success
// when all were found).
struct driver_memory_calls {
  PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
  PFN_cuMemAddressReserve_v10020 reserve = nullptr;
  PFN_cuMemAddressFree_v10020 free = nullptr;
  PFN_cuMemCreate_v10020 create = nullptr;
  PFN_cuMemRelease_v10020 release = nullptr;
  PFN_cuMemMap_v10020 map = nullptr;
  PFN_cuMemUnmap_v10020 unmap = nullptr;
  PFN_cuMemSetAccess_v10020 set_access = nullptr;
  hipError_t missing = hipSuccess;
};

// The driver's function `symbol`, as of the CUDA 12.0 interface, into `function`.
template <class Function>
inline hipError_t driver_function(const char* symbol, Function& function) {
#if CUDART_VERSION >= 12000
  void* found = nullptr;
  cudaDriverEntryPointQueryResult result = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  const cudaError_t status = cudaGetDriverEntryPointByVersion(symbol, &found, 12000, cudaEnableDefault, &result);
#else
  const cudaError_t status = cudaGetDriverEntryPoint(symbol, &found, cudaEnableDefault, &result);
#endif
  if (status != cudaSuccess) return hipCUDAErrorTohipError(status);
  if (result != cudaDriverEntryPointSuccess || !found) return hipErrorNotSupported;
  function = reinterpret_cast<Function>(found);
  return hipSuccess;
#else
  (void)symbol, (void)function;
  return hipErrorNotSupported;
#endif
}

[[nodiscard]] inline const driver_memory_calls& driver_memory() {
  static const driver_memory_calls calls = [] {
    driver_memory_calls c;
    const hipError_t found[] = {
        driver_function("cuMemGetAllocationGranularity", c.granularity), driver_function("cuMemAddressReserve", c.reserve),
        driver_function("cuMemAddressFree", c.free),   driver_function("cuMemCreate", c.create),
        driver_function("cuMemRelease", c.release),    driver_function("cuMemMap", c.map),
        driver_function("cuMemUnmap", c.unmap),        driver_function("cuMemSetAccess", c.set_access)};
    for (const hipError_t status : found) {
      if (status != hipSuccess && c.missing == hipSuccess) c.missing = status;
    }
    return c;
  }();
  return calls;
}

// One of the driver's calls, its result as HIP's error; the reason none can be made, where none can.
template <class Function, class... Arguments>
inline hipError_t call_driver(Function driver_memory_calls::*function, Arguments... arguments) {
  const driver_memory_calls& d = driver_memory();
  if (d.missing != hipSuccess) return d.missing;
  return hipCUResultTohipError((d.*function)(arguments...));
}

// Device memory pinned to `device`, as the driver describes it.
[[nodiscard]] inline CUmemAllocationProp device_memory_properties(int device) {
  CUmemAllocationProp p{};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = device;
  return p;
}

[[nodiscard]] inline CUdeviceptr device_address(void* address) { return reinterpret_cast<CUdeviceptr>(address); }
#else
// Device memory pinned to `device`. Set field by field: the struct's layout differs between HIP 5.2 and
// HIP 6 and 7.
[[nodiscard]] inline hipMemAllocationProp device_memory_properties(int device) {
  hipMemAllocationProp p{};
  p.type = hipMemAllocationTypePinned;
  p.location.type = hipMemLocationTypeDevice;
  p.location.id = device;
  return p;
}
#endif

// The unit of mapping on `device`: every size and address below is a multiple of it.
inline hipError_t mapping_granularity(std::size_t& bytes, int device) {
  const auto properties = device_memory_properties(device);
#if defined(KBENCH_PLATFORM_NVIDIA)
  return call_driver(&driver_memory_calls::granularity, &bytes, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
#else
  return hipMemGetAllocationGranularity(&bytes, &properties, hipMemAllocationGranularityMinimum);
#endif
}

// A range of `bytes` of addresses, nothing behind them yet.
inline hipError_t reserve_addresses(void*& address, std::size_t bytes, std::size_t alignment) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  CUdeviceptr start = 0;
  const hipError_t status = call_driver(&driver_memory_calls::reserve, &start, bytes, alignment, CUdeviceptr{0}, 0ull);
  address = reinterpret_cast<void*>(start);
  return status;
#else
  return hipMemAddressReserve(&address, bytes, alignment, nullptr, 0);
#endif
}

inline hipError_t free_addresses(void* address, std::size_t bytes) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return call_driver(&driver_memory_calls::free, device_address(address), bytes);
#else
  return hipMemAddressFree(address, bytes);
#endif
}

// `bytes` of physical memory on `device`, mapped nowhere yet.
inline hipError_t create_physical_memory(physical_memory& memory, std::size_t bytes, int device) {
  const auto properties = device_memory_properties(device);
#if defined(KBENCH_PLATFORM_NVIDIA)
  return call_driver(&driver_memory_calls::create, &memory, bytes, &properties, 0ull);
#else
  return hipMemCreate(&memory, bytes, &properties, 0);
#endif
}

inline hipError_t release_physical_memory(physical_memory memory) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return call_driver(&driver_memory_calls::release, memory);
#else
  return hipMemRelease(memory);
#endif
}

// `memory`'s first `bytes` behind the addresses from `address` on.
inline hipError_t map_memory(void* address, std::size_t bytes, physical_memory memory) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return call_driver(&driver_memory_calls::map, device_address(address), bytes, std::size_t{0}, memory, 0ull);
#else
  return hipMemMap(address, bytes, 0, memory, 0);
#endif
}

inline hipError_t unmap_memory(void* address, std::size_t bytes) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  return call_driver(&driver_memory_calls::unmap, device_address(address), bytes);
#else
  return hipMemUnmap(address, bytes);
#endif
}

// Every one of `devices` may read and write the mapped addresses from `address` on (a mapping starts with
// no access at all, even for its own device).
inline hipError_t grant_access(void* address, std::size_t bytes, const std::vector<int>& devices) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  std::vector<CUmemAccessDesc> access(devices.size());
  for (std::size_t k = 0; k < devices.size(); ++k) {
    access[k].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access[k].location.id = devices[k];
    access[k].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  return call_driver(&driver_memory_calls::set_access, device_address(address), bytes,
                     static_cast<const CUmemAccessDesc*>(access.data()), access.size());
#else
  std::vector<hipMemAccessDesc> access(devices.size());
  for (std::size_t k = 0; k < devices.size(); ++k) {
    access[k].location.type = hipMemLocationTypeDevice;
    access[k].location.id = devices[k];
    access[k].flags = hipMemAccessFlagsProtReadWrite;
  }
  return hipMemSetAccess(address, bytes, access.data(), access.size());
#endif
}

// The allocation that holds `address`: its first address and its size (the exploit suite's plants look for
// allocations the size of their own with it, as a tamperer would).
inline hipError_t allocation_range(const void* address, void*& base, std::size_t& bytes) {
#if defined(KBENCH_PLATFORM_NVIDIA)
  static PFN_cuMemGetAddressRange_v3020 range = nullptr;
  static const hipError_t found = driver_function("cuMemGetAddressRange", range);
  if (found != hipSuccess) return found;
  CUdeviceptr first = 0;
  const hipError_t status = hipCUResultTohipError(range(&first, &bytes, device_address(const_cast<void*>(address))));
  base = reinterpret_cast<void*>(first);
  return status;
#else
  hipDeviceptr_t first = nullptr;
  const hipError_t status = hipMemGetAddressRange(&first, &bytes, const_cast<void*>(address));
  base = first;
  return status;
#endif
}

}  // namespace detail
}  // namespace kbench
