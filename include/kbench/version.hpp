// kbench/version.hpp: the version of kbench (CMakeLists.txt reads it from here).
#pragma once

namespace kbench {

inline constexpr const char* version = "0.1.0";

}  // namespace kbench
