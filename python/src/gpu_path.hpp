// python/src/gpu_path.hpp: what the GPU build's parts say to each other, as plain C++ (no HIP, no Python):
// the binding (python_sides.hpp, host compiler, pybind11) runs Python; the replay (case_replay.hpp, the GPU
// compiler: kernel_case needs the platform's headers) turns a Python case into a kernel_case; the run
// (python_run.hpp, host compiler) hands it to kbench's procedure as a registered case. Each part compiles
// with its own compiler, and none needs another's headers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <kbench/contract/buffer_handle.hpp>
#include <kbench/contract/registry.hpp>
#include <kbench/contract/shape.hpp>
#include <kbench/results/results.hpp>

#include "case_declaration.hpp"

namespace kbench::python {

// DLPack's device types (the DLPack specification's DLDeviceType): where a side's tensors live.
inline constexpr int dlpack_cpu = 1;
inline constexpr int dlpack_cuda = 2;
inline constexpr int dlpack_rocm = 10;

// The launch kbench runs: its stream (hipStream_t as a number, what torch.cuda.ExternalStream takes), the
// current device, and that device's DLPack type. A host reference has no stream, and CPU tensors.
struct launch_context {
  std::uintptr_t stream = 0;
  int device = 0;
  int dlpack_device = dlpack_cpu;
};

// One declaration of a Python case at one shape, made by running its case function once: what it declared,
// and its sides, which it calls with the GIL taken. The replay binds each buffer (in declaration order,
// absent ones among them) to the slot of the kernel_case it declared, so that its handles view that case's
// memory while kbench runs a launch of it.
class python_declaration {
 public:
  virtual ~python_declaration() = default;
  [[nodiscard]] virtual const case_declaration& declaration() const = 0;
  virtual void bind(std::size_t buffer, kbench::detail::buffer_slot* slot) = 0;
  // Calls side `index` (in the order the case set them); a Python exception becomes a kbench::error that
  // names the side, the case and the Python message.
  virtual void call(std::size_t index, const launch_context& launch) = 0;
};

// A Python case function: declares the case at a shape. Every kernel_case kbench makes of the case (on the
// host, then on its GPU) runs it anew, as kbench runs a C++ case function.
class python_case_source {
 public:
  virtual ~python_case_source() = default;
  [[nodiscard]] virtual std::shared_ptr<python_declaration> declare(const kbench::shape& s) = 0;
};

// ---- the replay (case_replay.hpp, compiled by the GPU compiler) --------------------------------------------
// The case function of every Python case: the Python case of c.name() declared at c.shape(), replayed verb
// by verb onto `c`.
void replay_python_case(kernel_case& c);

// ---- the run (python_run.hpp) -------------------------------------------------------------------------------
// The source of the Python case called `name` while a run of it (or a declaration) is under way.
[[nodiscard]] python_case_source& python_case_named(const std::string& name);

// What a Python run asks for: the case, the shape, every shape the test declares, and the command line a
// kbench program would take (`correctness` or `perf`, then its options: `--timing batch`, `--seed 0x2a`).
struct python_run_request {
  std::string name;
  kbench::shape shape;
  std::vector<kbench::shape> shapes;
  std::vector<std::string> arguments;
};

// The canonical lines of the case's declaration as kbench's own declare_on_host() makes them from the
// replayed kernel_case: its checks run, a broken declaration throws usage_error with kernel_case's message.
[[nodiscard]] std::vector<std::string> replayed_lines(const std::shared_ptr<python_case_source>& source,
                                                      const python_run_request& request);

// The case run as a kbench program runs it (program/case_lifecycle.hpp): correctness (every seed, then the
// shapes around the declared one) or perf (check, time, check again). The run's records, the declared
// shape's first; a case that cannot run (no GPU) is recorded as skipped, with the reason.
[[nodiscard]] run_record run_python_case(const std::shared_ptr<python_case_source>& source,
                                         const python_run_request& request);

}  // namespace kbench::python
