// kbench/procedure/host_computation.hpp: a host function of a case (its host reference, its oracle) run on
// one input set: the inputs brought to the host as double (host_transfer.hpp, into memory kept from one
// run to the next), the outputs starting as a sentinel that the function must overwrite (in-place
// buffers as drawn), the handles bound to those values for the length of the call.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../contract/case_layout.hpp"
#include "../contract/kernel_case.hpp"
#include "../results/results.hpp"
#include "case_buffers.hpp"
#include "host_transfer.hpp"

namespace kbench {
namespace detail {

inline constexpr std::uint64_t host_reference_sentinel = 0x7FF4BADB7FF4BADBull;  // a NaN no arithmetic makes

[[nodiscard]] inline double sentinel_value() {
  double sentinel;
  std::memcpy(&sentinel, &host_reference_sentinel, sizeof sentinel);
  return sentinel;
}

class host_computation {
 public:
  host_computation(const case_layout& layout, const case_devices& devices, case_launcher& launcher)
      : layout_(layout), devices_(devices), launcher_(launcher) {}

  // `compute` on the input set `set`; returns the outputs' values. `timed`, when given, gets the time
  // of the transfers and of the computation, and the bytes of the inputs.
  [[nodiscard]] std::vector<std::vector<double>> run(const input_set_view& set, const host_function& compute,
                                                     host_run* timed = nullptr) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const std::size_t inputs = layout_.input_count(), outputs = layout_.output_count();
    std::vector<const double*> in_values(inputs);
    std::vector<std::vector<double>> out_values(outputs);
    host_inputs_.resize(inputs);
    for (std::size_t k = 0; k < inputs; ++k) {
      to_doubles(set.inputs[k], layout_.input_slot(k), host_inputs_[k]);
      in_values[k] = host_inputs_[k].data();
    }
    for (std::size_t k = 0; k < outputs; ++k) {
      if (layout_.in_place(k)) {
        host_doubles values;
        to_doubles(set.starts[k], layout_.output_slot(k), values);
        out_values[k].assign(values.data(), values.data() + values.size);
      } else {
        out_values[k].assign(layout_.output_slot(k).size, sentinel_value());
      }
    }
    const auto computing = clock::now();
    launcher_.with_host_values(in_values, out_values, compute);
    if (timed) {
      timed->transfer_seconds = std::chrono::duration<double>(computing - start).count();
      timed->compute_seconds = std::chrono::duration<double>(clock::now() - computing).count();
      timed->input_bytes = 0.0;
      for (std::size_t k = 0; k < inputs; ++k) {
        const buffer_slot& slot = layout_.input_slot(k);
        timed->input_bytes += static_cast<double>(slot.size * info(slot.type).size);
      }
    }
    return out_values;
  }

 private:
  // The values of a buffer of `slot`'s layout at `device`, as double, on the buffer's device.
  void to_doubles(const void* device, const buffer_slot& slot, host_doubles& into) {
    const current_device here = devices_.on(slot);
    staging_.to_doubles(device, slot, into, devices_.stream_of(slot));
  }

  const case_layout& layout_;
  const case_devices& devices_;
  case_launcher& launcher_;
  host_staging staging_;                   // pinned chunks for the transfers
  std::vector<host_doubles> host_inputs_;  // the inputs as a host function last saw them
};

}  // namespace detail
}  // namespace kbench
