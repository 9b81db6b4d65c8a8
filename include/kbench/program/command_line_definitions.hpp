// kbench/program/command_line_definitions.hpp: parse_command_line (command_line.hpp), defined once per
// program. HIP-free.
#pragma once

#include "command_line.hpp"
#include "options.hpp"

namespace kbench {

run_options parse_command_line(int argc, const char* const* argv) { return parse_options(argc, argv); }

}  // namespace kbench
