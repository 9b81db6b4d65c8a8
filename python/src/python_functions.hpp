// python/src/python_functions.hpp: host functions written in Python that kbench calls as its own callables: a
// from_index() distribution's function of the index (kbench evaluates it on every host thread at once) and a
// scratch's size query (called when the case is opened on its GPU). Each call takes the GIL, so that any
// thread may make it; a Python exception becomes kbench's error, naming the function and the Python message.
// Both builds: the host-only one declares them (their names enter the digest) and evaluates a from_index()
// function only for its tests (_evaluate_from_index); the GPU build's runs call them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbench/contract/callable.hpp>
#include <kbench/contract/distribution.hpp>
#include <kbench/contract/dtype.hpp>
#include <kbench/contract/error.hpp>
#include <kbench/contract/index_values.hpp>

namespace kbench::python {
namespace detail {
namespace py = pybind11;

// A Python exception, as kbench's error: a kbench.UsageError stays a usage error, with its own message.
[[noreturn]] inline void throw_as_kbench_error(const py::error_already_set& e, const std::string& context) {
  const std::string message = py::cast<std::string>(py::str(e.value()));
  if (e.matches(py::module_::import("kbench._kbench").attr("UsageError"))) throw usage_error(message);
  const std::string type = py::cast<std::string>(e.type().attr("__name__"));
  throw kbench::error(context + " raised " + type + ": " + message);
}

// A Python callable that kbench's callables share: kbench copies and drops them on threads that do not hold
// the GIL, so the last copy drops it with the GIL taken (not at all once the interpreter is gone).
class held_function {
 public:
  explicit held_function(py::object function) : function_(std::move(function)) {}
  ~held_function() {
    if (Py_IsInitialized() == 0) {
      function_.release();
      return;
    }
    const py::gil_scoped_acquire gil;
    function_ = py::object();
  }
  held_function(const held_function&) = delete;
  held_function& operator=(const held_function&) = delete;
  [[nodiscard]] const py::object& get() const { return function_; }

 private:
  py::object function_;
};

[[nodiscard]] inline std::string repr_of(const py::handle& value) { return py::cast<std::string>(py::repr(value)); }

// kbench.from_index(name, function): element i is function(i, seed), or function(i) where the function takes
// the index alone (`takes_seed`, which kbench/__init__.py reads from its signature). The GIL is taken for each
// element: kbench's threads take turns in Python.
[[nodiscard]] inline distribution index_distribution(std::string name, py::object function, bool takes_seed) {
  if (PyCallable_Check(function.ptr()) == 0) {
    throw usage_error("from_index(\"" + name + "\") was given " + repr_of(function) + ", not a callable");
  }
  auto held = std::make_shared<const held_function>(std::move(function));
  return kbench::from_index(name, [held, name, takes_seed](std::size_t i, std::uint64_t seed) -> double {
    const py::gil_scoped_acquire gil;
    py::object value;
    try {
      value = takes_seed ? held->get()(i, seed) : held->get()(i);
      return py::cast<double>(value);
    } catch (const py::error_already_set& e) {
      throw_as_kbench_error(e, "from_index(\"" + name + "\") at element " + std::to_string(i));
    } catch (const py::cast_error&) {
      throw usage_error("from_index(\"" + name + "\") gives element " + std::to_string(i) + " " + repr_of(value) +
                        ", not a number");
    }
  });
}

// scratch_bytes(name, query): the bytes `query()` answers, a Python int >= 0.
[[nodiscard]] inline kbench::detail::callable<std::size_t()> size_query(const std::string& buffer_name, py::object query) {
  auto held = std::make_shared<const held_function>(std::move(query));
  return [held, buffer_name]() -> std::size_t {
    const py::gil_scoped_acquire gil;
    py::object bytes;
    try {
      bytes = held->get()();
      return py::cast<std::size_t>(bytes);
    } catch (const py::error_already_set& e) {
      throw_as_kbench_error(e, "scratch '" + buffer_name + "': its size query");
    } catch (const py::cast_error&) {
      throw usage_error("scratch '" + buffer_name + "': its size query answered " + repr_of(bytes) +
                        ", not a count of bytes (an int >= 0)");
    }
  };
}

inline void bind_functions(py::module_& m) {
  // kbench/__init__.py's from_index() tells whether the function takes the seed.
  m.def("from_index", &index_distribution, py::arg("name"), py::arg("function"), py::arg("takes_seed"));
  // Elements 0 .. count-1 of a from_index() input of dtype `type`, as kbench evaluates them for a run
  // (index_values.hpp: on every host thread at once, the GIL released, as in a run), read back as numbers.
  m.def("_evaluate_from_index", [](const distribution& d, dtype type, std::size_t count, std::uint64_t seed) {
    std::vector<unsigned char> stored(count * info(type).size);
    {
      const py::gil_scoped_release released;
      kbench::detail::evaluate_from_index(d, type, count, seed, stored.data());
    }
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = load_as_double(stored.data(), type, i);
    return values;
  }, py::arg("distribution"), py::arg("dtype"), py::arg("count"), py::arg("seed"));
}

}  // namespace detail
}  // namespace kbench::python
