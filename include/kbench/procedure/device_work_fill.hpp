// kbench/procedure/device_work_fill.hpp: drawing inputs and perturbing a reference, for every element type,
// compiled in one translation unit of the program's procedure (device_work.hpp says why).
#pragma once

#include "device_work.hpp"
#include "perturb_kernels.hpp"
#include "random_kernels.hpp"

namespace kbench {

template void fill_random<void>(void*, dtype, std::size_t, const distribution&, std::uint64_t, std::uint64_t,
                                hipStream_t, const value_edge&);
template void rotate_elements<void>(void*, const void*, dtype, std::size_t, std::size_t, hipStream_t);

namespace detail {
template void perturb_on_device<void>(void*, dtype, std::size_t, std::size_t, const tolerance&, double, hipStream_t);
}  // namespace detail

}  // namespace kbench
