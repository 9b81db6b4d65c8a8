// kbench/contract/shape.hpp: the named sizes of one run of a case, e.g. {{"rows", 37}, {"cols", 1531}}. HIP-free.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "error.hpp"

namespace kbench {

class shape {
 public:
  using dimension = std::pair<std::string, std::int64_t>;

  shape() = default;
  shape(std::initializer_list<dimension> dims) : shape(std::vector<dimension>(dims)) {}
  explicit shape(std::vector<dimension> dims) : dims_(std::move(dims)) {
    for (std::size_t i = 0; i < dims_.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (dims_[i].first == dims_[j].first) throw usage_error("shape names '" + dims_[i].first + "' twice");
      }
    }
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

  // "rows=37/cols=1531"
  [[nodiscard]] std::string to_string() const {
    std::string s;
    for (const auto& d : dims_) s += (s.empty() ? "" : "/") + d.first + "=" + std::to_string(d.second);
    return s;
  }

 private:
  std::vector<dimension> dims_;
};

}  // namespace kbench
