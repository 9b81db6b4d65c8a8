// kbench/contract/error.hpp: the exceptions kbench throws. HIP errors derive from these in hip_check.hpp.
#pragma once

#include <stdexcept>
#include <string>

namespace kbench {

// Base of every error kbench reports; what() is one line that says what went wrong and where.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A case, a tolerance or an option was declared in a way that cannot give a meaningful verdict.
class usage_error : public error {
 public:
  using error::error;
};

// A case that cannot run here (it spans more GPUs than the machine shows): skipped, with this reason.
class skipped_case : public error {
 public:
  using error::error;
};

}  // namespace kbench
