// kbench/procedure/device_work.hpp: the procedure's device work for every element type (drawing inputs,
// comparing outputs, perturbing a reference for the tolerance probe), compiled once per program in
// translation units of their own (device_work_compare.hpp, device_work_compare_half_floats.hpp,
// device_work_compare_fp8.hpp, device_work_compare_integers.hpp, device_work_fill.hpp,
// device_work_perturb.hpp), which kbench.cmake compiles beside the rest of the procedure
// (procedure_impl.hpp), so that a project's first build runs them in parallel. Here, what the rest of the
// procedure sees: declarations that these are instantiated elsewhere, so that it compiles none of their
// kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../engines/device_compare.hpp"
#include "../engines/random.hpp"

namespace kbench {

// Drawing inputs: declared in random.hpp, defined in random_kernels.hpp (device_work_fill.hpp).
extern template void fill_random<void>(void*, dtype, std::size_t, const distribution&, std::uint64_t, std::uint64_t,
                                       hipStream_t, const value_edge&);
extern template void rotate_elements<void>(void*, const void*, dtype, std::size_t, std::size_t, hipStream_t);

namespace detail {
// The comparison's element loop, one per element type: fp64 and fp32 in device_work_compare.hpp, fp16 and
// bf16 in device_work_compare_half_floats.hpp, fp8 in device_work_compare_fp8.hpp, the integers in
// device_work_compare_integers.hpp (the comparison is the largest part of the device work).
extern template element_tally run_compare<device_reader_of<dtype::f64>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::f32>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::f16>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::bf16>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::f8e4m3>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::i8>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::u8>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::i16>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::u16>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::i32>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::u32>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::i64>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
extern template element_tally run_compare<device_reader_of<dtype::u64>>(
    const void*, const void*, std::size_t, std::uint64_t, dtype, const tolerance&, bool, hipStream_t);
// Each row's signed sums, for the audit of the errors' signs (floating-point types, in the same units).
extern template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::f64>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);
extern template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::f32>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);
extern template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::f16>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);
extern template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::bf16>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);
extern template std::vector<signed_sums> run_row_sums<device_reader_of<dtype::f8e4m3>>(
    const void*, const void*, std::size_t, std::size_t, std::uint64_t, dtype, hipStream_t);
}  // namespace detail

}  // namespace kbench
