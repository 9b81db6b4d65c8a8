// kbench/engines/fenced_memory.hpp: device memory with no memory around it. A range of addresses is reserved,
// and physical memory created on a device is mapped into its middle with an unmapped granule on each side
// (decisions/fence_placement.hpp): a kernel that reads or writes a byte beyond either end faults, where
// memory from hipMalloc would have served the access from whatever lies next to it.
// The platform's calls are in virtual_memory_platform.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "../contract/hip_check.hpp"
#include "../decisions/fence_placement.hpp"
#include "virtual_memory_platform.hpp"

namespace kbench {
namespace detail {

// `bytes` (rounded up to whole granules) on one device, readable and writable by the devices given, between
// two unmapped granules. Move-only; everything is unmapped, released and freed with it. Construction throws
// hip_error naming the call that failed, with everything made so far undone.
class fenced_region {
 public:
  fenced_region() = default;
  fenced_region(std::size_t bytes, int device, const std::vector<int>& access) {
    std::size_t granule = 0;
    check(mapping_granularity(granule, device), "asking for the mapping granularity of device " + std::to_string(device));
    const fence_layout layout = fence_layout_of(bytes, granule);
    check(reserve_addresses(range_, layout.reserved, granule), "reserving " + std::to_string(layout.reserved) + " bytes of addresses");
    reserved_ = layout.reserved;
    physical_memory memory{};
    check(create_physical_memory(memory, layout.mapped, device),
          "creating " + std::to_string(layout.mapped) + " bytes of memory on device " + std::to_string(device));
    memory_ = memory;
    created_ = true;
    begin_ = static_cast<unsigned char*>(range_) + layout.offset;
    check(map_memory(begin_, layout.mapped, memory_), "mapping the memory");
    mapped_ = layout.mapped;
    check(grant_access(begin_, mapped_, access), "letting the case's devices read and write the memory");
  }
  fenced_region(fenced_region&& other) noexcept { take(other); }
  fenced_region& operator=(fenced_region&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  fenced_region(const fenced_region&) = delete;
  fenced_region& operator=(const fenced_region&) = delete;
  ~fenced_region() { release(); }

  // The first mapped byte, and one past the last: the bytes before the first and from the end on are unmapped.
  [[nodiscard]] unsigned char* begin() const noexcept { return begin_; }
  [[nodiscard]] unsigned char* end() const noexcept { return begin_ + mapped_; }

 private:
  void check(hipError_t status, const std::string& doing) {
    if (status == hipSuccess) return;
    (void)hipGetLastError();  // a failed call's error, where the runtime keeps it, is no launch's
    release();
    throw hip_error(status, "fenced memory could not be made: " + doing + ": " + hipGetErrorName(status) + " (" +
                                hipGetErrorString(status) + ")");
  }

  // Each step undone that was done, in reverse; failures reported, not thrown (as a buffer's hipFree is),
  // but for those of a runtime already unloaded at exit.
  void release() noexcept {
    auto report = [](hipError_t status, const char* call) {
      if (status != hipSuccess && status != hipErrorDeinitialized) report_hip_error(status, call, __FILE__, __LINE__);
    };
    if (mapped_) report(unmap_memory(begin_, mapped_), "unmap_memory");
    if (created_) report(release_physical_memory(memory_), "release_physical_memory");
    if (reserved_) report(free_addresses(range_, reserved_), "free_addresses");
    range_ = nullptr;
    begin_ = nullptr;
    memory_ = physical_memory{};
    created_ = false;
    reserved_ = mapped_ = 0;
  }

  void take(fenced_region& other) noexcept {
    range_ = std::exchange(other.range_, nullptr);
    begin_ = std::exchange(other.begin_, nullptr);
    memory_ = std::exchange(other.memory_, physical_memory{});
    created_ = std::exchange(other.created_, false);
    reserved_ = std::exchange(other.reserved_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }

  void* range_ = nullptr;
  unsigned char* begin_ = nullptr;
  physical_memory memory_{};
  bool created_ = false;
  std::size_t reserved_ = 0, mapped_ = 0;
};

}  // namespace detail
}  // namespace kbench
