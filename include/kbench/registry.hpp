// kbench/registry.hpp: registration of case functions with the shapes they run at. HIP-free.
//
//   KBENCH_REGISTER(rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 16384}, {"cols", 8192}});
//
// The macro is a thin wrapper over register_case(), which a program may call directly.
#pragma once

#include <deque>
#include <initializer_list>
#include <string>
#include <vector>

#include "shape.hpp"

namespace kbench {

class kernel_case;  // kernel_case.hpp: only the case function needs it, so host-only code can list the cases

using case_function = void (*)(kernel_case&);

class case_registration {
 public:
  case_registration(std::string name, case_function function, const char* file, int line)
      : name_(std::move(name)), function_(function), file_(file), line_(line) {}

  // Adds a shape the case runs at. List an odd one (sizes that are not multiples of a block) too.
  case_registration& shape(std::initializer_list<kbench::shape::dimension> dims) {
    shapes_.emplace_back(dims);
    return *this;
  }

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] case_function function() const { return function_; }
  [[nodiscard]] const char* file() const { return file_; }
  [[nodiscard]] int line() const { return line_; }
  // Every registered shape; a case registered without any runs once with an empty shape.
  [[nodiscard]] std::vector<kbench::shape> shapes() const {
    return shapes_.empty() ? std::vector<kbench::shape>{kbench::shape{}} : shapes_;
  }

 private:
  std::string name_;
  case_function function_;
  const char* file_;
  int line_;
  std::vector<kbench::shape> shapes_;
};

// Every case registered in this program, in registration order (a deque keeps references stable).
inline std::deque<case_registration>& registered_cases() {
  static std::deque<case_registration> cases;
  return cases;
}

inline case_registration& register_case(std::string name, case_function function, const char* file, int line) {
  return registered_cases().emplace_back(std::move(name), function, file, line);
}

}  // namespace kbench

#define KBENCH_DETAIL_CONCAT_(a, b) a##b
#define KBENCH_DETAIL_CONCAT(a, b) KBENCH_DETAIL_CONCAT_(a, b)

#define KBENCH_REGISTER(function)                                                               \
  [[maybe_unused]] static ::kbench::case_registration& KBENCH_DETAIL_CONCAT(kbench_registration_, __LINE__) = \
      ::kbench::register_case(#function, &function, __FILE__, __LINE__)
