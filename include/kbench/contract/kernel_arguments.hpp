// kbench/contract/kernel_arguments.hpp: the arguments of a kernel launched by name (code_object.hpp), packed
// as the kernel's ABI lays them out, each at its natural alignment, and checked against the layout the
// code object records for the kernel, where it records one. HIP-free, so the packing and the checks are
// unit-tested on any machine.
// A buffer handle (input_ref, output_ref, scratch_ref) becomes its device pointer only when packed, inside a
// launch; every other argument must be trivially copyable, as a kernel argument is.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "buffer_handle.hpp"
#include "error.hpp"

namespace kbench {
namespace detail {

// Where one argument lies in the kernel's argument block, in bytes.
struct argument_slot {
  std::size_t offset = 0;
  std::size_t size = 0;
};

inline bool operator==(const argument_slot& a, const argument_slot& b) {
  return a.offset == b.offset && a.size == b.size;
}

// What a launch gives a kernel: a handle's device pointer, any other value as it is.
template <class T>
const T* kernel_argument(const input_ref<T>& r) { return r.get(); }
template <class T>
T* kernel_argument(const output_ref<T>& r) { return r.get(); }
template <class T>
T* kernel_argument(const scratch_ref<T>& r) { return r.get(); }
template <class T>
T kernel_argument(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>, "a kernel argument must be trivially copyable (or a kbench buffer handle)");
  return value;
}

template <class T>
using kernel_argument_t = decltype(kernel_argument(std::declval<const T&>()));

// Each argument at the next offset that its alignment allows, as the C++ ABI lays out a kernel's parameters.
template <class... Values>
constexpr std::array<argument_slot, sizeof...(Values)> natural_layout() {
  constexpr std::size_t sizes[] = {sizeof(Values)..., 0};
  constexpr std::size_t alignments[] = {alignof(Values)..., 1};
  std::array<argument_slot, sizeof...(Values)> slots{};
  std::size_t end = 0;
  for (std::size_t i = 0; i < sizeof...(Values); ++i) {
    const std::size_t offset = (end + alignments[i] - 1) / alignments[i] * alignments[i];
    slots[i] = argument_slot{offset, sizes[i]};
    end = offset + sizes[i];
  }
  return slots;
}

// The arguments of one launch, converted and held here, with the array of pointers to each that
// hipModuleLaunchKernel takes (kernelParams): the runtime copies each into the kernel's argument block.
// On the stack: a launch allocates nothing.
template <class... Args>
class packed_arguments {
 public:
  using values_type = std::tuple<kernel_argument_t<Args>...>;
  static constexpr std::size_t count = sizeof...(Args);
  static constexpr std::array<argument_slot, count> layout = natural_layout<kernel_argument_t<Args>...>();

  explicit packed_arguments(const Args&... args) : values_(kernel_argument(args)...) {
    point_at(std::index_sequence_for<Args...>{});
  }
  packed_arguments(const packed_arguments&) = delete;
  packed_arguments& operator=(const packed_arguments&) = delete;

  [[nodiscard]] void** pointers() { return count ? pointers_.data() : nullptr; }
  [[nodiscard]] const values_type& values() const { return values_; }

 private:
  template <std::size_t... I>
  void point_at(std::index_sequence<I...>) {
    ((pointers_[I] = const_cast<void*>(static_cast<const void*>(&std::get<I>(values_)))), ...);
  }

  values_type values_;
  std::array<void*, (count > 0 ? count : 1)> pointers_{};
};

inline std::string describe_layout(const argument_slot* slots, std::size_t count) {
  std::string text = std::to_string(count) + (count == 1 ? " argument" : " arguments");
  std::size_t end = 0;
  for (std::size_t i = 0; i < count; ++i) end = slots[i].offset + slots[i].size;
  text += " (" + std::to_string(end) + " bytes";
  for (std::size_t i = 0; i < count; ++i) {
    text += std::string(i == 0 ? ": " : ", ") + std::to_string(slots[i].size) + " at " + std::to_string(slots[i].offset);
  }
  return text + ")";
}

// The launch's layout against the one the code object records for `kernel` (its parameters' offsets and
// sizes): a different count, size or place of any argument would have the kernel read other bytes than
// those given, so it is refused before the launch.
inline void check_argument_layout(const std::string& kernel, const std::string& path, const argument_slot* given,
                                  std::size_t count, const std::vector<argument_slot>& recorded) {
  bool same = count == recorded.size();
  for (std::size_t i = 0; same && i < count; ++i) same = given[i] == recorded[i];
  if (same) return;
  std::string where;
  for (std::size_t i = 0; where.empty() && i < count && i < recorded.size(); ++i) {
    if (!(given[i] == recorded[i])) {
      where = "; argument " + std::to_string(i) + " is " + std::to_string(given[i].size) + " bytes at " +
              std::to_string(given[i].offset) + ", the kernel's " + std::to_string(recorded[i].size) + " at " +
              std::to_string(recorded[i].offset);
    }
  }
  throw usage_error("kernel '" + kernel + "' of " + path + " takes " + describe_layout(recorded.data(), recorded.size()) +
                    ", and the launch gives " + describe_layout(given, count) + where);
}

// Where the platform cannot read a kernel's parameters from the loaded code object (AMD: no HIP call reads
// its metadata's .args), the program can from the file (engines/code_object_file.hpp reads it; the program
// registers the reader at start, program_main.hpp): the explicit parameters of kernel `kernel` in the file
// at `path` for the device target `target` ("gfx90a:sramecc+:xnack-"), or none where the file records none.
using argument_record_reader = std::optional<std::vector<argument_slot>> (*)(const std::string& path,
                                                                            const std::string& kernel,
                                                                            const std::string& target);
inline argument_record_reader& file_argument_reader() {
  static argument_record_reader reader = nullptr;
  return reader;
}

// The error for a kernel the code object lacks, with the kernels it has where the platform can list them.
[[nodiscard]] inline std::string missing_kernel_message(const std::string& kernel, const std::string& path,
                                                        const std::vector<std::string>& available, bool listable) {
  std::string text = "no kernel '" + kernel + "' in code object " + path;
  if (!listable) return text + " (this platform cannot list the kernels a code object has; extern \"C\" keeps a name unmangled)";
  if (available.empty()) return text + ": it has no kernels";
  text += ": it has ";
  for (std::size_t i = 0; i < available.size(); ++i) text += (i ? ", '" : "'") + available[i] + "'";
  return text + " (extern \"C\" keeps a name unmangled)";
}

}  // namespace detail
}  // namespace kbench
