// kbench/procedure/host_comparison_definitions.hpp: compare_on_host() (host_comparison.hpp), defined once per
// program: kbench.cmake compiles it as a translation unit of its own; kbench/main.hpp includes it.
#pragma once

#include "../engines/comparison.hpp"
#include "host_comparison.hpp"

namespace kbench {
namespace detail {

comparison compare_on_host(const array_view& actual, const array_view& expected, const tolerance& tol,
                           const compare_options& options) {
  return compare(actual, expected, tol, options);
}

}  // namespace detail
}  // namespace kbench
