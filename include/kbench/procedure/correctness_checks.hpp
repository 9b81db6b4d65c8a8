// kbench/procedure/correctness_checks.hpp: which checks a correctness run (correctness_run.hpp) makes besides
// comparing the outputs, as plain data: a case's first seed makes all of them, a later seed none.
#pragma once

namespace kbench {
namespace detail {

// What a correctness run checks besides the outputs. A case's first seed checks all of it: the test
// itself (its tolerance can fail), the kernel under load, against the oracle, off its alignment and at the
// edges of its inputs' values, whether every element of each input matters, and whether each kernel
// launches within the limits of the device and of the kernel. Later seeds check the kernel again on new
// inputs only. The extended checks (every misalignment, the edges) run in full up to small_case_elements,
// or at any size where asked (the smallest declared shape of a case that has no small one); --quick leaves
// them out.
struct correctness_checks {
  bool under_load = true;          // reruns while other work loads the device
  bool tolerance_can_fail = true;  // the tolerance rejects what a broken kernel leaves
  bool oracle = true;              // accuracy against the case's oracle, when it declares one
  bool alignment = true;           // buffers moved off their alignment
  bool extended = true;            // every misalignment and the edges (false: --quick, the short list of offsets)
  bool any_size = false;           // the extended checks beyond small_case_elements too
  bool spikes = true;              // at any size, spikes in each input and another family (even with --quick)
  bool launch_limits = true;       // each side's kernels within the device's and their own limits
  [[nodiscard]] static correctness_checks first_seed(bool quick = false, bool any_size = false) {
    correctness_checks c;
    c.extended = !quick;
    c.any_size = any_size;
    return c;
  }
  [[nodiscard]] static correctness_checks later_seed() { return {false, false, false, false, false, false, false, false}; }
};

}  // namespace detail
}  // namespace kbench
