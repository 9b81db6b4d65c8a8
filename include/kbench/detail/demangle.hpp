// kbench/detail/demangle.hpp: a kernel's symbol as its source names it (the census and the resource
// listing print kernels by these names). HIP-free.
#pragma once

#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <string>

namespace kbench {
namespace detail {

inline std::string demangled(const std::string& symbol) {
  if (symbol.empty()) return "(unnamed kernel)";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : symbol;
}

}  // namespace detail
}  // namespace kbench
