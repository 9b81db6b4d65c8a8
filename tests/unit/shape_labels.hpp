// What the unit tests of shapes share (sweep_test.cpp, nearby_shapes_test.cpp): shapes as their labels, for
// comparing lists, and a case function that declares nothing, for registrations that are never run.
#pragma once

#include <string>
#include <vector>

#include <kbench/contract/registry.hpp>
#include <kbench/contract/shape.hpp>

namespace kbench_test {

inline std::vector<std::string> labels(const std::vector<kbench::shape>& shapes) {
  std::vector<std::string> all;
  for (const kbench::shape& s : shapes) all.push_back(s.to_string());
  return all;
}

inline void no_case(kbench::kernel_case&) {}

}  // namespace kbench_test
