// kbench/procedure/device_ceilings_definitions.hpp: open_gpu() and device_ceilings_once() (procedure.hpp), the
// device probed and its ceilings measured once per program (engines/device_probe.hpp: the copy bandwidth,
// the timer floor, the arithmetic peaks), defined once per program: kbench.cmake compiles it as a
// translation unit of its own, whose kernels (the peaks' arithmetic for every type, and kbench's small kernels
// of checks and timing: engines/small_kernels.hpp) no other unit compiles; kbench/main.hpp includes it.
#pragma once

#include "../engines/device_probe.hpp"
#include "../engines/small_kernels.hpp"
#include "../procedure.hpp"

namespace kbench {
namespace detail {

const gpu_info& open_gpu(int device) { return gpu(device); }

const device_ceilings& device_ceilings_once() { return measured_ceilings(); }

}  // namespace detail
}  // namespace kbench
