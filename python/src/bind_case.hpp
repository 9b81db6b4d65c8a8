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
  // scratch_bytes(name, bytes), or (name, query): a callable answering the bytes when the case is opened.
  c.def("scratch_bytes", [](py::object self, std::string name, const py::object& bytes) {
     auto& d = self.cast<case_declaration&>();
     if (PyCallable_Check(bytes.ptr()) != 0) return kept(self, handle(d.scratch_bytes(name, size_query(name, bytes))));
     if (!py::isinstance<py::int_>(bytes) || py::isinstance<py::bool_>(bytes) || py::int_(bytes) < py::int_(0)) {
       d.fail("scratch_bytes('" + name + "') was given " + repr_of(bytes) +
              ": give the bytes (an int >= 0) or a callable that answers them");
     }
     return kept(self, handle(d.scratch_bytes(name, bytes.cast<std::uint64_t>())));
   }, py::arg("name"), py::arg("bytes"));
  c.def("leading_dimension", [](case_declaration& d, const py::object& buffer, std::int64_t leading_dimension) {
     d.leading_dimension(buffer_name_of(buffer), leading_dimension);
   }, py::arg("buffer"), py::arg("leading_dimension"));
}

// What the module does not bind: each raises, saying why (docs/python.md).
inline void bind_refusals(py::class_<case_declaration>& c) {
  static const char* const spans_devices =
      ": a case that spans devices is not built in the Python module (its sides would take a stream per device, "
      "and torch's current stream is set on one device); docs/python.md";
  c.def("devices", [](case_declaration& d, const py::args&, const py::kwargs&) { d.fail(std::string("devices()") + spans_devices); });
  for (const char* verb : {"input_on_each", "output_on_each", "inout_on_each"}) {
    c.def(verb, [verb](case_declaration& d, const py::args&, const py::kwargs&) { d.fail(std::string(verb) + "()" + spans_devices); });
  }
  c.def("expect_resources", [](case_declaration& d, const py::args&, const py::kwargs&) {
    d.fail("expect_resources() is not built in the Python module: its bounds are checked by `<program> resources`, "
           "which reads a kbench program's own code objects, and a Python case's kernels (torch's, Triton's) are "
           "compiled at run time, where nothing would read them; expect_registers_at_most() and "
           "expect_occupancy_at_least() are checked by the perf run's census (docs/python.md)");
  });
}

// The sides, the tolerances and the switches.
inline void bind_sides(py::class_<case_declaration>& c) {
  c.def("reference", [](py::object self, py::object fn) { set_side(self, fn, "reference"); }, py::arg("launch"))
      .def("host_reference", [](py::object self, py::object fn) { set_side(self, fn, "host_reference"); },
           py::arg("compute"))
      .def("optimized", [](py::object self, py::object fn) { set_side(self, fn, "optimized"); }, py::arg("launch"))
      .def("oracle", [](py::object self, py::object fn, double max_ratio) { set_side(self, fn, "oracle", max_ratio); },
           py::arg("compute"), py::arg("max_ratio") = 2.0)
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
      .def("expect_kernels", &case_declaration::expect_kernels, py::arg("count"))
      .def("expect_registers_at_most", &case_declaration::expect_registers_at_most, py::arg("registers"))
      .def("expect_occupancy_at_least", &case_declaration::expect_occupancy_at_least, py::arg("fraction"));
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
  detail::bind_refusals(c);
}

}  // namespace kbench::python
