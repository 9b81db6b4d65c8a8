// python/src/dlpack_view.hpp: a buffer of kbench's, during a launch, as a DLPack capsule: what
// torch.utils.dlpack.from_dlpack (and CuPy's, JAX's) turn into a tensor viewing that memory, without a copy.
// The structs are the DLPack specification's unversioned ABI (dlpack.h's DLDevice, DLDataType, DLTensor,
// DLManagedTensor), the one every consumer reads; written here from the specification, so that the module
// needs no dlpack package. kbench owns the memory: the capsule's deleter frees only the description.
#pragma once

#include <Python.h>

#include <cstdint>
#include <memory>
#include <vector>

#include <pybind11/pybind11.h>

#include <kbench/contract/buffer_handle.hpp>
#include <kbench/contract/dtype.hpp>

#include "gpu_path.hpp"

namespace kbench::python {
namespace dlpack {

struct device_ref {
  std::int32_t device_type;  // DLDeviceType, a C enum
  std::int32_t device_id;
};
struct data_type {
  std::uint8_t code;  // DLDataTypeCode
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct tensor {
  void* data;
  device_ref device;
  std::int32_t ndim;
  data_type dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements
  std::uint64_t byte_offset;
};
struct managed_tensor {
  tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(managed_tensor* self);
};

// DLDataTypeCode's values.
inline constexpr std::uint8_t code_int = 0, code_uint = 1, code_float = 2, code_bfloat = 4, code_float8_e4m3fn = 10;

// The capsule's name before a consumer takes it, and after (the consumer renames it, then owns it).
inline constexpr const char* capsule_name = "dltensor";

[[nodiscard]] inline data_type data_type_of(dtype t) {
  const auto bits = static_cast<std::uint8_t>(8 * info(t).size);
  switch (t) {
    case dtype::f64: case dtype::f32: case dtype::f16: return {code_float, bits, 1};
    case dtype::bf16: return {code_bfloat, bits, 1};
    case dtype::f8e4m3: return {code_float8_e4m3fn, bits, 1};
    default: return {info(t).is_signed ? code_int : code_uint, bits, 1};
  }
}

// The description a capsule holds, and frees when its consumer is done with it.
struct described {
  managed_tensor managed{};
  std::vector<std::int64_t> shape, strides;
};

inline void free_description(managed_tensor* self) { delete static_cast<described*>(self->manager_ctx); }

// A capsule never taken by a consumer frees its description itself.
inline void free_untaken_capsule(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, capsule_name) == 0) return;  // taken: the consumer calls the deleter
  auto* managed = static_cast<managed_tensor*>(PyCapsule_GetPointer(capsule, capsule_name));
  managed->deleter(managed);
}

// `slot`'s memory in `launch`: device memory in a launch, host values (double) in a host reference. On the
// device, rows `pitch` elements apart where the buffer is padded; on the host, packed.
[[nodiscard]] inline pybind11::object capsule_of(const kbench::detail::buffer_slot& slot, const launch_context& launch) {
  auto d = std::make_unique<described>();
  const bool on_host = launch.dlpack_device == dlpack_cpu;
  for (const std::size_t e : slot.extents) d->shape.push_back(static_cast<std::int64_t>(e));
  d->strides.assign(d->shape.size(), 1);
  for (std::size_t i = d->shape.size(); i-- > 1;) {
    // Device memory keeps a padded buffer's pitch; a host reference's values are the rows alone, packed.
    const bool pitched = i == d->shape.size() - 1 && slot.padded() && !on_host;
    const std::int64_t row = pitched ? static_cast<std::int64_t>(slot.pitch) : d->shape[i];
    d->strides[i - 1] = d->strides[i] * row;
  }
  tensor& t = d->managed.dl_tensor;
  t.data = on_host ? static_cast<void*>(slot.host) : slot.device;
  t.device = {launch.dlpack_device, on_host ? 0 : launch.device};
  t.ndim = static_cast<std::int32_t>(d->shape.size());
  t.dtype = on_host ? data_type{code_float, 64, 1} : data_type_of(slot.type);
  t.shape = d->shape.data();
  t.strides = d->strides.data();
  t.byte_offset = 0;
  d->managed.manager_ctx = d.get();
  d->managed.deleter = &free_description;
  PyObject* capsule = PyCapsule_New(&d->managed, capsule_name, &free_untaken_capsule);
  if (capsule == nullptr) throw pybind11::error_already_set();
  d.release();  // the capsule's now
  return pybind11::reinterpret_steal<pybind11::object>(capsule);
}

}  // namespace dlpack
}  // namespace kbench::python
