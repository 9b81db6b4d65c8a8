// kbench/engines/tally.hpp: what the comparison's element loop counts over a range of elements, as one type
// shared by the host engine (comparison.hpp), the device engine (device_compare.hpp) and every merge of
// their partial results. HIP-free; its merge also runs in kernels.
#pragma once

#include <cstdint>

#include "../detail/host_device.hpp"

namespace kbench {

inline constexpr std::uint64_t no_index = ~std::uint64_t{0};

// Counts of type Count (32-bit in a kernel thread's registers, 64-bit everywhere else), first indices
// (no_index: none), maxima with their index (-1: no element yet) and the sums over the finite pairs.
// An aggregate without initializers, so kernels can keep it in shared memory: start from none().
template <class Count>
struct basic_tally {
  Count mismatches, never_written, nonfinite, nan_expected, nan_actual, finite_pairs;
  std::uint64_t first_never_written, first_nonfinite, first_nan_expected;
  std::uint64_t max_abs_index, max_rel_index;
  double max_abs, max_rel;
  double max_abs_expected;  // the expected value where the abs error is largest
  double dot, norm_a, norm_e, norm_diff;
  // The errors' signs over the whole output (engines/bias_audit.hpp): d = actual - expected summed as it is
  // and toward the reference's magnitude, and |expected|, over the finite pairs that meet the element rules
  // with the reference at least the type's smallest normal.
  double bias_error, bias_toward, bias_magnitude;
  // How far apart the finite pairs are in units of the output dtype (integers: their difference): 0, 1
  // and 2 (the rest: finite_pairs less these), and the most.
  Count ulps_equal, ulps_one, ulps_two;
  std::uint64_t max_ulps;

  KBENCH_HOST_DEVICE static basic_tally none() {
    return {0,   0,   0,   0,   0,   0,   no_index, no_index, no_index, no_index, no_index, -1.0, -1.0,
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0};
  }

  // One finite pair `ulps` apart.
  KBENCH_HOST_DEVICE void count_ulps(std::uint64_t ulps) {
    ulps_equal += ulps == 0;
    ulps_one += ulps == 1;
    ulps_two += ulps == 2;
    max_ulps = ulps > max_ulps ? ulps : max_ulps;
  }

  // Adds another range's tally: counts and sums add, first indices keep the smallest, and a maximum
  // moves only to a larger value, or to the same value at a smaller index. The result does not depend
  // on which range was tallied first; sums agree to rounding.
  template <class Other>
  KBENCH_HOST_DEVICE void merge(const basic_tally<Other>& o) {
    mismatches += o.mismatches;
    never_written += o.never_written;
    nonfinite += o.nonfinite;
    nan_expected += o.nan_expected;
    nan_actual += o.nan_actual;
    finite_pairs += o.finite_pairs;
    first_never_written = o.first_never_written < first_never_written ? o.first_never_written : first_never_written;
    first_nonfinite = o.first_nonfinite < first_nonfinite ? o.first_nonfinite : first_nonfinite;
    first_nan_expected = o.first_nan_expected < first_nan_expected ? o.first_nan_expected : first_nan_expected;
    if (o.max_abs > max_abs || (o.max_abs == max_abs && o.max_abs_index < max_abs_index)) {
      max_abs = o.max_abs, max_abs_index = o.max_abs_index, max_abs_expected = o.max_abs_expected;
    }
    if (o.max_rel > max_rel || (o.max_rel == max_rel && o.max_rel_index < max_rel_index)) {
      max_rel = o.max_rel, max_rel_index = o.max_rel_index;
    }
    dot += o.dot, norm_a += o.norm_a, norm_e += o.norm_e, norm_diff += o.norm_diff;
    bias_error += o.bias_error, bias_toward += o.bias_toward, bias_magnitude += o.bias_magnitude;
    ulps_equal += o.ulps_equal, ulps_one += o.ulps_one, ulps_two += o.ulps_two;
    max_ulps = o.max_ulps > max_ulps ? o.max_ulps : max_ulps;
  }

  // Nothing at all found: no mismatch, never-written element, NaN or Inf.
  [[nodiscard]] KBENCH_HOST_DEVICE bool clean() const {
    return mismatches == 0 && never_written == 0 && nonfinite == 0 && nan_expected == 0 && nan_actual == 0;
  }
};

using element_tally = basic_tally<unsigned long long>;

}  // namespace kbench
