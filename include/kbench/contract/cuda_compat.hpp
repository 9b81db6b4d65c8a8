// kbench/contract/cuda_compat.hpp: lets HIP's NVIDIA-platform headers of older HIP releases (Debian 12 ships
// HIP 5.2.3) compile against CUDA 12 and 13, which removed or changed runtime APIs those inline wrappers
// call. Most of the affected wrappers only need to parse; the census calls one (a graph node's
// dependencies), which forwards to CUDA 13's form below.
//
// Force-included ahead of every translation unit on the NVIDIA platform by the kbench CMake target
// (nvcc -include); never seen by AMD builds. Each shim is guarded by the CUDA version that needs it, so
// on an older CUDA this file adds nothing.
#pragma once

#if defined(__CUDACC__) || defined(__HIP_PLATFORM_NVIDIA__) || defined(__HIP_PLATFORM_NVCC__)
#include <cuda.h>
#include <cuda_runtime_api.h>

#if CUDART_VERSION >= 12000
// Texture references were removed in CUDA 12. Minimal declarations so HIP's templates parse; every call
// reports cudaErrorNotSupported.
struct textureReference {};
template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct texture : textureReference {};
template <class... Args> inline cudaError_t cudaBindTexture(Args&&...) { return cudaErrorNotSupported; }
template <class... Args> inline cudaError_t cudaBindTexture2D(Args&&...) { return cudaErrorNotSupported; }
template <class... Args> inline cudaError_t cudaBindTextureToArray(Args&&...) { return cudaErrorNotSupported; }
template <class... Args> inline cudaError_t cudaUnbindTexture(Args&&...) { return cudaErrorNotSupported; }
template <class... Args> inline cudaError_t cudaGetTextureAlignmentOffset(Args&&...) { return cudaErrorNotSupported; }
#endif

#if CUDART_VERSION >= 13000
// cudaDeviceProp lost these fields in CUDA 13; the values are still attributes. The derived struct keeps
// the old spelling working inside HIP's wrappers, which declare their own cudaDeviceProp locals.
struct kbench_cuda_device_prop : cudaDeviceProp {
  int clockRate = 0;
  int memoryClockRate = 0;
  int computeMode = 0;
  int kernelExecTimeoutEnabled = 0;
  int cooperativeMultiDeviceLaunch = 0;
};
inline cudaError_t cudaGetDeviceProperties(kbench_cuda_device_prop* prop, int device) {
  cudaError_t status = cudaGetDeviceProperties(static_cast<cudaDeviceProp*>(prop), device);
  if (status != cudaSuccess) return status;
  const struct {
    int* field;
    cudaDeviceAttr attribute;
  } extras[] = {{&prop->clockRate, cudaDevAttrClockRate},
                {&prop->memoryClockRate, cudaDevAttrMemoryClockRate},
                {&prop->computeMode, cudaDevAttrComputeMode},
                {&prop->kernelExecTimeoutEnabled, cudaDevAttrKernelExecTimeout}};
  for (const auto& extra : extras) {
    status = cudaDeviceGetAttribute(extra.field, extra.attribute, device);
    if (status != cudaSuccess) return status;
  }
  prop->cooperativeMultiDeviceLaunch = 0;  // multi-device cooperative launch is gone in CUDA 13
  return cudaSuccess;
}
#define cudaDeviceProp kbench_cuda_device_prop

// Removed in CUDA 13: the attribute is unknown to the driver (its query fails, honestly), the launch
// is not supported.
#define cudaDevAttrCooperativeMultiDeviceLaunch static_cast<cudaDeviceAttr>(96)
template <class... Args> inline cudaError_t cudaLaunchCooperativeKernelMultiDevice(Args&&...) { return cudaErrorNotSupported; }

// Signatures that changed in CUDA 13: a cudaMemLocation instead of a device ordinal, and edge data on
// graph dependencies. The old forms forward to the new ones.
inline cudaMemLocation kbench_device_location(int device) {
  cudaMemLocation location{};
  location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  location.id = device == cudaCpuDeviceId ? 0 : device;
  return location;
}
inline cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice, int device) {
  return cudaMemAdvise(ptr, count, advice, kbench_device_location(device));
}
inline cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device, cudaStream_t stream = 0) {
  return cudaMemPrefetchAsync(ptr, count, kbench_device_location(device), 0u, stream);
}
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                            size_t count) {
  return cudaGraphAddDependencies(graph, from, to, static_cast<const cudaGraphEdgeData*>(nullptr), count);
}
inline cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                               const cudaGraphNode_t* to, size_t count) {
  return cudaGraphRemoveDependencies(graph, from, to, static_cast<const cudaGraphEdgeData*>(nullptr), count);
}
inline cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to, size_t* count) {
  return cudaGraphGetEdges(graph, from, to, static_cast<cudaGraphEdgeData*>(nullptr), count);
}
inline cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* deps, size_t* count) {
  return cudaGraphNodeGetDependencies(node, deps, static_cast<cudaGraphEdgeData*>(nullptr), count);
}
inline cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* deps, size_t* count) {
  return cudaGraphNodeGetDependentNodes(node, deps, static_cast<cudaGraphEdgeData*>(nullptr), count);
}
inline cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* deps, size_t count,
                                                       unsigned int flags) {
  return cudaStreamUpdateCaptureDependencies(stream, deps, static_cast<const cudaGraphEdgeData*>(nullptr), count, flags);
}
inline cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                               unsigned long long* id = nullptr, cudaGraph_t* graph = nullptr,
                                               const cudaGraphNode_t** deps = nullptr, size_t* count = nullptr) {
  return cudaStreamGetCaptureInfo(stream, status, id, graph, deps, nullptr, count);
}
// cuCtxCreate gained a CUctxCreateParams argument; HIP's hipCtxCreate passes (ctx, flags, device).
inline CUresult cuCtxCreate(CUcontext* ctx, unsigned int flags, CUdevice device) {
  return cuCtxCreate(ctx, static_cast<CUctxCreateParams*>(nullptr), flags, device);
}
#endif  // CUDART_VERSION >= 13000

// HIP 5's NVIDIA headers declare their graph and capture wrappers for nvcc alone (inside #ifdef __CUDACC__),
// though they call only the CUDA runtime's host API. kbench compiles the stages of its procedure, which
// capture and replay graphs but hold no kernel, as plain C++ (kbench.cmake's host-only units): for them, the
// same wrappers, declared after HIP's types. (kbench.cmake checks that a host-only unit compiles with the
// headers found, else it compiles those units with nvcc.)
#if !defined(__CUDACC__)
#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>
#if HIP_VERSION_MAJOR < 6
#define KBENCH_HOST_GRAPH_API(call) hipCUDAErrorTohipError(call)
inline hipError_t hipStreamBeginCapture(hipStream_t s, hipStreamCaptureMode mode) {
  return KBENCH_HOST_GRAPH_API(cudaStreamBeginCapture(s, mode));
}
inline hipError_t hipStreamEndCapture(hipStream_t s, hipGraph_t* graph) {
  return KBENCH_HOST_GRAPH_API(cudaStreamEndCapture(s, graph));
}
inline hipError_t hipGraphCreate(hipGraph_t* graph, unsigned int flags) {
  return KBENCH_HOST_GRAPH_API(cudaGraphCreate(graph, flags));
}
inline hipError_t hipGraphDestroy(hipGraph_t graph) { return KBENCH_HOST_GRAPH_API(cudaGraphDestroy(graph)); }
inline hipError_t hipGraphExecDestroy(hipGraphExec_t exec) { return KBENCH_HOST_GRAPH_API(cudaGraphExecDestroy(exec)); }
inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, hipGraphNode_t* error_node, char* log,
                                      size_t log_size) {
#if CUDART_VERSION >= 12000
  if (error_node) *error_node = nullptr;  // CUDA 12's form reports neither
  if (log && log_size) *log = '\0';
  return KBENCH_HOST_GRAPH_API(cudaGraphInstantiate(exec, graph, 0ull));
#else
  return KBENCH_HOST_GRAPH_API(cudaGraphInstantiate(exec, graph, error_node, log, log_size));
#endif
}
inline hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t s) { return KBENCH_HOST_GRAPH_API(cudaGraphLaunch(exec, s)); }
inline hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t* nodes, size_t* count) {
  return KBENCH_HOST_GRAPH_API(cudaGraphGetNodes(graph, nodes, count));
}
inline hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType* type) {
  return KBENCH_HOST_GRAPH_API(cudaGraphNodeGetType(node, type));
}
inline hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t* dependencies, size_t* count) {
  return KBENCH_HOST_GRAPH_API(cudaGraphNodeGetDependencies(node, dependencies, count));
}
inline hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t node, hipKernelNodeParams* params) {
  return KBENCH_HOST_GRAPH_API(cudaGraphKernelNodeGetParams(node, params));
}
inline hipError_t hipGraphMemcpyNodeGetParams(hipGraphNode_t node, hipMemcpy3DParms* params) {
  return KBENCH_HOST_GRAPH_API(cudaGraphMemcpyNodeGetParams(node, params));
}
inline hipError_t hipGraphMemsetNodeGetParams(hipGraphNode_t node, hipMemsetParams* params) {
  return KBENCH_HOST_GRAPH_API(cudaGraphMemsetNodeGetParams(node, params));
}
inline hipError_t hipGraphAddKernelNode(hipGraphNode_t* node, hipGraph_t graph, const hipGraphNode_t* dependencies,
                                        size_t count, const hipKernelNodeParams* params) {
  return KBENCH_HOST_GRAPH_API(cudaGraphAddKernelNode(node, graph, dependencies, count, params));
}
inline hipError_t hipGraphAddMemcpyNode(hipGraphNode_t* node, hipGraph_t graph, const hipGraphNode_t* dependencies,
                                        size_t count, const hipMemcpy3DParms* params) {
  return KBENCH_HOST_GRAPH_API(cudaGraphAddMemcpyNode(node, graph, dependencies, count, params));
}
inline hipError_t hipGraphAddMemsetNode(hipGraphNode_t* node, hipGraph_t graph, const hipGraphNode_t* dependencies,
                                        size_t count, const hipMemsetParams* params) {
  return KBENCH_HOST_GRAPH_API(cudaGraphAddMemsetNode(node, graph, dependencies, count, params));
}
#undef KBENCH_HOST_GRAPH_API
#endif  // HIP_VERSION_MAJOR < 6
#endif  // !__CUDACC__

#endif  // NVIDIA platform
