// kbench/program/resources_mode.hpp: the definitions, once per program, of what program.hpp declares of the
// code object readers: `<program> resources` (resource_listing.hpp), the build's figures that the census
// shows beside the runtime's, and the reader of the parameters a code object file records. kbench.cmake
// compiles it as a translation unit of its own, so that main()'s and the perf adapter's units do not compile
// the ELF and code object readers (4 s of g++ each); kbench/main.hpp includes it. HIP-free.
#pragma once

#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "../contract/code_object_files.hpp"
#include "../contract/kernel_arguments.hpp"
#include "../engines/code_object_file.hpp"
#include "program.hpp"
#include "resource_listing.hpp"

namespace kbench {
namespace detail {

// The program's own device code, read once, and each code object file the cases declared so far, read once
// at the first call after a case declared it (declared in program.hpp): every kernel of every target, or
// why one could not be read. A listing once returned never changes: a file declared later makes a new one.
const built_listing& built_resources() {
  static std::mutex mutex;
  static std::deque<built_listing> listings;  // a deque: a listing handed out stays where it is
  const std::lock_guard<std::mutex> lock(mutex);
  const std::vector<std::string> paths = code_object_files::instance().paths();
  if (!listings.empty() && listings.back().code_objects.size() == paths.size()) return listings.back();
  built_listing l;
  if (listings.empty()) {
    try {
      l.kernels = read_kernel_resources("/proc/self/exe");
    } catch (const std::exception& e) {
      l.problem = e.what();
    }
  } else {
    l = listings.back();
  }
  for (std::size_t i = l.code_objects.size(); i < paths.size(); ++i) l.code_objects.push_back(code_object_resources(paths[i]));
  listings.push_back(std::move(l));
  return listings.back();
}

void read_arguments_from_files() { file_argument_reader() = &recorded_arguments; }

int run_resources_mode(program_run& run, const char* program, const run_options& options) {
  return run_resources(run, program, options);
}

}  // namespace detail
}  // namespace kbench
