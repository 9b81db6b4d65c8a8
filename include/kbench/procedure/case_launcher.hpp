// kbench/procedure/case_launcher.hpp: the launches of one case. A case's handles point at memory only for
// the length of one launch (or one host function): bound here, then unbound on every path, so that no
// stage finds a handle pointing at memory it has since changed. Whoever owns the memory says where each
// buffer is (case_buffers.hpp for input set 0, timed_input_sets.hpp for the timed launches); this class
// only binds, launches across the case's devices, checks the launch's error and notes an access-policy
// window a launch left on a stream of the case.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <fmt/format.h>

#include "../contract/case_layout.hpp"
#include "../contract/error.hpp"
#include "../contract/kernel_case.hpp"
#include "../contract/platform.hpp"
#include "case_devices.hpp"

namespace kbench {
namespace detail {

// Which kernel a launch runs, and whose buffers it writes.
enum class side { reference, optimized };
[[nodiscard]] inline const char* name_of(side s) { return s == side::optimized ? "optimized" : "reference"; }

class case_launcher {
 public:
  case_launcher(const case_layout& layout, case_devices& devices)
      : layout_(layout), case_(layout.declaration()), devices_(devices) {
    for (int d = 0; d < devices_.count(); ++d) {  // before any launch of the case (some drivers set some aside)
      const current_device here = devices_.on(d);
      set_aside_at_open_.push_back(persisting_l2_set_aside());
    }
  }
  case_launcher(const case_launcher&) = delete;
  case_launcher& operator=(const case_launcher&) = delete;

  // A launch of `target` with input k bound to input_at(k) and output k to output_at(k) (declaration
  // order among the inputs, and among the outputs), and its scratch to that side's (place_scratch), for
  // the length of the call. A case of several devices forks from the case's stream before and joins it
  // after.
  template <class InputAt, class OutputAt>
  void launch_on(side target, InputAt&& input_at, OutputAt&& output_at) {
    for (std::size_t k = 0; k < layout_.input_count(); ++k) layout_.input_handle(k).device = input_at(k);
    for (std::size_t k = 0; k < layout_.output_count(); ++k) layout_.output_handle(k).device = output_at(k);
    const std::vector<void*>& scratch = scratch_at_[target == side::optimized ? 1 : 0];
    for (std::size_t k = 0; k < layout_.scratch_count(); ++k) {
      layout_.scratch_handle(k).device = k < scratch.size() ? scratch[k] : nullptr;
    }
    run_bound(target);
  }
  // Where each scratch buffer of `target` is (declaration order among the scratch buffers), for every
  // launch of that side: its memory stays the same whatever inputs and outputs a launch is given.
  void place_scratch(side target, std::vector<void*> memory) { scratch_at_[target == side::optimized ? 1 : 0] = std::move(memory); }
  // The same on memory of the caller's: `inputs` and `outputs` in declaration order.
  void launch_at(side target, const std::vector<void*>& inputs, const std::vector<void*>& outputs) {
    launch_on(target, [&](std::size_t k) { return inputs[k]; }, [&](std::size_t k) { return outputs[k]; });
  }

  // The largest access-policy window a launch of `target` left on a stream of the case (0: none).
  [[nodiscard]] std::size_t access_window_bytes(side target) const {
    return window_bytes_[target == side::optimized ? 1 : 0];
  }
  // The L2 set aside for persisting accesses on logical device `d` when the case was opened (NVIDIA).
  [[nodiscard]] std::size_t set_aside_at_open(int d) const { return set_aside_at_open_[static_cast<std::size_t>(d)]; }

  // Host values bound to the handles for the length of a host function.
  template <class Compute>
  void with_host_values(const std::vector<const double*>& in_values, std::vector<std::vector<double>>& out_values,
                        Compute&& compute) {
    for (std::size_t k = 0; k < layout_.input_count(); ++k) layout_.input_handle(k).host = const_cast<double*>(in_values[k]);
    for (std::size_t k = 0; k < layout_.output_count(); ++k) layout_.output_handle(k).host = out_values[k].data();
    try {
      compute();
    } catch (...) {
      unbind();
      throw;
    }
    unbind();
  }

 private:
  // Runs the launch of `target` on whatever the handles are bound to, then unbinds them and checks the
  // launch's error.
  void run_bound(side target) {
    try {
      devices_.fork();
      case_.run_launch(target == side::optimized, devices_.as_streams());
      if (devices_.count() > 1) KBENCH_HIP_CHECK(hipSetDevice(devices_.ordinal(0)));  // the launch moved it
      devices_.join();
    } catch (...) {
      (void)hipSetDevice(devices_.ordinal(0));
      (void)hipGetLastError();  // what the launch left goes with its exception, not to the next launch's check
      unbind();
      throw;
    }
    unbind();
    const hipError_t status = hipGetLastError();
    if (status != hipSuccess) {
      throw hip_error(status, fmt::format("the {} launch of '{}' failed: {} ({})", name_of(target), case_.name,
                                          hipGetErrorName(status), hipGetErrorString(status)));
    }
    take_access_windows(target);
  }

  // An access-policy window left on a stream of the case (NVIDIA) keeps its range in L2 through every
  // later cache flush, for every kernel on that stream: noted for the side that set it, and cleared.
  void take_access_windows(side target) {
    if (!has_persisting_l2) return;
    std::size_t& largest = window_bytes_[target == side::optimized ? 1 : 0];
    largest = std::max(largest, take_access_policy_window(devices_.stream(0)));  // device 0 is current
    for (int d = 1; d < devices_.count(); ++d) {
      const current_device here = devices_.on(d);
      largest = std::max(largest, take_access_policy_window(devices_.stream(d)));
    }
  }
  void unbind() {
    for (const auto& slot : case_.buffers) {
      slot->device = nullptr;
      slot->host = nullptr;
    }
  }

  const case_layout& layout_;  // the handles, by position
  const declared_case& case_;
  case_devices& devices_;
  std::vector<void*> scratch_at_[2];                       // place_scratch: reference, optimized
  std::size_t window_bytes_[2] = {0, 0};        // access_window_bytes: reference, optimized
  std::vector<std::size_t> set_aside_at_open_;  // persisting L2 of each device before the case's launches
};

}  // namespace detail
}  // namespace kbench
