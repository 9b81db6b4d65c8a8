// kbench/procedure/case_devices.hpp: the GPUs of one case. Logical device d is HIP device ordinal(d), with
// a stream of its own; device 0's stream is the case's stream, on which every event of a timing is
// recorded. A launch forks from it (every other stream waits for what it has queued) and joins back (it
// waits for every other stream), so one event pair around a launch on the case's stream times it from a
// common start to the moment the last device finishes. One device: the same code, with nothing to fork.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/buffer_handle.hpp"
#include "../contract/devices.hpp"
#include "../contract/error.hpp"
#include "../contract/hip_check.hpp"
#include "../decisions/run_options.hpp"
#include "../engines/timing.hpp"

namespace kbench {
namespace detail {

// Makes a device current for its lifetime, and the one current before again after (so they nest).
class current_device {
 public:
  explicit current_device(int device) {
    KBENCH_HIP_CHECK(hipGetDevice(&previous_));
    moved_ = device != previous_;
    if (moved_) KBENCH_HIP_CHECK(hipSetDevice(device));
  }
  current_device(const current_device&) = delete;
  current_device& operator=(const current_device&) = delete;
  ~current_device() {
    if (moved_) KBENCH_HIP_CHECK_NOTHROW(hipSetDevice(previous_));
  }

 private:
  int previous_ = 0;
  bool moved_ = false;  // a case of one device never moves: nothing to restore
};

// The GPU ordinals of a case that spans `count` devices: --devices (or the GPUs CTest assigned), else
// the program's device first and every other visible one in order; with --share-devices, logical
// devices beyond the GPUs there are go round them again. Fewer GPUs than that: skipped_case.
[[nodiscard]] inline std::vector<int> choose_devices(int count, const run_options* options) {
  const int primary = options ? options->device : 0;
  if (count == 1) return {primary};
  std::vector<int> available = options ? options->devices : std::vector<int>{};
  std::string source = "--devices / KBENCH_DEVICES, or CTest's resource groups";
  if (available.empty()) {
    int visible = 0;
    if (hipGetDeviceCount(&visible) != hipSuccess) visible = 0;
    (void)hipGetLastError();
    available.push_back(primary);
    for (int d = 0; d < visible; ++d) {
      if (d != primary) available.push_back(d);
    }
    source = fmt::format("this machine shows {}", visible);
  }
  const bool share = options && options->share_devices;
  if (static_cast<int>(available.size()) < count && !share) {
    throw skipped_case(fmt::format("the case spans {} GPUs, but {} GPU{} ({}); --share-devices runs it on fewer, to "
                                   "test the harness",
                                   count, available.size(), available.size() == 1 ? " is" : "s are", source));
  }
  std::vector<int> ordinals;
  for (int d = 0; d < count; ++d) ordinals.push_back(available[static_cast<std::size_t>(d) % available.size()]);
  return ordinals;
}

class case_devices {
 public:
  explicit case_devices(std::vector<int> ordinals) : ordinals_(std::move(ordinals)) {
    for (std::size_t d = 0; d < ordinals_.size(); ++d) {
      const current_device here(ordinals_[d]);
      streams_.push_back(std::make_unique<kbench::stream>());
      forked_.push_back(std::make_unique<event>());
      done_.push_back(std::make_unique<event>());
    }
    std::vector<hipStream_t> handles;
    for (const auto& s : streams_) handles.push_back(s->get());
    view_.emplace(std::move(handles), ordinals_);
    enable_peer_access();
  }
  case_devices(const case_devices&) = delete;
  case_devices& operator=(const case_devices&) = delete;

  [[nodiscard]] int count() const { return static_cast<int>(ordinals_.size()); }
  [[nodiscard]] int ordinal(int d) const { return ordinals_[static_cast<std::size_t>(d)]; }
  [[nodiscard]] const std::vector<int>& ordinals() const { return ordinals_; }
  [[nodiscard]] hipStream_t stream(int d = 0) const { return streams_[static_cast<std::size_t>(d)]->get(); }
  [[nodiscard]] bool shared() const { return view_->shared(); }
  // Whether logical device `d` is the first on its GPU (--share-devices puts several on one): per-GPU work
  // is done for the first only.
  [[nodiscard]] bool first_on_its_gpu(int d) const {
    for (int e = 0; e < d; ++e) {
      if (ordinal(e) == ordinal(d)) return false;
    }
    return true;
  }
  [[nodiscard]] bool peer_access() const { return peer_access_; }
  // The first pair of distinct GPUs without peer access, in words; empty when every pair has it.
  [[nodiscard]] const std::string& missing_peer_access() const { return missing_; }
  // What a launch receives: made once, since every launch (timed ones included) is handed it.
  [[nodiscard]] const device_streams& as_streams() const { return *view_; }
  // Logical device d current for the guard's lifetime.
  [[nodiscard]] current_device on(int d) const { return current_device(ordinal(d)); }
  // The device a buffer lives on made current, and its stream: where every operation on the buffer runs.
  [[nodiscard]] current_device on(const buffer_slot& slot) const { return on(slot.device_index); }
  [[nodiscard]] hipStream_t stream_of(const buffer_slot& slot) const { return stream(slot.device_index); }

  // Every other stream waits for the work queued on device 0's so far.
  void fork() {
    if (count() == 1) return;
    forked_[0]->record(stream(0));
    for (int d = 1; d < count(); ++d) KBENCH_HIP_CHECK(hipStreamWaitEvent(stream(d), forked_[0]->get(), 0));
  }
  // Device 0's stream waits for the work queued on every other stream so far.
  void join() {
    if (count() == 1) return;
    for (int d = 1; d < count(); ++d) {
      const current_device here = on(d);
      done_[static_cast<std::size_t>(d)]->record(stream(d));
      KBENCH_HIP_CHECK(hipStreamWaitEvent(stream(0), done_[static_cast<std::size_t>(d)]->get(), 0));
    }
  }
  // Waits for every stream.
  void synchronize() const {
    for (const auto& s : streams_) s->synchronize();
  }
  // Waits for every device (work on streams other than kbench's included).
  void synchronize_devices() const {
    for (int d = 0; d < count(); ++d) {
      const current_device here = on(d);
      KBENCH_HIP_CHECK(hipDeviceSynchronize());
    }
  }

 private:
  // Peer access between every pair of distinct GPUs that allow it; true when all of them do.
  void enable_peer_access() {
    peer_access_ = true;
    for (int a = 0; a < count(); ++a) {
      for (int b = 0; b < count(); ++b) {
        if (ordinal(a) == ordinal(b)) continue;
        int can = 0;
        KBENCH_HIP_CHECK(hipDeviceCanAccessPeer(&can, ordinal(a), ordinal(b)));
        if (!can) {
          if (peer_access_) missing_ = fmt::format("GPU {} cannot reach GPU {}'s memory", ordinal(a), ordinal(b));
          peer_access_ = false;
          continue;
        }
        const current_device here = on(a);
        const hipError_t status = hipDeviceEnablePeerAccess(ordinal(b), 0);
        if (status != hipSuccess && status != hipErrorPeerAccessAlreadyEnabled) KBENCH_HIP_CHECK(status);
        (void)hipGetLastError();
      }
    }
  }

  std::vector<int> ordinals_;
  std::vector<std::unique_ptr<kbench::stream>> streams_;
  std::vector<std::unique_ptr<event>> forked_, done_;
  std::optional<device_streams> view_;
  bool peer_access_ = false;
  std::string missing_;
};

}  // namespace detail
}  // namespace kbench
