// kbench/program/command_line.hpp: a kbench program's command line and environment, parsed (options.hpp's
// parse_options) in a translation unit of its own: CLI11, a header-only parser, was a third of main()'s
// unit, which held up every program's link (on a 2-core machine: main()'s unit 14.9 s with it, 10.4 s
// without, the parser's own 4.2 s, side by side). HIP-free.
#pragma once

#include "../decisions/run_options.hpp"

namespace kbench {

// options.hpp's parse_options; defined in command_line_definitions.hpp, which kbench.cmake compiles once
// per project and kbench/main.hpp includes.
[[nodiscard]] run_options parse_command_line(int argc, const char* const* argv);

}  // namespace kbench
