// kbench/procedure/device_work_compare.hpp: the device comparison of fp64 and fp32, compiled in one translation
// unit of the program's procedure (device_work.hpp says why); the narrower floats have units of their own
// (device_work_compare_half_floats.hpp, device_work_compare_fp8.hpp), so that they compile side by side.
#pragma once

#include "../engines/device_compare_loop.hpp"
#include "../engines/device_row_sums.hpp"
#include "device_work.hpp"

namespace kbench {
namespace detail {

template element_tally run_compare<device_reader_of<dtype::f64>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template element_tally run_compare<device_reader_of<dtype::f32>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::f64>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);
template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::f32>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);
}  // namespace detail
}  // namespace kbench
