// kbench/contract/devices.hpp: what a case that spans several devices (kernel_case::devices) sees of them. Its
// launches receive one stream per device; its per-device buffers are one handle per device.
//
//   static void allreduce(kbench::kernel_case& c) {
//     const int gpus = c.devices(static_cast<int>(c.dim("gpus")));
//     auto x = c.input_on_each<float>("x", {n});   // one buffer per device, each drawn from the seed
//     auto y = c.output_on_each<float>("y", {n});  // poisoned and guarded on each device
//     c.optimized([=](const kbench::device_streams& s) {
//       for (int d = 0; d < s.count(); ++d) my_kernel<<<grid, block, 0, s.use(d)>>>(x[d], y[d], ...);
//     });
//   }
//
// Logical device d runs on the HIP device s.ordinal(d). kbench makes device 0 current again after each
// launch, and times a launch from a common start to the moment the last device finishes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "error.hpp"
#include "hip_check.hpp"
#include "platform.hpp"

namespace kbench {

// The streams of one launch of a multi-device case, one per logical device, each on its own device.
class device_streams {
 public:
  device_streams(std::vector<hipStream_t> streams, std::vector<int> ordinals)
      : streams_(std::move(streams)), ordinals_(std::move(ordinals)) {}

  [[nodiscard]] int count() const { return static_cast<int>(streams_.size()); }
  // The stream of logical device d (launch on it only while its device is current: use(d)).
  [[nodiscard]] hipStream_t operator[](int d) const { return streams_.at(checked(d)); }
  // The HIP device ordinal behind logical device d.
  [[nodiscard]] int ordinal(int d) const { return ordinals_.at(checked(d)); }
  // Makes logical device d current and returns its stream: `kernel<<<g, b, 0, s.use(d)>>>(...)`.
  [[nodiscard]] hipStream_t use(int d) const {
    KBENCH_HIP_CHECK(hipSetDevice(ordinal(d)));
    return streams_[static_cast<std::size_t>(d)];
  }
  // True when two logical devices are one GPU (kbench's --share-devices, for testing the harness).
  [[nodiscard]] bool shared() const {
    for (std::size_t i = 0; i < ordinals_.size(); ++i) {
      for (std::size_t j = i + 1; j < ordinals_.size(); ++j) {
        if (ordinals_[i] == ordinals_[j]) return true;
      }
    }
    return false;
  }

 private:
  [[nodiscard]] std::size_t checked(int d) const {
    if (d < 0 || d >= count()) {
      throw usage_error("device " + std::to_string(d) + " asked for, but the case spans " + std::to_string(count()));
    }
    return static_cast<std::size_t>(d);
  }
  std::vector<hipStream_t> streams_;
  std::vector<int> ordinals_;
};

// One handle per logical device (kernel_case::input_on_each and friends): x[d] is device d's buffer.
template <class Ref>
class per_device {
 public:
  explicit per_device(std::vector<Ref> refs) : refs_(std::move(refs)) {}
  [[nodiscard]] const Ref& operator[](int d) const {
    if (d < 0 || d >= count()) {
      throw usage_error("device " + std::to_string(d) + " asked for, but the buffer has " + std::to_string(count()));
    }
    return refs_[static_cast<std::size_t>(d)];
  }
  [[nodiscard]] int count() const { return static_cast<int>(refs_.size()); }
  [[nodiscard]] auto begin() const { return refs_.begin(); }
  [[nodiscard]] auto end() const { return refs_.end(); }

 private:
  std::vector<Ref> refs_;
};

}  // namespace kbench
