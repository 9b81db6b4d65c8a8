// kbench/procedure/device_work_compare_integers.hpp: the device comparison of the integer element types, compiled in one
// translation unit of the program's procedure (device_work.hpp says why).
#pragma once

#include "../engines/device_compare_loop.hpp"
#include "device_work.hpp"

namespace kbench {
namespace detail {

template element_tally run_compare<device_reader_of<dtype::i8>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template element_tally run_compare<device_reader_of<dtype::u8>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template element_tally run_compare<device_reader_of<dtype::i16>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template element_tally run_compare<device_reader_of<dtype::u16>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template element_tally run_compare<device_reader_of<dtype::i32>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template element_tally run_compare<device_reader_of<dtype::u32>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template element_tally run_compare<device_reader_of<dtype::i64>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
template element_tally run_compare<device_reader_of<dtype::u64>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);

}  // namespace detail
}  // namespace kbench
