// kbench/engines/device_compare.hpp: the comparison of two device arrays on the GPU, for large outputs
// compared with a device reference (its element loop: device_compare_loop.hpp), and the count of poisoned
// elements. The device result is used when the output is clean (no mismatch, NaN, Inf or unwritten element);
// any finding is re-derived on the host, whose report lists the first mismatches.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../contract/device_buffer.hpp"
#include "../contract/hip_check.hpp"
#include "bias_audit.hpp"
#include "comparison.hpp"
#include "tally.hpp"

namespace kbench {
namespace detail {

inline constexpr int max_device_rules = 4;

// What the comparison's element loop (device_compare_loop.hpp) and the rows' signed sums (device_row_sums.hpp)
// are, for the code that calls them: declared here, defined there, and instantiated for every element type in
// the device units of the program's procedure (procedure/device_work.hpp), so that code comparing outputs
// compiles none of their kernels.
template <class Word, dtype T>
struct device_reader;
template <dtype D>
using device_reader_of = device_reader<storage_t<D>, D>;
template <class R>
element_tally run_compare(const void* actual, const void* expected, std::size_t n, std::uint64_t constant_bits, dtype t,
                          const tolerance& tol, bool detect_poison, hipStream_t stream);
template <class R>
std::vector<signed_sums> run_row_sums(const void* actual, const void* expected, std::size_t size, std::size_t row_length,
                                      std::uint64_t constant_bits, dtype t, hipStream_t stream);

}  // namespace detail

// Whether the device comparison can apply `tol` (at most 4 allclose-type rules); the host engine can
// apply any.
[[nodiscard]] inline bool device_can_compare(const tolerance& tol) {
  return std::count_if(tol.element_rules.begin(), tol.element_rules.end(), [](const element_rule& r) {
           return r.rule == element_rule::kind::within;
         }) <= detail::max_device_rules;
}

// Compares two device arrays of the same dtype (or, with `actual` null, the constant `constant_bits`
// against the reference). Returns a comparison without its first-mismatches table; `clean` says whether
// nothing at all was found (no mismatch, never-written element, NaN or Inf), in which case it equals the
// host engine's result.
struct device_comparison {
  comparison result;
  bool clean = false;
  double expected_norm = 0.0;  // ||expected||_2 over the finite pairs
};

// A template (call it as a function), so that a translation unit that includes this header without calling
// it compiles no comparison kernel; a program's procedure compiles it once (procedure/device_work.hpp).
template <class Unused = void>
[[nodiscard]] device_comparison compare_on_device(const void* actual, const void* expected, dtype t, std::size_t size,
                                                  const std::vector<std::size_t>& extents, const tolerance& tol,
                                                  hipStream_t stream, std::uint64_t constant_bits = 0,
                                                  bool audit_signs = true) {
  using namespace detail;
  validate(tol);
  const element_tally tally = visit_dtype(t, [&](auto d) {
    constexpr dtype D = decltype(d)::value;
    return run_compare<device_reader_of<D>>(actual, expected, size, constant_bits, t, tol, true, stream);
  });
  device_comparison result;
  result.result.applied = tol;
  result.result.size = size;
  // The aggregates and the verdict: the same code as the host engine's.
  finish_comparison(result.result, tol, extents, tally);
  result.expected_norm = std::sqrt(tally.norm_e);
  result.clean = tally.clean();
  // A clean float output's errors, by sign (bias_audit.hpp): the host engine's audit_signs, on the device:
  // one row from the element loop's tally, rows from a second pass.
  if (audit_signs && result.clean && result.result.passed && info(t).is_float) {
    const std::size_t row_length = audit_row_length(size, extents);
    if (row_length == size) {
      audit_bias(result.result, {whole_output_sums(tally)}, row_length, tol, t, extents);
      return result;
    }
    const std::vector<signed_sums> rows = visit_dtype(t, [&](auto d) {
      constexpr dtype D = decltype(d)::value;
      if constexpr (info(D).is_float) {
        return run_row_sums<device_reader_of<D>>(actual, expected, size, row_length, constant_bits, t, stream);
      } else {
        return std::vector<signed_sums>{};
      }
    });
    audit_bias(result.result, rows, row_length, tol, t, extents);
  }
  return result;
}

// How many of `size` elements at `data` (device memory) hold the poison pattern of `t` (its kernel is one of
// kbench's small kernels: small_kernels.hpp).
[[nodiscard]] std::size_t count_poison_on_device(const void* data, dtype t, std::size_t size, hipStream_t stream);

}  // namespace kbench
