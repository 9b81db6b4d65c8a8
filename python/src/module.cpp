// python/src/module.cpp: kbench's Python module, kbench._kbench (the package kbench/ wraps it). Its errors
// are kbench's: usage_error becomes kbench.UsageError (a ValueError), every other kbench::error kbench.Error.
#include <pybind11/pybind11.h>

#include <kbench/contract/error.hpp>
#include <kbench/version.hpp>

#include "bind_case.hpp"
#include "bind_declaration.hpp"
#include "bind_results.hpp"
#include "case_declaration_impl.hpp"  // once: the verbs' checks
#if defined(KBENCH_PYTHON_GPU_PATH)
#include "bind_gpu_path.hpp"
#endif

namespace py = pybind11;

PYBIND11_MODULE(_kbench, m) {
  m.doc() = "kbench's engine: case declarations, their digests, results read back, and (the GPU build) runs";
  // The base first: pybind11 tries the translators registered last first. A usage error is also a
  // ValueError, so that Python code that catches bad arguments the usual way catches it.
  const auto error = py::register_exception<kbench::error>(m, "Error", PyExc_RuntimeError);
  py::register_exception<kbench::usage_error>(m, "UsageError", py::make_tuple(error, py::handle(PyExc_ValueError)));
  m.attr("version") = std::string(kbench::version);
  // Whether this build runs cases on a GPU: the host-only build declares, digests and reads results only.
#if defined(KBENCH_PYTHON_GPU_PATH)
  m.attr("gpu_path_built") = true;
  kbench::python::bind_declaration(m, kbench::python::detail::launch_access());
  kbench::python::bind_gpu_path(m);
#else
  m.attr("gpu_path_built") = false;
  kbench::python::bind_declaration(m, kbench::python::detail::host_only_access());
#endif
  kbench::python::bind_case(m);
  kbench::python::bind_results(m);
}
