// kbench/contract/code_object_files.hpp: the code object files this process's cases load, each named once,
// in the order first declared: kbench::code_object (code_object.hpp) adds its path when a case declares it,
// and kbench::shared_library (shared_library.hpp) the library's, whose device code it carries as a program
// does; both on the host, so that `<program> resources` and the census, which read their kernels' resources
// without a GPU (program/resource_listing.hpp), know them once the cases are declared. HIP-free.
#pragma once

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

namespace kbench {
namespace detail {

class code_object_files {
 public:
  static code_object_files& instance() {
    static code_object_files* files = new code_object_files;  // never destroyed: a static object's case may add
    return *files;
  }
  void add(const std::string& path) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(paths_.begin(), paths_.end(), path) == paths_.end()) paths_.push_back(path);
  }
  [[nodiscard]] std::vector<std::string> paths() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return paths_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> paths_;
};

}  // namespace detail
}  // namespace kbench
