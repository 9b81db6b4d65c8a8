// kbench/contract/shared_library.hpp: a side of a case whose kernels live in a shared library, opened at run
// time by its path (dlopen) and never closed: an extern "C" launcher, typed by the case,
//
//   const kbench::shared_library lib(SCALE_LIBRARY);
//   const auto launch_scale = lib.function<void(const float*, float*, float, long, hipStream_t)>("launch_scale");
//   c.optimized([=](hipStream_t s) { launch_scale(x, y, a, n, s); });
//
// or an extern "C" __global__ kernel's host function (lib.kernel("scale_kernel")), for hipLaunchKernel. That
// one needs the library and the program to share one GPU runtime: so on AMD (libamdhip64 is shared), not on
// NVIDIA, where kbench programs link the CUDA runtime statically and a library's kernels are registered with
// its own copy; a launcher works on both. HIP-free; opt-in, as code_object.hpp is.
#pragma once

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "code_object_files.hpp"
#include "error.hpp"

namespace kbench {

class shared_library {
 public:
  // Opens the library now (once per process and path): a case that names a missing one fails when it is
  // declared, on any machine.
  // Its kernels' resources join the program's (`<program> resources`, the census), read from the file.
  explicit shared_library(std::string path) : path_(std::move(path)), handle_(open_once(path_)) {
    detail::code_object_files::instance().add(path_);
  }

  // The address of `symbol`; an error naming the library, the symbol and dlerror's text when it has none.
  [[nodiscard]] void* symbol(const std::string& name) const {
    const std::lock_guard<std::mutex> lock(dl_mutex());
    (void)dlerror();
    void* address = dlsym(handle_, name.c_str());
    if (const char* why = dlerror()) {
      throw usage_error("no symbol '" + name + "' in shared library " + path_ + " (" + why +
                        "; extern \"C\" keeps a name unmangled)");
    }
    if (!address) throw usage_error("symbol '" + name + "' of shared library " + path_ + " is null");
    return address;
  }

  // An extern "C" function of the library, as the case declares its type: `Signature` must be the
  // function's own (nothing can check it).
  template <class Signature>
  [[nodiscard]] Signature* function(const std::string& name) const {
    return reinterpret_cast<Signature*>(symbol(name));
  }

  // An extern "C" __global__ kernel's host function, for hipLaunchKernel (see above for NVIDIA).
  [[nodiscard]] const void* kernel(const std::string& name) const { return symbol(name); }

  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  // dlerror's text is per thread but the calls around it are not atomic: one caller at a time.
  static std::mutex& dl_mutex() {
    static std::mutex m;
    return m;
  }

  static void* open_once(const std::string& path) {
    const std::lock_guard<std::mutex> lock(dl_mutex());
    static std::map<std::string, void*> opened;  // never closed: a closed library's kernels could still be listed
    if (auto found = opened.find(path); found != opened.end()) return found->second;
    (void)dlerror();
    // RTLD_LOCAL: two libraries may define the same extern "C" names (two versions of a kernel).
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      throw usage_error("cannot open shared library " + path + ": " + (why ? why : "dlopen gave no reason"));
    }
    return opened.emplace(path, handle).first->second;
  }

  std::string path_;
  void* handle_;
};

}  // namespace kbench
