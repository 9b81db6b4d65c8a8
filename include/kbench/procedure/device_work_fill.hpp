// kbench/procedure/device_work_fill.hpp: drawing inputs, for every element type, compiled in one translation
// unit of the program's procedure (device_work.hpp says why); the tolerance probe's perturbation has a unit
// of its own (device_work_perturb.hpp): together they were the longest unit of the build (on a 2-core
// machine 11.6 s; apart, 9.0 s and 6.8 s side by side).
#pragma once

#include "device_work.hpp"
#include "random_kernels.hpp"

namespace kbench {

template void fill_random<void>(void*, dtype, std::size_t, const distribution&, std::uint64_t, std::uint64_t,
                                hipStream_t, const value_edge&);
template void rotate_elements<void>(void*, const void*, dtype, std::size_t, std::size_t, hipStream_t);

}  // namespace kbench
