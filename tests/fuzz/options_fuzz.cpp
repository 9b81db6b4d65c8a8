// libFuzzer target: command-line parsing. Any argument list either parses or is a usage_error with a
// message; nothing else escapes.
#include <kbench/program/options.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"kbench_fuzz"};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  args.push_back(current);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    const kbench::run_options o = kbench::parse_options(static_cast<int>(argv.size()), argv.data());
    if (o.iterations < 1 || o.seed_count < 1 || o.precision <= 0) std::abort();
  } catch (const kbench::usage_error& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
