// fence_placement.hpp: how much fenced memory maps and where, and where a buffer starts so that it ends
// against the unmapped memory that follows.
#include <kbench/decisions/fence_placement.hpp>

#include <cstddef>
#include <cstdint>

#include "../catch.hpp"

namespace unit_fence_placement_test {  // one per file: the unit tests compile in unity batches

using kbench::detail::fence_layout;
using kbench::detail::fence_layout_of;
using kbench::detail::fence_margin;
using kbench::detail::fenced_bytes_for;
using kbench::detail::start_to_end_at;

constexpr std::size_t two_mib = std::size_t{2} << 20;  // the H200's mapping granularity, and a common one

TEST_CASE("fenced memory maps whole granules between two unmapped ones", "[fence]") {
  const fence_layout one_byte = fence_layout_of(1, two_mib);
  CHECK(one_byte.mapped == two_mib);
  CHECK(one_byte.offset == two_mib);
  CHECK(one_byte.reserved == 3 * two_mib);
  CHECK(fence_layout_of(0, two_mib).mapped == two_mib);  // never an empty mapping
  CHECK(fence_layout_of(two_mib, two_mib).mapped == two_mib);
  const fence_layout more = fence_layout_of(two_mib + 1, 4096);
  CHECK(more.mapped == two_mib + 4096);
  CHECK(more.reserved == more.mapped + 2 * 4096);
  CHECK(more.offset + more.mapped + 4096 == more.reserved);  // the granule after the mapping is in the range
}

TEST_CASE("a buffer placed to end at the fence ends there, or as close below as its alignment allows", "[fence]") {
  const std::uintptr_t end = 0x7f0000400000;  // a granule boundary
  SECTION("at its element size the buffer ends at the fence: the byte after its last is unmapped") {
    const std::size_t bytes = 4 * 65537;  // fp32, not a multiple of 16 bytes
    CHECK(start_to_end_at(end, bytes, 4) == end - bytes);
  }
  SECTION("a required alignment leaves a gap below it, which stays mapped") {
    const std::size_t bytes = 4 * 65537;
    const std::uintptr_t start = start_to_end_at(end, bytes, 16);
    CHECK(start % 16 == 0);
    CHECK(end - (start + bytes) == 12);
  }
  SECTION("for every size and alignment: aligned, inside, and short of the end by less than the alignment") {
    for (const std::size_t alignment : {1, 2, 4, 8, 16, 64, 256}) {
      for (std::size_t bytes = 1; bytes < 1000; bytes += 7) {
        const std::uintptr_t start = start_to_end_at(end, bytes, alignment);
        CHECK(start % alignment == 0);
        CHECK(start + bytes <= end);
        CHECK(end - (start + bytes) < alignment);
      }
    }
  }
}

TEST_CASE("fenced memory holds a page more than its buffer, mapped before a buffer placed at its end", "[fence]") {
  for (const std::size_t bytes : {std::size_t{4}, std::size_t{4096}, two_mib, two_mib - 4, 3 * two_mib + 12}) {
    const fence_layout layout = fence_layout_of(fenced_bytes_for(bytes), two_mib);
    const std::uintptr_t begin = 0x7f0000200000;
    const std::uintptr_t end = begin + layout.mapped;
    for (const std::size_t alignment : {1, 16, 256}) {
      const std::uintptr_t start = start_to_end_at(end, bytes, alignment);
      CHECK(start >= begin + fence_margin);  // a read a little before the start is served, not a fault
    }
  }
}

}  // namespace unit_fence_placement_test
