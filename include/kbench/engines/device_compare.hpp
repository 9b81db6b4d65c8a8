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
#include "comparison.hpp"
#include "device_compare_loop.hpp"
#include "device_row_sums.hpp"

namespace kbench {

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

namespace detail {

template <class Word>
__global__ void count_words_equal(const Word* data, std::size_t n, Word value, unsigned long long* count) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    mine += data[i] == value;
  }
  if (mine) atomicAdd(count, mine);
}

}  // namespace detail

// How many of `size` elements at `data` (device memory) hold the poison pattern of `t`.
[[nodiscard]] inline std::size_t count_poison_on_device(const void* data, dtype t, std::size_t size, hipStream_t stream) {
  unsigned long long* const count = detail::kept_counters();
  KBENCH_HIP_CHECK(hipMemsetAsync(count, 0, sizeof(unsigned long long), stream));
  visit_dtype(t, [&](auto d) {
    using Word = word_t<decltype(d)::value>;
    hipLaunchKernelGGL(detail::count_words_equal<Word>, dim3(1024), dim3(256), 0, stream, static_cast<const Word*>(data),
                       size, poison_as<Word>(t), count);
    KBENCH_HIP_CHECK_LAUNCH();
  });
  unsigned long long result = 0;
  KBENCH_HIP_CHECK(hipMemcpyAsync(&result, count, sizeof result, hipMemcpyDeviceToHost, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));
  return static_cast<std::size_t>(result);
}

}  // namespace kbench
