// kbench/decisions/fence_placement.hpp: the arithmetic of fenced memory (engines/fenced_memory.hpp) and of
// the runs that place a buffer against its fence (procedure/bounds_check.hpp): how much to map and where,
// and where a buffer starts so that it ends where the mapped memory ends. HIP-free.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kbench {
namespace detail {

// `bytes` rounded up to a multiple of `unit` (> 0).
[[nodiscard]] constexpr std::size_t round_up(std::size_t bytes, std::size_t unit) { return (bytes + unit - 1) / unit * unit; }

// Where fenced memory of `bytes` goes in its range of addresses, at a mapping granularity of `granule`:
// the mapped bytes (whole granules, at least one) begin one granule into the range, and one unmapped granule
// follows them.
struct fence_layout {
  std::size_t reserved = 0;  // the whole range
  std::size_t mapped = 0;    // behind addresses [offset, offset + mapped)
  std::size_t offset = 0;    // the unmapped granule below
};

[[nodiscard]] constexpr fence_layout fence_layout_of(std::size_t bytes, std::size_t granule) {
  const std::size_t mapped = round_up(bytes ? bytes : 1, granule);
  return {mapped + 2 * granule, mapped, granule};
}

// Where a buffer of `bytes` starts so that it ends at `end`, or as close below as a start aligned to
// `alignment` allows (the case's required alignment, at least its element size): the gap, less than the
// alignment, stays mapped, so a read that goes no further than it is not seen (nor can it reach unmapped
// memory wherever the buffer is: pages are whole multiples of any alignment a case may require).
[[nodiscard]] constexpr std::uintptr_t start_to_end_at(std::uintptr_t end, std::size_t bytes, std::size_t alignment) {
  return (end - bytes) / alignment * alignment;
}

// The bytes fenced memory holds for a buffer of `bytes`: a page more, so that with the buffer at the end, a
// read a little before its start lands in mapped memory, and the fault of a read past the end is not taken
// for one before the start (the run with the buffer at the start comes after).
inline constexpr std::size_t fence_margin = 4096;
[[nodiscard]] constexpr std::size_t fenced_bytes_for(std::size_t bytes) { return bytes + fence_margin; }

}  // namespace detail
}  // namespace kbench
