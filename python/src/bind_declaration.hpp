// python/src/bind_declaration.hpp: the declaration as Python sees it: dtypes, shapes, distributions,
// tolerance policies, buffer handles, and a case (case_declaration.hpp) whose sides are Python callables. A
// side is kept on the Python object, never run here: the GPU build runs it (python_sides.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbench/contract/buffer_handle.hpp>
#include <kbench/contract/distribution.hpp>
#include <kbench/contract/dtype.hpp>
#include <kbench/contract/shape.hpp>
#include <kbench/contract/tolerance.hpp>

#include "case_declaration.hpp"
#include "python_functions.hpp"
#include "tolerance_policy.hpp"

namespace kbench::python {
namespace py = pybind11;

namespace detail {

// A shape from a Python dict, in its order: an int is a dimension, a float a parameter (kernel_case::param).
[[nodiscard]] inline kbench::shape shape_of(const py::dict& named) {
  std::vector<kbench::shape::dimension> dims;
  std::vector<kbench::shape::parameter> params;
  for (const auto& [key, value] : named) {
    const auto name = py::cast<std::string>(key);
    if (py::isinstance<py::bool_>(value)) {
      throw usage_error("shape '" + name + "' is a bool: give a flag as 0 or 1, a size as an int, a parameter as a float");
    } else if (py::isinstance<py::int_>(value)) {
      dims.emplace_back(name, py::cast<std::int64_t>(value));
    } else if (py::isinstance<py::float_>(value)) {
      params.emplace_back(name, py::cast<double>(value));
    } else {
      throw usage_error("shape '" + name + "' is " + py::cast<std::string>(py::repr(value)) +
                        ": a size is an int, a parameter a float");
    }
  }
  return kbench::shape(std::move(dims), std::move(params));
}

[[nodiscard]] inline std::vector<kbench::shape> shapes_of(const std::vector<py::dict>& named) {
  std::vector<kbench::shape> shapes;
  for (const py::dict& d : named) shapes.push_back(shape_of(d));
  return shapes;
}

// A dtype from Python: a kbench.dtype, its name ("fp16"), torch's name ("float16", "half"), or a torch dtype
// (read by its name, "torch.float16", so that the module needs no torch).
[[nodiscard]] inline dtype dtype_from(const py::handle& given) {
  if (py::isinstance<dtype>(given)) return given.cast<dtype>();
  std::string name = py::cast<std::string>(py::isinstance<py::str>(given) ? given : py::str(given));
  if (name.rfind("torch.", 0) == 0) name = name.substr(6);
  const std::pair<const char*, dtype> torch_names[] = {
      {"float64", dtype::f64}, {"double", dtype::f64}, {"float32", dtype::f32}, {"float", dtype::f32},
      {"float16", dtype::f16}, {"half", dtype::f16}, {"bfloat16", dtype::bf16}, {"float8_e4m3fn", dtype::f8e4m3},
      {"int8", dtype::i8}, {"uint8", dtype::u8}, {"int16", dtype::i16}, {"short", dtype::i16}, {"uint16", dtype::u16},
      {"int32", dtype::i32}, {"int", dtype::i32}, {"uint32", dtype::u32}, {"int64", dtype::i64}, {"long", dtype::i64},
      {"uint64", dtype::u64}};
  for (const auto& [alias, t] : torch_names) {
    if (name == alias) return t;
  }
  std::string known;
  for (int i = 0; i <= static_cast<int>(dtype::u64); ++i) {
    const dtype t = static_cast<dtype>(i);
    if (name == info(t).name) return t;
    known += (known.empty() ? "" : ", ") + std::string(info(t).name);
  }
  throw usage_error("unknown dtype '" + name + "': kbench knows " + known + " (or torch's names for them)");
}

// Where a handle finds its memory: the slot of the kernel_case its case was replayed onto (the GPU build;
// case_replay.hpp binds it), shared by every copy of the handle.
struct buffer_binding {
  kbench::detail::buffer_slot* slot = nullptr;
};

// A buffer handle as a side will use it: what the case declared; memory only inside a launch kbench runs.
struct buffer_handle {
  declared_python_buffer declared;
  std::shared_ptr<buffer_binding> binding = std::make_shared<buffer_binding>();
};

// What a handle gives inside a launch: a torch tensor, a DLPack capsule and its device (the DLPack
// protocol's __dlpack__ and __dlpack_device__, for CuPy and JAX). The build says how (module.cpp).
struct buffer_access {
  py::object (*tensor)(const buffer_handle&);
  py::object (*capsule)(const buffer_handle&);
  py::tuple (*device)(const buffer_handle&);
};

// The host-only build's: no launch runs, so no handle has memory (declared_case's throw_unbound(), in words
// for a tensor).
[[noreturn]] inline void throw_no_memory(const buffer_handle& b) {
  throw usage_error("buffer '" + b.declared.layout.name +
                    "' has no tensor here: a handle views kbench's device memory only inside a launch kbench runs, "
                    "and this build of the module runs none (it was built without its GPU path)");
}
inline buffer_access host_only_access() {
  return {[](const buffer_handle& b) -> py::object { throw_no_memory(b); },
          [](const buffer_handle& b) -> py::object { throw_no_memory(b); },
          [](const buffer_handle& b) -> py::tuple { throw_no_memory(b); }};
}

inline void bind_buffer(py::module_& m, const buffer_access& access) {
  py::class_<buffer_handle>(m, "Buffer")
      .def_property_readonly("name", [](const buffer_handle& b) { return b.declared.layout.name; })
      .def_property_readonly("role", [](const buffer_handle& b) { return std::string(role_name(b.declared.layout.role)); })
      .def_property_readonly("dtype", [](const buffer_handle& b) { return b.declared.layout.type; })
      .def_property_readonly("extents", [](const buffer_handle& b) { return b.declared.layout.extents; })
      .def_property_readonly("present", [](const buffer_handle& b) { return !b.declared.absent; })
      .def_property_readonly("tensor", access.tensor)
      .def("__dlpack__", [access](const buffer_handle& b, const py::kwargs&) { return access.capsule(b); })
      .def("__dlpack_device__", access.device)
      .def("__repr__", [](const buffer_handle& b) {
        return "<kbench.Buffer " + std::string(role_name(b.declared.layout.role)) + " '" + b.declared.layout.name + "'>";
      });
}

inline void bind_values(py::module_& m) {
  py::enum_<dtype> types(m, "dtype");
  for (dtype t : {dtype::f64, dtype::f32, dtype::f16, dtype::bf16, dtype::f8e4m3, dtype::i8, dtype::u8, dtype::i16,
                  dtype::u16, dtype::i32, dtype::u32, dtype::i64, dtype::u64}) {
    types.value(std::string(info(t).name).c_str(), t);
  }
  py::class_<kbench::shape>(m, "Shape")
      .def(py::init(&shape_of), py::arg("named"))
      .def("__str__", &kbench::shape::to_string)
      .def_property_readonly("dims", &kbench::shape::dims)
      .def_property_readonly("parameters", &kbench::shape::parameters);
  py::class_<distribution>(m, "Distribution")
      .def("describe", &distribution::describe)
      .def("__repr__", &distribution::describe);
  m.def("uniform", &uniform, py::arg("low"), py::arg("high"));
  m.def("normal", &normal, py::arg("mean"), py::arg("stddev"));
  m.def("arange", &arange, py::arg("start") = 0.0, py::arg("step") = 1.0);
  m.def("constant", &constant, py::arg("value"));
  m.def("choice", &choice, py::arg("value"), py::arg("other"), py::arg("weight"));
}

inline void bind_tolerances(py::module_& m) {
  py::module_ tol = m.def_submodule("tol", "tolerance policies, composed with &");
  py::class_<kbench::tolerance>(tol, "Tolerance")
      .def_readonly("description", &kbench::tolerance::description)
      .def_readonly("equal_nan", &kbench::tolerance::equal_nan)
      .def_readonly("max_mismatch_fraction", &kbench::tolerance::max_mismatch_fraction)
      .def_readonly("min_cosine", &kbench::tolerance::min_cosine)
      .def_readonly("max_relative_l2", &kbench::tolerance::max_relative_l2);
  py::class_<tolerance_policy>(tol, "Policy")
      .def("__and__", &tolerance_policy::operator&)
      .def("lower", &tolerance_policy::lower)
      .def("__repr__", [](const tolerance_policy& p) { return "<kbench.tol " + p.describe() + ">"; });
  tol.def("exact", [] { return tolerance_policy(kbench::tol::exact{}); });
  tol.def("absolute", [](double atol) { return tolerance_policy(kbench::tol::absolute{atol}); }, py::arg("atol"));
  tol.def("relative", [](double rtol) { return tolerance_policy(kbench::tol::relative{rtol}); }, py::arg("rtol"));
  tol.def("allclose", [](double rtol, double atol) { return tolerance_policy(kbench::tol::allclose{rtol, atol}); },
          py::arg("rtol"), py::arg("atol"));
  tol.def("ulp", [](std::uint64_t n) { return tolerance_policy(kbench::tol::ulp{n}); }, py::arg("max_ulps"));
  tol.def("cosine", [](double s) { return tolerance_policy(kbench::tol::cosine{s}); }, py::arg("min_similarity") = 0.99);
  tol.def("relative_l2", [](double e) { return tolerance_policy(kbench::tol::relative_l2{e}); }, py::arg("max_error"));
  tol.def("equal_nan", [] { return tolerance_policy(kbench::tol::equal_nan{}); });
  tol.def("max_mismatch",
          [](double fraction, double bound, bool may_cluster) {
            const kbench::tol::max_mismatch m{fraction, bound};
            return tolerance_policy(may_cluster ? m.may_cluster() : m);
          },
          py::arg("fraction"), py::arg("bound") = default_slack_bound, py::arg("may_cluster") = false);
  tol.attr("any_value") = kbench::tol::any_value;
}

// A side (or the oracle): a Python callable kept on the case (in `_sides`, in the order they were set, which
// the replay onto kernel_case follows), its kind told to the C++.
inline void set_side(py::object self, const py::object& fn, const char* verb, double oracle_ratio = 2.0) {
  auto& c = self.cast<case_declaration&>();
  if (!PyCallable_Check(fn.ptr())) c.fail(std::string(verb) + "() was given " + py::cast<std::string>(py::repr(fn)) + ", not a callable");
  if (std::string(verb) == "oracle") {
    c.oracle(oracle_ratio);
  } else if (std::string(verb) == "optimized") {
    c.optimized();
  } else {
    c.reference(std::string(verb) == "host_reference" ? side_kind::host : side_kind::device);
  }
  if (!py::hasattr(self, "_sides")) self.attr("_sides") = py::list();
  self.attr("_sides").cast<py::list>().append(fn);
}

// A handle, kept on the case too (in `_buffers`, in declaration order), so that the replay can bind it.
inline py::object kept(py::object self, buffer_handle handle) {
  py::object held = py::cast(std::move(handle));
  if (!py::hasattr(self, "_buffers")) self.attr("_buffers") = py::list();
  self.attr("_buffers").cast<py::list>().append(held);
  return held;
}

[[nodiscard]] inline std::string buffer_name_of(const py::object& buffer) {
  if (py::isinstance<buffer_handle>(buffer)) return buffer.cast<const buffer_handle&>().declared.layout.name;
  return py::cast<std::string>(buffer);
}

}  // namespace detail

inline void bind_declaration(py::module_& m, const detail::buffer_access& access) {
  detail::bind_values(m);
  detail::bind_tolerances(m);
  detail::bind_buffer(m, access);
  detail::bind_functions(m);
}

}  // namespace kbench::python
