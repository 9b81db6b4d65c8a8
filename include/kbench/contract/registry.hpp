// kbench/contract/registry.hpp: registration of case functions with the shapes they run at. HIP-free.
//
//   KBENCH_REGISTER(rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).shape({{"rows", 16384}, {"cols", 8192}});
//   KBENCH_REGISTER(rmsnorm<kbench::bf16_t>).name("rmsnorm_bf16")       // a template, under a plain name
//       .axis("rows", {4096}).axis("cols", {1024, 4096, 16384});        // shapes: every combination
//
//   KBENCH_REGISTER(rope).shape(...).dimension("head_dim", kbench::multiple_of(2));  // what the kernel supports
//   KBENCH_REGISTER(copy).shape(...).nearby_shapes(false);  // only the declared shapes, never those around them
//
// The macro is a thin wrapper over register_case(), which a program may call directly. A function
// template registered for several element types is one registration per type, each with its own name.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "dimension_rule.hpp"
#include "error.hpp"
#include "shape.hpp"

namespace kbench {

class kernel_case;  // kernel_case.hpp: only the case function needs it, so host-only code can list the cases

using case_function = void (*)(kernel_case&);

class case_registration {
 public:
  case_registration(std::string name, case_function function, const char* file, int line)
      : name_(std::move(name)), function_(function), file_(file), line_(line) {}

  // Adds a shape the case runs at. List an odd one (sizes that are not multiples of a block) too.
  case_registration& shape(std::initializer_list<kbench::shape::dimension> dims);

  // Gives the shape added last a parameter, a number of the case that is no size (kernel_case::param):
  //   KBENCH_REGISTER(rmsnorm).shape({{"rows", 37}, {"cols", 1531}}).with("eps", 1e-5).shape(...).with("eps", 1e-6);
  case_registration& with(std::string parameter, double value);

  // Adds an axis: the case also runs at every combination of its axes' values (nvbench's cartesian
  // product), after the shapes given one by one.
  case_registration& axis(std::string dimension, std::initializer_list<std::int64_t> values);

  // Renames the case (by default, the function as written: `rmsnorm<kbench::bf16_t>`) to a plain name,
  // which filters, JSON keys and shells take without quoting: letters, digits, '_', '-' and '.'.
  case_registration& name(std::string plain);

  // The sizes `dimension` may take, where the kernel supports fewer than all: every shape of the case must
  // meet the rule, and the shapes around the declared ones keep to it (decisions/nearby_shapes.hpp).
  case_registration& dimension(std::string dimension, dimension_rule rule);

  // Whether the correctness run also runs the shapes around the declared ones (by default it does).
  case_registration& nearby_shapes(bool run) {
    nearby_shapes_ = run;
    return *this;
  }

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::vector<std::pair<std::string, dimension_rule>>& dimension_rules() const { return rules_; }
  [[nodiscard]] bool runs_nearby_shapes() const { return nearby_shapes_; }
  [[nodiscard]] case_function function() const { return function_; }
  [[nodiscard]] const char* file() const { return file_; }
  [[nodiscard]] int line() const { return line_; }
  // Every registered shape, then every combination of the axes; a case registered without either runs
  // once with an empty shape (registry_impl.hpp).
  [[nodiscard]] std::vector<kbench::shape> shapes() const;

 private:
  std::string name_;
  case_function function_;
  const char* file_;
  int line_;
  std::vector<kbench::shape> shapes_;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> axes_;
  std::vector<std::pair<std::string, dimension_rule>> rules_;
  bool nearby_shapes_ = true;
};

// Defined once per program (registry_impl.hpp), as are the verbs above that check their arguments: a test
// file compiles calls, not their bodies.
case_registration& register_case(std::string name, case_function function, const char* file, int line);

}  // namespace kbench

#define KBENCH_DETAIL_CONCAT_(a, b) a##b
#define KBENCH_DETAIL_CONCAT(a, b) KBENCH_DETAIL_CONCAT_(a, b)

// Variadic, so that a template argument list with commas needs no parentheses.
#define KBENCH_REGISTER(...)                                                                    \
  [[maybe_unused]] static ::kbench::case_registration& KBENCH_DETAIL_CONCAT(kbench_registration_, __LINE__) = \
      ::kbench::register_case(#__VA_ARGS__, &__VA_ARGS__, __FILE__, __LINE__)
