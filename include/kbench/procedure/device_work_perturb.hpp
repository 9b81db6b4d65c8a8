// kbench/procedure/device_work_perturb.hpp: the tolerance probe's perturbation of a reference, for every
// element type, compiled in one translation unit of the program's procedure (device_work.hpp says why).
#pragma once

#include "device_work.hpp"
#include "perturb_kernels.hpp"

namespace kbench {
namespace detail {

template void perturb_on_device<void>(void*, dtype, std::size_t, std::size_t, const tolerance&, double, hipStream_t);

}  // namespace detail
}  // namespace kbench
