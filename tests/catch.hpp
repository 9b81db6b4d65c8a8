// The Catch2 test macros for kbench's own tests, from Catch2 2.x or 3.x. CMake says which one it found
// (KBENCH_CATCH2_MAJOR): a machine can hold the headers of both.
#pragma once

#include <string>

#if !defined(KBENCH_CATCH2_MAJOR)
#error "KBENCH_CATCH2_MAJOR must name the Catch2 major version (set by tests/CMakeLists.txt)"
#endif

#if KBENCH_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;
namespace kbench_test {
inline auto contains(const std::string& text) { return Catch::Matchers::ContainsSubstring(text); }
}  // namespace kbench_test
#else
#include <catch2/catch.hpp>
namespace kbench_test {
inline auto contains(const std::string& text) { return Catch::Matchers::Contains(text); }
}  // namespace kbench_test
#endif
