// What a process pays to open the GPU: the first runtime call (which creates the context) timed from the
// process's start, or, with `hold <seconds>`, a process that opens the GPU and keeps its context idle that
// long (run.sh times the first kind alone and beside the second).
#include <hip/hip_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

int main(int argc, char** argv) {
  const auto start = std::chrono::steady_clock::now();
  if (hipFree(nullptr) != hipSuccess) {
    std::fprintf(stderr, "no GPU could be opened\n");
    return 1;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (argc == 3 && std::strcmp(argv[1], "hold") == 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(argv[2])));
    return 0;
  }
  std::printf("%.3f\n", seconds);
  return 0;
}
