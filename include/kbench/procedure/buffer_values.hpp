// kbench/procedure/buffer_values.hpp: the values of one buffer of a case, as a layout (buffer_slot)
// describes them: brought to the host and back (rows only, when the rows are padded), drawn from the
// generator, and the padding's poison checked. Functions over an address and a layout; the objects that
// own the memory (case_buffers.hpp, timed_input_sets.hpp) call them on their own buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../contract/device_buffer.hpp"
#include "../contract/kernel_case.hpp"
#include "../engines/comparison.hpp"
#include "../engines/integrity.hpp"
#include "../engines/random.hpp"
#include "device_work.hpp"

namespace kbench {
namespace detail {

// A host array of any dtype, as raw bytes.
struct host_array {
  dtype type = dtype::f32;
  std::vector<unsigned char> bytes;
  [[nodiscard]] array_view view(std::size_t size, const std::vector<std::size_t>& extents) const {
    return {bytes.data(), type, size, extents};
  }
};

[[nodiscard]] inline host_array copy_to_host(const void* device, dtype type, std::size_t size) {
  host_array h{type, std::vector<unsigned char>(size * info(type).size)};
  KBENCH_HIP_CHECK(hipMemcpy(h.bytes.data(), device, h.bytes.size(), hipMemcpyDeviceToHost));
  return h;
}

// The values of a buffer's rows on the host, packed (its padding left out, when it has padded rows).
[[nodiscard]] inline host_array read_values(const void* device, const buffer_slot& slot) {
  if (!slot.padded()) return copy_to_host(device, slot.type, slot.size);
  const std::size_t width = info(slot.type).size;
  host_array h{slot.type, std::vector<unsigned char>(slot.size * width)};
  KBENCH_HIP_CHECK(hipMemcpy2D(h.bytes.data(), slot.row() * width, device, slot.pitch * width, slot.row() * width,
                               slot.rows(), hipMemcpyDeviceToHost));
  return h;
}

// Packed values back into a buffer's rows (its padding untouched).
inline void write_values(void* device, const buffer_slot& slot, const host_array& values) {
  const std::size_t width = info(slot.type).size;
  if (!slot.padded()) {
    KBENCH_HIP_CHECK(hipMemcpy(device, values.bytes.data(), values.bytes.size(), hipMemcpyHostToDevice));
    return;
  }
  KBENCH_HIP_CHECK(hipMemcpy2D(device, slot.pitch * width, values.bytes.data(), slot.row() * width, slot.row() * width,
                               slot.rows(), hipMemcpyHostToDevice));
}

// A buffer's values, packed, from its distribution; a value of the case's own function (from_index) that
// its type cannot hold is an error naming the buffer.
inline void fill_values(void* device, const buffer_slot& slot, std::uint64_t seed, std::size_t stream_id,
                        hipStream_t stream, const value_edge& edge = {}) {
  try {
    fill_random(device, slot.type, slot.size, slot.init, seed, stream_id, stream, edge);
  } catch (const usage_error& e) {
    throw usage_error(fmt::format("{} '{}': {}", slot.role == buffer_role::input ? "input" : "in-place buffer",
                                  slot.name, e.what()));
  }
}

// A buffer's values drawn from the generator (element i of its rows is the same as without padding), its
// padding poisoned: a kernel that reads the padding as data computes with NaN. `edge`: an edge run's change.
inline void draw_buffer(void* device, const buffer_slot& slot, std::uint64_t seed, std::size_t stream_id,
                        hipStream_t stream, const value_edge& edge = {}) {
  if (!slot.padded()) {
    fill_values(device, slot, seed, stream_id, stream, edge);
    return;
  }
  const std::size_t width = info(slot.type).size;
  const device_allocation rows(slot.size * width);
  fill_values(rows.data(), slot, seed, stream_id, stream, edge);
  poison(device, slot.type, slot.storage(), stream);
  KBENCH_HIP_CHECK(hipMemcpy2DAsync(device, slot.pitch * width, rows.data(), slot.row() * width, slot.row() * width,
                                    slot.rows(), hipMemcpyDeviceToDevice, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));  // before `rows` is freed
}

// Where a padded buffer's padding no longer holds the poison: the number of changed elements, and the
// first as (row, column), in words; empty when intact or not padded.
[[nodiscard]] inline std::string padding_changes(const void* device, const buffer_slot& slot) {
  if (!slot.padded()) return {};
  const std::size_t width = info(slot.type).size, gap = slot.pitch - slot.row();
  std::vector<unsigned char> padding(slot.rows() * gap * width);
  KBENCH_HIP_CHECK(hipMemcpy2D(padding.data(), gap * width, static_cast<const unsigned char*>(device) + slot.row() * width,
                               slot.pitch * width, gap * width, slot.rows(), hipMemcpyDeviceToHost));
  const std::size_t elements = slot.rows() * gap;
  const std::size_t intact = count_poison(padding.data(), slot.type, elements);
  if (intact == elements) return {};
  std::size_t first = 0;
  const std::uint64_t pattern = poison_as<std::uint64_t>(slot.type);
  for (std::size_t i = 0; i < elements; ++i) {
    if (std::memcmp(padding.data() + i * width, &pattern, width) != 0) {
      first = i;
      break;
    }
  }
  return fmt::format("{} of the {} padding elements changed, first at row {}, column {} (rows are {} long, {} apart)",
                     elements - intact, elements, first / gap, slot.row() + first % gap, slot.row(), slot.pitch);
}

}  // namespace detail
}  // namespace kbench
