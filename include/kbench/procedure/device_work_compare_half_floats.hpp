// kbench/procedure/device_work_compare_half_floats.hpp: the device comparison of fp16 and bf16, compiled in
// one translation unit of the program's procedure (device_work.hpp says why), beside fp64 and fp32's
// (device_work_compare.hpp) and fp8's (device_work_compare_fp8.hpp): with fp8 in the same unit it was the
// longest of the build (on a 2-core machine 13.2 s; apart, 8.4 s and 9.1 s side by side).
#pragma once

#include "../engines/device_compare_loop.hpp"
#include "../engines/device_row_sums.hpp"
#include "device_work.hpp"

namespace kbench {
namespace detail {

template element_tally run_compare<device_reader_of<dtype::f16>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template element_tally run_compare<device_reader_of<dtype::bf16>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::f16>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);
template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::bf16>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);

}  // namespace detail
}  // namespace kbench
