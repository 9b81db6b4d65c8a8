// python/src/bind_gpu_path.hpp: the GPU build's entry points, which kbench/__init__.py wraps: a declaration
// replayed onto kernel_case (its canonical lines, kernel_case's checks), a case run by kbench's procedure
// (its records), the device a run would use, and the stream of the launch under way. The GIL is released
// while kbench works; each call back into Python takes it (python_sides.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbench/procedure.hpp>

#include "bind_declaration.hpp"
#include "gpu_path.hpp"
#include "python_sides.hpp"

namespace kbench::python {
namespace detail {

// What to replay or run: `collect` runs the case function at a shape (kbench/__init__.py's _collect).
inline python_run_request request_of(const std::string& name, const py::dict& shape, const std::vector<py::dict>& shapes,
                                     std::vector<std::string> arguments) {
  return {name, shape_of(shape), shapes_of(shapes), std::move(arguments)};
}

}  // namespace detail

inline void bind_gpu_path(py::module_& m) {
  m.def("replayed_lines", [](py::object collect, const std::string& name, const py::dict& shape, const std::vector<py::dict>& shapes) {
    const python_run_request request = detail::request_of(name, shape, shapes, {});
    const auto source = std::make_shared<detail::python_case_function>(std::move(collect));
    const py::gil_scoped_release released;
    return replayed_lines(source, request);
  }, py::arg("collect"), py::arg("name"), py::arg("shape"), py::arg("shapes"));
  m.def("run", [](py::object collect, const std::string& name, const py::dict& shape, const std::vector<py::dict>& shapes,
                  std::vector<std::string> arguments) {
    const python_run_request request = detail::request_of(name, shape, shapes, std::move(arguments));
    const auto source = std::make_shared<detail::python_case_function>(std::move(collect));
    const py::gil_scoped_release released;
    return run_python_case(source, request);
  }, py::arg("collect"), py::arg("name"), py::arg("shape"), py::arg("shapes"), py::arg("arguments"));
  // Why device `ordinal` cannot run cases ("" where it can): the probe of a kbench program (no driver, no GPU).
  m.def("device_unusable_reason", [](int ordinal) {
    const py::gil_scoped_release released;
    const gpu_info& g = kbench::detail::open_gpu(ordinal);
    return g.usable ? std::string() : g.reason;
  }, py::arg("ordinal") = 0);
  m.def("current_stream", [] {
    const detail::running_launch* launch = detail::current_launch();
    if (launch == nullptr || launch->context.dlpack_device == dlpack_cpu) {
      throw usage_error("kbench.current_stream(): no launch of kbench's is under way (a host reference has no stream)");
    }
    return launch->context.stream;
  });
}

}  // namespace kbench::python
