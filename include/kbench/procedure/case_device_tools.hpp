// kbench/procedure/case_device_tools.hpp: the measurement tools of measure.hpp on every GPU of a case
// (case_devices.hpp): the load the correctness run's reruns under load put on each (device_loads), and the
// cache flush of each other GPU before a timed region (device_flushes). Each is made on first need and kept.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "../engines/measure.hpp"
#include "../engines/timing.hpp"
#include "case_devices.hpp"

namespace kbench {
namespace detail {

// Load for one device: its own stream, a spinner calibrated on it, and the device's compute units.
struct device_load {
  device_load() : spin(stream.get()) {
    int device = 0;
    KBENCH_HIP_CHECK(hipGetDevice(&device));
    KBENCH_HIP_CHECK(hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, device));
  }
  kbench::stream stream;
  spinner spin;
  int multiprocessors = 0;
};

class device_loads {
 public:
  explicit device_loads(const case_devices& devices) : devices_(devices) {}

  // Keeps every compute unit of every GPU of the case busy for about `seconds` from another stream:
  // `blocks_per_unit` blocks of 256 spinning threads each (6: 48 of the 64 warps a compute unit holds on
  // gfx9 and on NVIDIA since Volta), which leave room for the case's own blocks and compete with them for
  // issue slots, so that the warps of one block no longer progress in step.
  void load(double seconds, int blocks_per_unit = 6) {
    loads_.resize(static_cast<std::size_t>(devices_.count()));
    for (int d = 0; d < devices_.count(); ++d) {  // every GPU of the case, each once
      if (!devices_.first_on_its_gpu(d)) continue;
      const current_device here = devices_.on(d);
      auto& load = loads_[static_cast<std::size_t>(d)];
      if (!load) load = std::make_unique<device_load>();
      const unsigned int blocks = static_cast<unsigned int>(blocks_per_unit * std::max(load->multiprocessors, 1));
      load->spin.enqueue_wide(load->stream.get(), seconds, blocks, 256);
    }
  }

 private:
  const case_devices& devices_;
  std::vector<std::unique_ptr<device_load>> loads_;  // per logical device
};

class device_flushes {
 public:
  explicit device_flushes(case_devices& devices) : devices_(devices) {}

  // Before a timed region on the case's stream: `flush` there and, when the case spans devices, a flush
  // of each other GPU's caches on its own stream (made on first need), all joined, so that the region
  // starts once every device is cold and idle. Without a flush, only the join.
  void before_timed(const cache_flush* flush) {
    if (flush) flush->enqueue(devices_.stream(0));
    for (int d = 1; d < devices_.count(); ++d) {
      if (!flush || devices_.ordinal(d) == devices_.ordinal(0)) continue;
      const current_device here = devices_.on(d);
      if (others_.size() < static_cast<std::size_t>(d)) others_.resize(static_cast<std::size_t>(d));
      auto& mine = others_[static_cast<std::size_t>(d) - 1];
      if (!mine || mine->requested_bytes() != flush->requested_bytes()) {
        int units = 0;
        KBENCH_HIP_CHECK(hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, devices_.ordinal(d)));
        mine = std::make_unique<cache_flush>(flush->requested_bytes(), std::max(units, 1));
      }
      mine->enqueue(devices_.stream(d));
    }
    devices_.join();
  }

 private:
  case_devices& devices_;
  std::vector<std::unique_ptr<cache_flush>> others_;  // devices 1.. of the case
};

}  // namespace detail
}  // namespace kbench
