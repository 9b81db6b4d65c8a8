// python/src/bind_case.hpp: kbench.Case, a case at one shape as a Python case function declares it
// (case_declaration.hpp), and kbench.declare(), which runs that function once and validates what it
// declared: the declaration crosses into kbench once, as a value.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bind_declaration.hpp"
#include "case_declaration.hpp"

namespace kbench::python {

namespace detail {

using extents_t = std::vector<std::int64_t>;
using optional_init = std::optional<distribution>;

inline buffer_handle handle(const declared_python_buffer& b) { return buffer_handle{b, std::make_shared<buffer_binding>()}; }

// input(), output(), inout(), scratch() and their _if() forms: each returns a handle.
inline void bind_buffers(py::class_<case_declaration>& c) {
  c.def("input", [](py::object self, std::string name, const py::object& type, const extents_t& extents, const optional_init& init) {
         auto& d = self.cast<case_declaration&>();
         return kept(self, handle(d.input(std::move(name), dtype_from(type), extents, init)));
       }, py::arg("name"), py::arg("dtype"), py::arg("extents"), py::arg("init") = py::none())
      .def("output", [](py::object self, std::string name, const py::object& type, const extents_t& extents) {
         auto& d = self.cast<case_declaration&>();
         return kept(self, handle(d.output(std::move(name), dtype_from(type), extents)));
       }, py::arg("name"), py::arg("dtype"), py::arg("extents"))
      .def("inout", [](py::object self, std::string name, const py::object& type, const extents_t& extents, const optional_init& init) {
         auto& d = self.cast<case_declaration&>();
         return kept(self, handle(d.inout(std::move(name), dtype_from(type), extents, init)));
       }, py::arg("name"), py::arg("dtype"), py::arg("extents"), py::arg("init") = py::none())
      .def("input_if", [](py::object self, bool present, std::string name, const py::object& type, const extents_t& extents,
                          const optional_init& init) {
         auto& d = self.cast<case_declaration&>();
         return kept(self, handle(present ? d.input(std::move(name), dtype_from(type), extents, init)
                               : d.absent(std::move(name), buffer_role::input, dtype_from(type))));
       }, py::arg("present"), py::arg("name"), py::arg("dtype"), py::arg("extents"), py::arg("init") = py::none())
      .def("output_if", [](py::object self, bool present, std::string name, const py::object& type, const extents_t& extents) {
         auto& d = self.cast<case_declaration&>();
         return kept(self, handle(present ? d.output(std::move(name), dtype_from(type), extents) : d.absent(std::move(name), buffer_role::output, dtype_from(type))));
       }, py::arg("present"), py::arg("name"), py::arg("dtype"), py::arg("extents"))
      .def("scratch", [](py::object self, std::string name, const py::object& type, std::int64_t count) {
         auto& d = self.cast<case_declaration&>();
         return kept(self, handle(d.scratch(std::move(name), dtype_from(type), count)));
       }, py::arg("name"), py::arg("dtype"), py::arg("count"));
}

// The sides, the tolerances and the switches.
inline void bind_sides(py::class_<case_declaration>& c) {
  c.def("reference", [](py::object self, py::object fn) { set_side(self, fn, "reference"); }, py::arg("launch"))
      .def("host_reference", [](py::object self, py::object fn) { set_side(self, fn, "host_reference"); },
           py::arg("compute"))
      .def("optimized", [](py::object self, py::object fn) { set_side(self, fn, "optimized"); }, py::arg("launch"))
      .def("tolerance", [](case_declaration& d, const tolerance_policy& p) { d.tolerance(p.lower()); }, py::arg("policy"))
      .def("tolerance", [](case_declaration& d, const py::object& buffer, const tolerance_policy& p) {
         d.tolerance(buffer_name_of(buffer), p.lower());
       }, py::arg("output"), py::arg("policy"))
      .def("edge_values", py::overload_cast<bool>(&case_declaration::edge_values), py::arg("yes"))
      .def("edge_values", [](case_declaration& d, const py::object& buffer, bool yes) { d.edge_values(buffer_name_of(buffer), yes); },
           py::arg("buffer"), py::arg("yes"))
      .def("deterministic", &case_declaration::deterministic, py::arg("yes") = true)
      .def("requires_alignment", &case_declaration::requires_alignment, py::arg("bytes"));
}

// The work model, the requirements and the census's expectations.
inline void bind_work(py::class_<case_declaration>& c) {
  c.def("bytes_moved", &case_declaration::bytes_moved, py::arg("bytes"))
      .def("flops", [](case_declaration& d, double n, const py::object& t) { d.flops(n, dtype_from(t), false); }, py::arg("count"),
           py::arg("arithmetic") = "fp32")
      .def("matrix_flops", [](case_declaration& d, double n, const py::object& t) { d.flops(n, dtype_from(t), true); }, py::arg("count"),
           py::arg("arithmetic"))
      .def("tokens", &case_declaration::tokens, py::arg("count"))
      .def("calls_per_layer", &case_declaration::calls_per_layer, py::arg("count"))
      .def("calls_per_token", &case_declaration::calls_per_token, py::arg("count"))
      .def("require_speedup", &case_declaration::require_speedup, py::arg("at_least"))
      .def("require_bandwidth", &case_declaration::require_bandwidth, py::arg("fraction_of_copy"))
      .def("allow_speedup_up_to", &case_declaration::allow_speedup_up_to, py::arg("factor"))
      .def("expect_kernels", &case_declaration::expect_kernels, py::arg("count"));
}

}  // namespace detail

inline void bind_case(py::module_& m) {
  py::class_<case_declaration> c(m, "Case", py::dynamic_attr());
  c.def(py::init([](std::string name, const py::dict& shape, const std::vector<py::dict>& registered) {
          return case_declaration(std::move(name), detail::shape_of(shape), detail::shapes_of(registered));
        }), py::arg("name"), py::arg("shape"), py::arg("registered_shapes"))
      .def_property_readonly("name", &case_declaration::name)
      .def_property_readonly("shape", &case_declaration::shape)
      .def("dim", &case_declaration::dim, py::arg("dimension"))
      .def("param", &case_declaration::param, py::arg("parameter"))
      .def("flag", &case_declaration::flag, py::arg("dimension"))
      .def("validate", &case_declaration::validate)
      .def("lines", &case_declaration::lines)
      .def("digest", &case_declaration::digest);
  detail::bind_buffers(c);
  detail::bind_sides(c);
  detail::bind_work(c);
}

}  // namespace kbench::python
