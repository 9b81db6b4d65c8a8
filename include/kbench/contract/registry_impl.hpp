// kbench/contract/registry_impl.hpp: the definitions of registry.hpp's verbs that check their arguments,
// and of register_case(). Included by exactly one translation unit of a program (procedure_impl.hpp): a
// test file's KBENCH_REGISTER line then compiles a call, not a deque's growth and the checks' messages
// (0.4 s of g++ -O3 in every test file through nvcc). HIP-free.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "registered_cases.hpp"
#include "registry.hpp"

namespace kbench {

case_registration& case_registration::shape(std::initializer_list<kbench::shape::dimension> dims) {
  shapes_.emplace_back(dims);
  return *this;
}

case_registration& case_registration::with(std::string parameter, double value) {
  if (shapes_.empty()) {
    throw usage_error("case '" + name_ + "': with(\"" + parameter + "\", ...) gives the shape before it a parameter, "
                      "and there is none: call shape() first");
  }
  shapes_.back() = shapes_.back().with(std::move(parameter), value);
  return *this;
}

case_registration& case_registration::axis(std::string dimension, std::initializer_list<std::int64_t> values) {
  for (const auto& a : axes_) {
    if (a.first == dimension) throw usage_error("case '" + name_ + "' has axis '" + dimension + "' twice");
  }
  if (values.size() == 0) throw usage_error("case '" + name_ + "': axis '" + dimension + "' has no values");
  axes_.emplace_back(std::move(dimension), std::vector<std::int64_t>(values));
  return *this;
}

case_registration& case_registration::dimension(std::string dimension, dimension_rule rule) {
  for (const auto& r : rules_) {
    if (r.first == dimension) throw usage_error("case '" + name_ + "' has a rule on dimension '" + dimension + "' twice");
  }
  rules_.emplace_back(std::move(dimension), rule);
  return *this;
}

case_registration& case_registration::name(std::string plain) {
  if (plain.empty()) throw usage_error("case '" + name_ + "' is given an empty name");
  for (const char c : plain) {
    const bool plain_char = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                            c == '-' || c == '.';
    if (!plain_char) {
      throw usage_error("case '" + name_ + "': name '" + plain + "' holds '" + c + "'; use letters, digits, '_', '-', '.'");
    }
  }
  name_ = std::move(plain);
  return *this;
}

std::vector<kbench::shape> case_registration::shapes() const {
  std::vector<kbench::shape> all = shapes_;
  if (!axes_.empty()) {
    std::vector<std::vector<kbench::shape::dimension>> combinations{{}};
    for (const auto& [dimension, values] : axes_) {
      std::vector<std::vector<kbench::shape::dimension>> longer;
      for (const auto& c : combinations) {
        for (const std::int64_t v : values) {
          longer.push_back(c);
          longer.back().emplace_back(dimension, v);
        }
      }
      combinations = std::move(longer);
    }
    for (auto& c : combinations) all.emplace_back(std::move(c));
  }
  return all.empty() ? std::vector<kbench::shape>{kbench::shape{}} : all;
}

case_registration& register_case(std::string name, case_function function, const char* file, int line) {
  return registered_cases().emplace_back(std::move(name), function, file, line);
}

}  // namespace kbench
