// What the runtime does with a launch over a device limit, on the GPU present: the facts the check of launch
// limits before a launch is to be built on (docs/threat-model.md, "a launch over a resource limit whose
// error is lost"). For each kind of launch over a limit, launched directly and under stream capture:
//   returned     what the launch call returned (hipLaunchKernelGGL returns nothing: hipGetLastError right after)
//   cleared      whether a second hipGetLastError is clean (the error is not sticky: a launcher can lose it)
//   ran          whether the kernel wrote its flag (a launch that fails silently leaves it unwritten)
//   capture      what ending the capture returned, and how many kernel nodes the graph holds
// Build and run: studies/launch-limits/run.sh (needs a GPU).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <string>

namespace {

__global__ void flag_kernel(int* flag) {
  extern __shared__ int scratch[];
  if (threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 0) {
    scratch[0] = 1;
    *flag = scratch[0];
  }
}

struct over_limit {
  const char* what;
  dim3 grid;
  dim3 block;
  std::size_t dynamic_shared;
};

const char* name(hipError_t e) { return e == hipSuccess ? "success" : hipGetErrorName(e); }

void report(const over_limit& o, int* flag, hipStream_t s) {
  int zero = 0, ran = 0;
  (void)hipMemcpy(flag, &zero, sizeof zero, hipMemcpyHostToDevice);
  hipLaunchKernelGGL(flag_kernel, o.grid, o.block, o.dynamic_shared, s, flag);
  const hipError_t returned = hipGetLastError();
  const hipError_t again = hipGetLastError();
  const hipError_t synced = hipStreamSynchronize(s);
  (void)hipMemcpy(&ran, flag, sizeof ran, hipMemcpyDeviceToHost);
  (void)hipGetLastError();
  std::printf("  %-52s direct:  returned %s, then %s; stream %s; ran %s\n", o.what, name(returned), name(again),
              name(synced), ran ? "yes" : "no");

  hipGraph_t graph = nullptr;
  const hipError_t begun = hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal);
  hipLaunchKernelGGL(flag_kernel, o.grid, o.block, o.dynamic_shared, s, flag);
  const hipError_t captured = hipGetLastError();
  const hipError_t ended = hipStreamEndCapture(s, &graph);
  std::size_t nodes = 0;
  if (graph) (void)hipGraphGetNodes(graph, nullptr, &nodes);
  hipGraphExec_t exec = nullptr;
  const hipError_t instantiated = graph ? hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0) : hipErrorInvalidValue;
  (void)hipGetLastError();
  std::printf("  %-52s capture: begin %s, launch %s, end %s, %zu node(s), instantiate %s\n", "", name(begun),
              name(captured), name(ended), nodes, name(instantiated));
  if (exec) (void)hipGraphExecDestroy(exec);
  if (graph) (void)hipGraphDestroy(graph);
  (void)hipGetLastError();
}

}  // namespace

int main() {
  hipDeviceProp_t prop{};
  if (hipGetDeviceProperties(&prop, 0) != hipSuccess) {
    std::printf("no GPU\n");
    return 77;
  }
  int optin = 0;  // CUDA's opt-in limit; AMD has none beyond the default (the attribute says 0 there)
  (void)hipDeviceGetAttribute(&optin, hipDeviceAttributeSharedMemPerBlockOptin, 0);
  const std::size_t opted_in = optin > 0 ? static_cast<std::size_t>(optin) : prop.sharedMemPerBlock;
  hipFuncAttributes attributes{};
  (void)hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(flag_kernel));
  std::printf("%s: %d threads per block, %zu B shared per block (%zu B opted in), grid y up to %d; the kernel "
              "allows %d threads, %d B dynamic shared without opting in\n",
              prop.name, prop.maxThreadsPerBlock, prop.sharedMemPerBlock, opted_in,
              prop.maxGridSize[1], attributes.maxThreadsPerBlock, attributes.maxDynamicSharedSizeBytes);
  int* flag = nullptr;
  hipStream_t s = nullptr;
  if (hipMalloc(&flag, sizeof(int)) != hipSuccess || hipStreamCreateWithFlags(&s, hipStreamNonBlocking) != hipSuccess) return 1;
  const over_limit cases[] = {
      {"within every limit", dim3(1), dim3(256), sizeof(int)},  // the flag goes through shared memory: at least an int of it
      {"threads per block: twice the device's", dim3(1), dim3(2 * prop.maxThreadsPerBlock), sizeof(int)},
      {"block z: 128 (the device allows 64)", dim3(1), dim3(1, 1, 128), sizeof(int)},
      {"grid y: one more than the device's", dim3(1, prop.maxGridSize[1] + 1u), dim3(32), sizeof(int)},
      {"dynamic shared: the per-block default + 4 KiB, not opted in", dim3(1), dim3(32), prop.sharedMemPerBlock + 4096},
      {"dynamic shared: the opted-in limit + 4 KiB", dim3(1), dim3(32), opted_in + 4096},
  };
  for (const over_limit& o : cases) report(o, flag, s);
  std::printf("  after all: hipDeviceSynchronize %s\n", name(hipDeviceSynchronize()));
  return 0;
}
