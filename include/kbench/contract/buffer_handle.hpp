// kbench/contract/buffer_handle.hpp: what a case holds of a buffer it declared: a handle (input_ref,
// output_ref, scratch_ref) that converts to device memory only while kbench runs a launch, and to host values only
// during a host reference; and the buffer's slot, where kbench binds that memory (the handle captures the
// slot, never an address, so the reference and the optimized kernel can each write their own buffers).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "callable.hpp"
#include "declaration.hpp"
#include "distribution.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "tolerance.hpp"

namespace kbench {

// A view of host values, valid during a host reference.
template <class T>
class host_span {
 public:
  host_span(T* data, std::size_t size) : data_(data), size_(size) {}
  [[nodiscard]] T& operator[](std::size_t i) const { return data_[i]; }
  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] T* begin() const { return data_; }
  [[nodiscard]] T* end() const { return data_ + size_; }

 private:
  T* data_;
  std::size_t size_;
};

namespace detail {

struct buffer_slot {
  std::string name;
  buffer_role role = buffer_role::input;
  dtype type = dtype::f32;
  std::size_t size = 0;
  std::vector<std::size_t> extents;
  std::size_t pitch = 0;                 // elements from one row to the next, when padded (0: contiguous)
  int device_index = 0;                  // the logical device it lives on (multi-device cases)
  distribution init;                     // inputs
  std::optional<kbench::tolerance> tol;  // outputs: their own, else the case's
  detail::callable<std::size_t()> bytes_query;  // scratch sized when the case is opened on its GPU
  void* device = nullptr;                // bound while kbench runs a launch
  double* host = nullptr;                // bound while kbench runs a host reference
  bool absent = false;                   // not used at this shape (input_if, output_if, scratch of 0): null
  bool edge_values = true;               // drawn: also at other magnitudes and special values (edge_values.hpp)

  // Rows (every extent but the last) and the elements of one row.
  [[nodiscard]] std::size_t row() const { return extents.back(); }
  [[nodiscard]] std::size_t rows() const { return size / extents.back(); }
  [[nodiscard]] bool padded() const { return pitch > row(); }
  // Elements of device memory the buffer occupies: its rows at their pitch (padding included).
  [[nodiscard]] std::size_t storage() const { return padded() ? rows() * pitch : size; }
  [[nodiscard]] std::size_t storage_bytes() const { return storage() * info(type).size; }
};

// Inputs without a distribution: uniform in [-1, 1) for floats, [-100, 100] or [0, 100] for integers.
template <class T>
distribution default_distribution() {
  if constexpr (std::is_floating_point_v<T> || !std::is_arithmetic_v<T>) {
    return uniform(-1.0, 1.0);
  } else if constexpr (std::is_signed_v<T>) {
    return uniform(-100.0, 100.0);
  } else {
    return uniform(0.0, 100.0);
  }
}

// A handle used outside kbench's launch or host reference (kernel_case_impl.hpp).
[[noreturn]] void throw_unbound(const buffer_slot& slot, const char* what);

}  // namespace detail

// Read-only input of element type T; converts to `const T*` inside a launch.
template <class T>
class input_ref {
 public:
  explicit input_ref(detail::buffer_slot* slot) : slot_(slot) {}
  // Null where the input is absent (input_if).
  [[nodiscard]] const T* get() const {
    if (!slot_->device && !slot_->absent) detail::throw_unbound(*slot_, "device memory");
    return static_cast<const T*>(slot_->device);
  }
  operator const T*() const { return get(); }
  [[nodiscard]] std::size_t size() const { return slot_->size; }
  // Whether the shape uses it (input_if); an absent input has no memory and no values.
  [[nodiscard]] bool present() const { return !slot_->absent; }
  // The input's values as double, inside a host reference (none where absent).
  [[nodiscard]] host_span<const double> host() const {
    if (!slot_->host && !slot_->absent) detail::throw_unbound(*slot_, "host values");
    return {slot_->host, slot_->size};
  }
  [[nodiscard]] detail::buffer_slot* slot() const { return slot_; }

 private:
  detail::buffer_slot* slot_;
};

// Output of element type T; converts to `T*` inside a launch. In a host reference, host() gives the
// double values to write. An in-place buffer (kernel_case::inout) is an output_ref too: it starts each run
// with the same drawn values, and in a host reference host() holds them until overwritten.
template <class T>
class output_ref {
 public:
  explicit output_ref(detail::buffer_slot* slot) : slot_(slot) {}
  // Null where the output is absent (output_if).
  [[nodiscard]] T* get() const {
    if (!slot_->device && !slot_->absent) detail::throw_unbound(*slot_, "device memory");
    return static_cast<T*>(slot_->device);
  }
  operator T*() const { return get(); }
  [[nodiscard]] std::size_t size() const { return slot_->size; }
  // Whether the shape uses it (output_if); an absent output has no memory and no values.
  [[nodiscard]] bool present() const { return !slot_->absent; }
  [[nodiscard]] host_span<double> host() const {
    if (!slot_->host && !slot_->absent) detail::throw_unbound(*slot_, "host values");
    return {slot_->host, slot_->size};
  }
  [[nodiscard]] detail::buffer_slot* slot() const { return slot_; }

 private:
  detail::buffer_slot* slot_;
};

// Scratch memory of element type T (kernel_case::scratch): each side's own, converts to `T*` inside a
// launch (and on to `void*`, as a library's temporary storage takes it). Its contents are poisoned before
// every checked launch: a kernel may not expect zeros, nor what an earlier launch left.
template <class T>
class scratch_ref {
 public:
  explicit scratch_ref(detail::buffer_slot* slot) : slot_(slot) {}
  // Null where the scratch is absent (a count of 0 at this shape).
  [[nodiscard]] T* get() const {
    if (!slot_->device && !slot_->absent) detail::throw_unbound(*slot_, "device memory");
    return static_cast<T*>(slot_->device);
  }
  operator T*() const { return get(); }
  [[nodiscard]] std::size_t size() const { return slot_->size; }
  [[nodiscard]] std::size_t bytes() const { return slot_->absent ? 0 : slot_->storage_bytes(); }
  // Whether this shape has any (a count of 0 declares none).
  [[nodiscard]] bool present() const { return !slot_->absent; }
  [[nodiscard]] detail::buffer_slot* slot() const { return slot_; }

 private:
  detail::buffer_slot* slot_;
};

}  // namespace kbench
