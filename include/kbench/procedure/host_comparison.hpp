// kbench/procedure/host_comparison.hpp: the host comparison engine (engines/comparison.hpp's compare()) as
// the procedure's stages call it: declared here, defined once per program (host_comparison_definitions.hpp,
// a translation unit of its own), so that its code for every element type is compiled once instead of in
// each stage's translation unit (8.6 s of g++ -O3 each on a 2-core machine; the stages' units are the
// build's critical path).
#pragma once

#include "../engines/comparison.hpp"

namespace kbench {
namespace detail {

// compare(actual, expected, tol, options), compiled once per program.
[[nodiscard]] comparison compare_on_host(const array_view& actual, const array_view& expected, const tolerance& tol,
                                         const compare_options& options = {});

}  // namespace detail
}  // namespace kbench
