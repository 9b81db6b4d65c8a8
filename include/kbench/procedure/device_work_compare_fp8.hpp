// kbench/procedure/device_work_compare_fp8.hpp: the device comparison of fp8 (e4m3), compiled in one
// translation unit of the program's procedure (device_work.hpp says why), beside the other floats'
// (device_work_compare.hpp, device_work_compare_half_floats.hpp).
#pragma once

#include "../engines/device_compare_loop.hpp"
#include "../engines/device_row_sums.hpp"
#include "device_work.hpp"

namespace kbench {
namespace detail {

template element_tally run_compare<device_reader_of<dtype::f8e4m3>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::f8e4m3>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);

}  // namespace detail
}  // namespace kbench
