// kbench/contract/code_object.hpp: a side of a case whose kernel is not compiled into the test file, but
// loaded from a code object file by its name (AMD: .co or .hsaco, or an offload bundle of them from hipcc
// --genco; NVIDIA: .cubin, .fatbin or .ptx) and launched with a grid, a block, dynamic shared memory, a
// stream and its arguments (buffer handles and scalars). Opt-in, apart from compare.hpp: most test files
// never need it.
//
//   const kbench::code_object file(SCALE_CODE_OBJECT);  // the file must exist (checked on the host)
//   const kbench::code_object_kernel scale = file.kernel("scale_kernel");
//   c.optimized([=](hipStream_t s) { scale.launch(dim3(blocks), dim3(256), 0, s, x, y, a, n); });
//
// The file is loaded at the first launch on each device, once per process (the correctness run's first
// launch, never a timed one), and kept loaded until the process ends; a launch then packs its arguments on
// the stack and launches (no allocation, no look-up beyond the device's). Before any launch, errors say what
// is wrong: the file missing (by its path), no code object for this device, the kernel missing (with the
// kernels the file has, where the platform lists them), and arguments that the kernel would read at other
// offsets or sizes than given (where the platform reads the kernel's own record: module_platform.hpp).
// Declaring the file records its path (code_object_files.hpp): `<program> resources` lists its kernels,
// and bounds them, without a GPU.
#pragma once

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "code_object_files.hpp"
#include "error.hpp"
#include "hip_check.hpp"
#include "kernel_arguments.hpp"
#include "module_platform.hpp"
#include "platform.hpp"

namespace kbench {
namespace detail {

// One kernel of a loaded code object on one device.
struct loaded_kernel {
  module_function function = nullptr;
  std::optional<std::vector<argument_slot>> record;  // its parameters, where the platform reads them
};

// The code objects and kernels this process loaded, per device: loaded once, never unloaded (a module
// unloaded by a static destructor could outlive the runtime it was loaded into).
class loaded_modules {
 public:
  static loaded_modules& instance() {
    static loaded_modules* modules = new loaded_modules;  // never destroyed, as what it holds
    return *modules;
  }

  const loaded_kernel& kernel(const std::string& path, const std::string& name, int device) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto key = std::make_tuple(path, name, device);
    if (auto found = kernels_.find(key); found != kernels_.end()) return found->second;
    const module_handle module = this->module(path, device);
    loaded_kernel k;
    const hipError_t status = module_get_function(k.function, module, name);
    if (status == hipErrorNotFound) {
      (void)hipGetLastError();
      throw usage_error(missing_kernel_message(name, path, module_kernel_names(module), modules_listable));
    }
    if (status != hipSuccess) throw_load_error(path, "its kernel '" + name + "' could not be loaded", status, device);
    k.record = module_argument_record(k.function);
    if (!k.record && file_argument_reader()) k.record = file_argument_reader()(path, name, device_target(device));
    names_.emplace(reinterpret_cast<const void*>(k.function), name);
    return kernels_.emplace(key, std::move(k)).first->second;
  }

  // The name of a kernel this process loaded from a code object, by the function a launch of it (a graph's
  // kernel node) holds; null for any other function (the census asks of every kernel it lists).
  [[nodiscard]] const std::string* name_of(const void* function) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = names_.find(function);
    return found == names_.end() ? nullptr : &found->second;
  }

 private:
  module_handle module(const std::string& path, int device) {
    const auto key = std::make_pair(path, device);
    if (auto found = modules_.find(key); found != modules_.end()) return found->second;
    if (!std::ifstream(path)) throw usage_error("no code object file " + path + " (it is not there, or cannot be read)");
    // Loading needs the device's context, which the runtime makes at its first call on the device.
    KBENCH_HIP_CHECK(hipFree(nullptr));
    module_handle module{};
    const hipError_t status = module_load(module, path);
    if (status != hipSuccess) throw_load_error(path, "it could not be loaded", status, device);
    return modules_.emplace(key, module).first->second;
  }

  // The device's target as code objects name it ("gfx90a:sramecc+:xnack-", "sm_90"); "" where unknown.
  static std::string device_target(int device) {
    hipDeviceProp_t prop{};
    if (hipGetDeviceProperties(&prop, device) != hipSuccess) {
      (void)hipGetLastError();
      return "";
    }
    return architecture_name(prop).text;
  }

  [[noreturn]] static void throw_load_error(const std::string& path, const std::string& what, hipError_t status,
                                            int device) {
    (void)hipGetLastError();
    std::string target = "device " + std::to_string(device);
    if (const std::string name = device_target(device); !name.empty()) target += ", " + name;
    const std::string why = std::string(hipGetErrorName(status)) + ": " + hipGetErrorString(status);
    if (not_for_this_device(status)) {
      throw usage_error(path + " is no code object for this device (" + target + "): " + what + " (" + why +
                        "); build it for this device's architecture");
    }
    throw hip_error(status, "code object " + path + " on " + target + ": " + what + " (" + why + ")");
  }

  std::mutex mutex_;
  std::map<std::pair<std::string, int>, module_handle> modules_;
  std::map<std::tuple<std::string, std::string, int>, loaded_kernel> kernels_;
  std::map<const void*, std::string> names_;
};

// The kernels of code objects this thread launched while a census captured a side (procedure/census_run.hpp
// sets `capturing`): NVIDIA's runtime cannot read back the graph node of a kernel loaded through its library
// API, so the census names such a node by the one launch that made it, where there is exactly one, and
// describes and replays it as that launch made it (its function, grid, block, shared memory and arguments).
struct captured_module_launches {
  bool capturing = false;
  int count = 0;
  const std::string* last = nullptr;  // the name of the last launched: its code_object_kernel outlives the census
  const void* function = nullptr;     // the last launch, as made
  dim3 grid, block;
  unsigned int shared_bytes = 0;
  std::vector<std::vector<unsigned char>> arguments;  // each argument's bytes
};
inline captured_module_launches& module_launches_in_capture() {
  thread_local captured_module_launches launches;
  return launches;
}

// For the census (procedure/census_run.hpp), which lists the kernels of a side from a graph's kernel nodes:
// whether a node's function is a host function that hipLaunchKernel and the runtime's attribute calls take.
// On AMD a kernel loaded from a code object is a module function instead, read through the module API and
// replayed in a graph of its own; NVIDIA's runtime takes both.
inline bool launchable_by_pointer(const void* function) {
#if defined(KBENCH_PLATFORM_AMD)
  return loaded_modules::instance().name_of(function) == nullptr;
#else
  (void)function;
  return true;
#endif
}

inline hipError_t function_attributes(hipFuncAttributes& attributes, const void* function) {
#if defined(KBENCH_PLATFORM_AMD)
  if (!launchable_by_pointer(function)) {
    return module_function_attributes(attributes, static_cast<module_function>(const_cast<void*>(function)));
  }
#endif
  return hipFuncGetAttributes(&attributes, function);
}

inline hipError_t blocks_per_unit(int& blocks, const void* function, int threads, std::size_t shared_bytes) {
#if defined(KBENCH_PLATFORM_AMD)
  if (!launchable_by_pointer(function)) {
    return module_blocks_per_unit(blocks, static_cast<module_function>(const_cast<void*>(function)), threads, shared_bytes);
  }
#endif
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, threads, shared_bytes);
}

}  // namespace detail

// A kernel of a code object, found by its name; copies share what they resolved.
class code_object_kernel {
 public:
  code_object_kernel(std::string path, std::string name) : state_(std::make_shared<state>()) {
    state_->path = std::move(path);
    state_->name = std::move(name);
  }

  // One launch on `stream`, on the current device. `args` in the kernel's order: buffer handles (their
  // device pointers) and trivially copyable values of the kernel's own parameter types (an `int n` of the
  // kernel takes an int: a long would be read as other bytes, and is refused where the platform can tell).
  template <class... Args>
  void launch(dim3 grid, dim3 block, unsigned int shared_bytes, hipStream_t stream, const Args&... args) const {
    const detail::loaded_kernel& k = resolved();
    detail::packed_arguments<Args...> packed(args...);
    using packed_type = detail::packed_arguments<Args...>;
    if (k.record) {
      detail::check_argument_layout(state_->name, state_->path, packed_type::layout.data(), packed_type::count, *k.record);
    }
    KBENCH_HIP_CHECK(detail::module_launch(k.function, grid, block, shared_bytes, stream, packed.pointers()));
    KBENCH_HIP_CHECK_LAUNCH();
    detail::captured_module_launches& captured = detail::module_launches_in_capture();
    if (captured.capturing) {
      ++captured.count;
      captured.last = &state_->name;
      captured.function = static_cast<const void*>(k.function);
      captured.grid = grid, captured.block = block, captured.shared_bytes = shared_bytes;
      captured.arguments.clear();
      for (std::size_t i = 0; i < packed_type::count; ++i) {
        const auto* bytes = static_cast<const unsigned char*>(packed.pointers()[i]);
        captured.arguments.emplace_back(bytes, bytes + packed_type::layout[i].size);
      }
    }
  }

  [[nodiscard]] const std::string& name() const { return state_->name; }
  [[nodiscard]] const std::string& path() const { return state_->path; }

 private:
  struct state {
    std::string path, name;
    std::mutex mutex;
    std::map<int, const detail::loaded_kernel*> by_device;
  };

  const detail::loaded_kernel& resolved() const {
    int device = 0;
    KBENCH_HIP_CHECK(hipGetDevice(&device));
    const std::lock_guard<std::mutex> lock(state_->mutex);
    const detail::loaded_kernel*& k = state_->by_device[device];
    if (!k) k = &detail::loaded_modules::instance().kernel(state_->path, state_->name, device);
    return *k;
  }

  std::shared_ptr<state> state_;
};

// A code object file, named by its path; its kernels are loaded by name at their first launch.
class code_object {
 public:
  // The file must be there now: a case that names a missing one fails when it is declared, on any machine.
  // Its path is kept for `<program> resources` and the census, which list its kernels (code_object_files.hpp).
  explicit code_object(std::string path) : path_(std::move(path)) {
    if (!std::ifstream(path_)) throw usage_error("no code object file " + path_ + " (it is not there, or cannot be read)");
    detail::code_object_files::instance().add(path_);
  }
  [[nodiscard]] code_object_kernel kernel(std::string name) const { return code_object_kernel(path_, std::move(name)); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace kbench
