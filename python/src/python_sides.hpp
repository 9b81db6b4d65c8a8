// python/src/python_sides.hpp: the GPU build's Python half of a run: a Python case function as the source
// the replay asks for declarations (gpu_path.hpp), and each side called back into Python with the GIL
// taken, torch's current stream set to kbench's (kbench/_sides.py), each handle viewing kbench's memory of
// that launch through DLPack (dlpack_view.hpp) and nothing outside it, as C++ handles. A Python exception
// from a side becomes a kbench::error naming the side, the case and the Python message.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbench/contract/error.hpp>

#include "bind_declaration.hpp"
#include "dlpack_view.hpp"
#include "gpu_path.hpp"
#include "python_functions.hpp"

namespace kbench::python {
namespace detail {

// The launch a side is running (null between launches), and the tensors its handles gave in it. Read and
// written with the GIL held.
struct running_launch {
  launch_context context;
  py::dict tensors;  // by buffer name: one view per buffer and launch
};
inline running_launch*& current_launch() {
  static running_launch* running = nullptr;
  return running;
}

// The slot a handle views in the running launch, or a usage error where it has no memory.
inline const kbench::detail::buffer_slot& slot_in_launch(const buffer_handle& b) {
  const kbench::detail::buffer_slot* slot = b.binding->slot;
  const running_launch* launch = current_launch();
  const bool on_host = launch != nullptr && launch->context.dlpack_device == dlpack_cpu;
  if (launch == nullptr || slot == nullptr || (on_host ? slot->host == nullptr : slot->device == nullptr)) {
    throw usage_error("buffer '" + b.declared.layout.name +
                      "' has no tensor here: a handle views kbench's memory only inside the launch (or host reference) "
                      "that kbench runs; take .tensor inside the side, and keep no tensor after it");
  }
  return *slot;
}

inline py::object capsule_in_launch(const buffer_handle& b) {
  if (b.declared.absent) return py::none();
  return dlpack::capsule_of(slot_in_launch(b), current_launch()->context);
}

inline py::tuple device_in_launch(const buffer_handle& b) {
  (void)slot_in_launch(b);
  const launch_context& c = current_launch()->context;
  return py::make_tuple(c.dlpack_device, c.dlpack_device == dlpack_cpu ? 0 : c.device);
}

// A torch tensor viewing the buffer (None where the shape leaves it out), the same object for the whole launch.
inline py::object tensor_in_launch(const buffer_handle& b) {
  if (b.declared.absent) return py::none();
  (void)slot_in_launch(b);
  py::dict& tensors = current_launch()->tensors;
  const py::str name(b.declared.layout.name);
  if (tensors.contains(name)) return tensors[name];
  py::object tensor = py::module_::import("torch.utils.dlpack").attr("from_dlpack")(capsule_in_launch(b));
  tensors[name] = tensor;
  return tensor;
}

inline buffer_access launch_access() { return {&tensor_in_launch, &capsule_in_launch, &device_in_launch}; }

// Python objects dropped with the GIL taken: the run holds them on threads that do not hold it.
inline void drop(py::object& held) {
  const py::gil_scoped_acquire gil;
  held.release().dec_ref();
}

// One declaration: the kbench.Case its case function filled, its handles' bindings and its sides.
class declared_in_python final : public python_declaration {
 public:
  explicit declared_in_python(py::object case_object) : case_(std::move(case_object)) {
    declaration_ = &case_.cast<const case_declaration&>();
    if (py::hasattr(case_, "_buffers")) {
      for (const py::handle h : case_.attr("_buffers")) bindings_.push_back(h.cast<const buffer_handle&>().binding);
    }
    sides_ = py::hasattr(case_, "_sides") ? py::object(case_.attr("_sides")) : py::object(py::list());
    call_side_ = py::module_::import("kbench._sides").attr("call_side");
  }
  ~declared_in_python() override {
    drop(case_);
    drop(sides_);
    drop(call_side_);
  }
  declared_in_python(const declared_in_python&) = delete;
  declared_in_python& operator=(const declared_in_python&) = delete;

  [[nodiscard]] const case_declaration& declaration() const override { return *declaration_; }
  void bind(std::size_t buffer, kbench::detail::buffer_slot* slot) override { bindings_.at(buffer)->slot = slot; }

  void call(std::size_t index, const launch_context& launch) override {
    const py::gil_scoped_acquire gil;
    running_launch running{launch, py::dict()};
    running_launch* const outer = current_launch();
    current_launch() = &running;
    try {
      call_side_(sides_[py::int_(index)], launch.stream, launch.device, launch.dlpack_device != dlpack_cpu);
    } catch (const py::error_already_set& e) {
      current_launch() = outer;
      throw_as_kbench_error(e, "case '" + declaration_->name() + "' [" + declaration_->shape().to_string() + "]: its " +
                                   side_name(index) + " side");
    }
    current_launch() = outer;
  }

 private:
  [[nodiscard]] std::string side_name(std::size_t index) const {
    const side_verb verb = declaration_->sides().at(index);
    if (verb == side_verb::oracle) return "oracle";
    return verb == side_verb::optimized ? "optimized" : verb == side_verb::reference ? "reference" : "host reference";
  }

  py::object case_;
  const case_declaration* declaration_ = nullptr;
  std::vector<std::shared_ptr<buffer_binding>> bindings_;
  py::object sides_;
  py::object call_side_;
};

// A case function, by the Python callable that runs it at a shape (a dict) and returns the kbench.Case it
// filled (kbench/__init__.py's _collect, bound to the function, its name and its shapes).
class python_case_function final : public python_case_source {
 public:
  explicit python_case_function(py::object collect) : collect_(std::move(collect)) {}
  ~python_case_function() override { drop(collect_); }
  python_case_function(const python_case_function&) = delete;
  python_case_function& operator=(const python_case_function&) = delete;

  [[nodiscard]] std::shared_ptr<python_declaration> declare(const kbench::shape& s) override {
    const py::gil_scoped_acquire gil;
    py::dict named;
    for (const auto& [name, size] : s.dims()) named[py::str(name)] = py::int_(size);
    for (const auto& [name, value] : s.parameters()) named[py::str(name)] = py::float_(value);
    try {
      return std::make_shared<declared_in_python>(collect_(named));
    } catch (const py::error_already_set& e) {
      throw_as_kbench_error(e, "the case function at [" + s.to_string() + "]");
    }
  }

 private:
  py::object collect_;
};

}  // namespace detail
}  // namespace kbench::python
