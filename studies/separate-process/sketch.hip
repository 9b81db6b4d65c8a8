// A sketch of the separate-process mode that docs/threat-model.md weighs: the candidate's launch function
// runs in a process of its own, on buffers the verdict's process allocated and shares through IPC handles,
// while the verdict's process keeps the timing. What it costs against a launch in the same process, for a
// kernel of about 5 us and one of about 500 us (a scale of n floats; n chosen for each on the H200).
//
// The verdict's process (this program, `sketch <n> <launches>`) allocates x and y, exports them, and starts
// itself again as the candidate (`sketch --candidate <handles...>`). Per launch:
//   verdict     spins its stream 50 us (so that what follows is queued before it runs), records its timing
//               event `start` and an interprocess event `go`, then asks the candidate over a pipe to launch
//   candidate   makes its stream wait for `go`, launches the kernel, records the interprocess event `done`,
//               answers "queued"
//   verdict     makes its stream wait for `done`, records `stop`, waits for it
// `stop - start` is the candidate's GPU time as the verdict's own events see it (the waits between processes
// included); the host round trip is the wall time from the request to the verdict's wait returning. Both
// beside the same kernel launched in the verdict's process between its own events.
//
// Build and run: studies/separate-process/run.sh (needs a GPU). HIP's IPC calls on both platforms; nothing of
// kbench's is used, so that the sketch measures the mechanism alone.
#include <hip/hip_runtime.h>

#include <unistd.h>

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                                                     \
  do {                                                                                                  \
    const hipError_t status_ = (call);                                                                  \
    if (status_ != hipSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, hipGetErrorString(status_)); \
      std::exit(1);                                                                                     \
    }                                                                                                   \
  } while (0)

namespace {

__global__ void scale_kernel(const float* x, float* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    y[i] = 2.0f * x[i];
  }
}

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

void launch_scale(const float* x, float* y, std::size_t n, hipStream_t s) {
  const auto blocks = static_cast<unsigned int>(std::min<std::size_t>((n + 255) / 256, 132 * 16));
  hipLaunchKernelGGL(scale_kernel, dim3(blocks), dim3(256), 0, s, x, y, n);
  CHECK(hipGetLastError());
}

// The bytes of a handle as hex, for the candidate's command line, and back.
template <class Handle>
std::string to_hex(const Handle& h) {
  std::string text;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&h);
  for (std::size_t i = 0; i < sizeof h; ++i) {
    char pair[3];
    std::snprintf(pair, sizeof pair, "%02x", bytes[i]);
    text += pair;
  }
  return text;
}
template <class Handle>
Handle from_hex(const char* text) {
  Handle h{};
  auto* bytes = reinterpret_cast<unsigned char*>(&h);
  for (std::size_t i = 0; i < sizeof h; ++i) bytes[i] = static_cast<unsigned char>(std::stoi(std::string(text + 2 * i, 2), nullptr, 16));
  return h;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// The candidate: opens the buffers and events, then for each byte read from `in` launches once behind `go`
// and records `done`, answering a byte on `out`; ends at end of input.
int run_candidate(char** argv) {
  const std::size_t n = std::strtoull(argv[2], nullptr, 10);
  void* x = nullptr;
  void* y = nullptr;
  CHECK(hipIpcOpenMemHandle(&x, from_hex<hipIpcMemHandle_t>(argv[3]), hipIpcMemLazyEnablePeerAccess));
  CHECK(hipIpcOpenMemHandle(&y, from_hex<hipIpcMemHandle_t>(argv[4]), hipIpcMemLazyEnablePeerAccess));
  hipEvent_t go = nullptr, done = nullptr;
  CHECK(hipIpcOpenEventHandle(&go, from_hex<hipIpcEventHandle_t>(argv[5])));
  CHECK(hipIpcOpenEventHandle(&done, from_hex<hipIpcEventHandle_t>(argv[6])));
  hipStream_t s = nullptr;
  CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  const int in = std::atoi(argv[7]), out = std::atoi(argv[8]);
  char byte = 0;
  while (read(in, &byte, 1) == 1) {
    CHECK(hipStreamWaitEvent(s, go, 0));
    launch_scale(static_cast<const float*>(x), static_cast<float*>(y), n, s);
    CHECK(hipEventRecord(done, s));
    if (write(out, &byte, 1) != 1) return 1;
  }
  CHECK(hipStreamSynchronize(s));
  CHECK(hipIpcCloseMemHandle(x));
  CHECK(hipIpcCloseMemHandle(y));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 9 && std::strcmp(argv[1], "--candidate") == 0) return run_candidate(argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <floats> <launches>\n", argv[0]);
    return 2;
  }
  const std::size_t n = std::strtoull(argv[1], nullptr, 10);
  const int launches = std::atoi(argv[2]);
  float* x = nullptr;
  float* y = nullptr;
  CHECK(hipMalloc(&x, n * sizeof(float)));
  CHECK(hipMalloc(&y, n * sizeof(float)));
  CHECK(hipMemset(x, 0, n * sizeof(float)));
  hipStream_t s = nullptr;
  CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  hipEvent_t start = nullptr, stop = nullptr, go = nullptr, done = nullptr;
  CHECK(hipEventCreate(&start));
  CHECK(hipEventCreate(&stop));
  CHECK(hipEventCreateWithFlags(&go, hipEventInterprocess | hipEventDisableTiming));
  CHECK(hipEventCreateWithFlags(&done, hipEventInterprocess | hipEventDisableTiming));
  hipDeviceProp_t prop{};
  CHECK(hipGetDeviceProperties(&prop, 0));
  const long long spin_cycles = static_cast<long long>(50e-6 * prop.clockRate * 1e3);

  // In the verdict's process: the kernel between its own events, behind the same spin.
  std::vector<double> alone, alone_wall;
  for (int i = 0; i < launches; ++i) {
    const auto wall = std::chrono::steady_clock::now();
    hipLaunchKernelGGL(spin_kernel, dim3(1), dim3(1), 0, s, spin_cycles);
    CHECK(hipEventRecord(start, s));
    launch_scale(x, y, n, s);
    CHECK(hipEventRecord(stop, s));
    CHECK(hipEventSynchronize(stop));
    float ms = 0;
    CHECK(hipEventElapsedTime(&ms, start, stop));
    alone.push_back(ms * 1e3);
    alone_wall.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - wall).count());
  }

  hipIpcMemHandle_t hx{}, hy{};
  hipIpcEventHandle_t hgo{}, hdone{};
  CHECK(hipIpcGetMemHandle(&hx, x));
  CHECK(hipIpcGetMemHandle(&hy, y));
  CHECK(hipIpcGetEventHandle(&hgo, go));
  CHECK(hipIpcGetEventHandle(&hdone, done));
  int to_candidate[2], from_candidate[2];
  if (pipe(to_candidate) != 0 || pipe(from_candidate) != 0) return 1;
  const auto started = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {  // exec at once: the runtime does not survive a fork
    // The candidate keeps only its own ends: holding the write end of its input would keep its reads from
    // ever seeing the end of input, and the verdict's wait for it would never end.
    close(to_candidate[1]);
    close(from_candidate[0]);
    const std::string floats = std::to_string(n), in = std::to_string(to_candidate[0]), out = std::to_string(from_candidate[1]);
    const std::string args[] = {to_hex(hx), to_hex(hy), to_hex(hgo), to_hex(hdone)};
    execl("/proc/self/exe", argv[0], "--candidate", floats.c_str(), args[0].c_str(), args[1].c_str(), args[2].c_str(),
          args[3].c_str(), in.c_str(), out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_candidate[0]);
  close(from_candidate[1]);
  std::vector<double> apart, apart_wall;
  for (int i = 0; i <= launches; ++i) {  // the first, which opens the candidate's context, is not counted
    const auto wall = std::chrono::steady_clock::now();
    hipLaunchKernelGGL(spin_kernel, dim3(1), dim3(1), 0, s, spin_cycles);
    CHECK(hipEventRecord(start, s));
    CHECK(hipEventRecord(go, s));
    char byte = 'l';
    if (write(to_candidate[1], &byte, 1) != 1 || read(from_candidate[0], &byte, 1) != 1) {
      std::fprintf(stderr, "the candidate did not answer\n");
      return 1;
    }
    CHECK(hipStreamWaitEvent(s, done, 0));
    CHECK(hipEventRecord(stop, s));
    CHECK(hipEventSynchronize(stop));
    float ms = 0;
    CHECK(hipEventElapsedTime(&ms, start, stop));
    if (i == 0) continue;
    apart.push_back(ms * 1e3);
    apart_wall.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - wall).count());
  }
  close(to_candidate[1]);
  int status = 0;
  waitpid(child, &status, 0);
  const double setup = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  std::printf("%zu floats, %d launches on %s\n", n, launches, prop.name);
  std::printf("  same process:     GPU %.2f us (median, events), wall per launch %.1f us\n", median(alone), median(alone_wall));
  std::printf("  separate process: GPU %.2f us (median, the verdict's events around the candidate's IPC events), "
              "wall per launch %.1f us\n", median(apart), median(apart_wall));
  std::printf("  GPU time added per launch: %.2f us (%.1f%%); candidate process, start to end: %.0f ms\n",
              median(apart) - median(alone), 100.0 * (median(apart) - median(alone)) / median(alone), setup);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
