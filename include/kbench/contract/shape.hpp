// kbench/contract/shape.hpp: the named sizes of one run of a case, e.g. {{"rows", 37}, {"cols", 1531}}, and
// the numbers of the case that are no sizes and vary with them (an epsilon, a scale), its parameters. HIP-free.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "error.hpp"

namespace kbench {

namespace detail {
// The shortest decimal that reads back as exactly `v` ("1e-05", "0.125"): how labels, options and reports
// write a parameter, so that a label read back names the same run.
[[nodiscard]] inline std::string exact_decimal(double v) {
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}
}  // namespace detail

class shape {
 public:
  using dimension = std::pair<std::string, std::int64_t>;

  // A number of the case that is no size, for this shape (kernel_case::param): an epsilon, a scale.
  using parameter = std::pair<std::string, double>;

  shape() = default;
  shape(std::initializer_list<dimension> dims) : shape(std::vector<dimension>(dims)) {}
  explicit shape(std::vector<dimension> dims, std::vector<parameter> params = {})
      : dims_(std::move(dims)), params_(std::move(params)) {
    std::vector<std::string_view> names;
    for (const auto& d : dims_) names.push_back(d.first);
    for (const auto& p : params_) {
      if (!std::isfinite(p.second)) throw usage_error("shape parameter '" + p.first + "' must be finite");
      names.push_back(p.first);
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (names[i] == names[j]) throw usage_error("shape names '" + std::string(names[i]) + "' twice");
      }
    }
  }

  // This shape with parameter `name` too.
  [[nodiscard]] shape with(std::string name, double value) const {
    std::vector<parameter> params = params_;
    params.emplace_back(std::move(name), value);
    return shape(dims_, std::move(params));
  }

  [[nodiscard]] bool has(std::string_view name) const {
    for (const auto& d : dims_) {
      if (d.first == name) return true;
    }
    return false;
  }

  // The size called `name`; a case asking for a size its shape lacks is a usage error.
  [[nodiscard]] std::int64_t operator[](std::string_view name) const {
    for (const auto& d : dims_) {
      if (d.first == name) return d.second;
    }
    throw usage_error("the case asks for dimension '" + std::string(name) + "', but shape {" + to_string() +
                      "} has no such dimension");
  }

  [[nodiscard]] const std::vector<dimension>& dims() const { return dims_; }
  [[nodiscard]] const std::vector<parameter>& parameters() const { return params_; }

  // The parameter called `name`; a case asking for one its shape lacks is a usage error.
  [[nodiscard]] double parameter_value(std::string_view name) const {
    for (const auto& p : params_) {
      if (p.first == name) return p.second;
    }
    throw usage_error("the case asks for parameter '" + std::string(name) + "', but shape {" + to_string() +
                      "} has no such parameter (give it on the registration: .shape({...}).with(\"" +
                      std::string(name) + "\", value); at run time, --shape ...," + std::string(name) + "=value)");
  }

  // "rows=37/cols=1531", the parameters after the sizes: "rows=37/cols=1531/eps=1e-05".
  [[nodiscard]] std::string to_string() const {
    std::string s;
    for (const auto& d : dims_) s += (s.empty() ? "" : "/") + d.first + "=" + std::to_string(d.second);
    for (const auto& p : params_) s += (s.empty() ? "" : "/") + p.first + "=" + detail::exact_decimal(p.second);
    return s;
  }

 private:
  std::vector<dimension> dims_;
  std::vector<parameter> params_;
};

}  // namespace kbench
