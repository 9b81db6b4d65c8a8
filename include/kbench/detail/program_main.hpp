// kbench/detail/program_main.hpp: run_main() of a kbench program, `<program> list`, and the exit
// status. HIP-free; compiled once per program.
//
//   <program> correctness [kbench options] [Catch2 options]   one Catch2 test per case and shape
//   <program> perf        [kbench options] [Google Benchmark options]
//   <program> list                                            the cases, their shapes and buffers
//
// Exit status: 0 passed; 1 failed (a wrong kernel, a broken test, a flagged timing, a HIP error); 2 bad
// usage; 77 skipped: no GPU is usable (unless --require-gpu / KBENCH_REQUIRE_GPU=1, which makes that a
// failure), or --max-elements left nothing to run. --json <path> writes every result (json_report.hpp).
#pragma once

#include <cstdio>
#include <exception>
#include <set>
#include <string>

#include <fmt/format.h>

#include "../json_report.hpp"
#include "../version.hpp"
#include "program.hpp"

namespace kbench {
namespace detail {

int finish(const char* program, const run_options& options, int framework_status) {
  const run_record& run = journal();
  if (!options.json_path.empty()) write_json(run, options.json_path, program);
  int failed = 0, skipped = 0, filtered = 0;
  std::string reason;
  for (const case_record& c : run.cases) {
    failed += c.verdict == case_verdict::fail || c.verdict == case_verdict::error;
    filtered += c.verdict == case_verdict::filtered;
    if (c.verdict == case_verdict::skipped) ++skipped, reason = c.message;
  }
  if (failed > 0 || framework_status != 0) return 1;
  const char* what = options.mode == run_mode::perf ? "benchmark(s)" : "test(s)";
  if (!run.cases.empty() && filtered == static_cast<int>(run.cases.size())) {
    fmt::print("kbench: nothing ran: --max-elements {:.0f} filters out all {} {}\n", options.max_elements, filtered, what);
    return exit_skipped;
  }
  if (skipped > 0) {
    if (options.require_gpu) {
      fmt::print("kbench: {} (KBENCH_REQUIRE_GPU is set, so this fails)\n", reason);
      return 1;
    }
    fmt::print("kbench: skipped {} {}: {}\n", skipped, what, reason);
    return exit_skipped;
  }
  return 0;
}

// Lists every case and shape, instantiating each declaration on the host (no GPU needed), so a broken
// declaration is an error here too.
inline int run_list() {
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : reg.shapes()) {
      std::string buffers;
      for (const declared_buffer& b : declare_on_host(reg, s)) {
        const char* role = b.role == buffer_role::input ? "in" : b.role == buffer_role::output ? "out" : "inout";
        buffers += fmt::format("{}{} {} {}", buffers.empty() ? "" : ", ", role, b.name, describe_array(b.type, b.extents));
      }
      fmt::print("{}: {}\n", case_label(reg.name(), s), buffers);
    }
  }
  return 0;
}

// Names registered twice make reports ambiguous.
inline void check_registry() {
  if (registered_cases().empty()) throw usage_error("no case is registered in this program (KBENCH_REGISTER)");
  std::set<std::string> names;
  for (const case_registration& reg : registered_cases()) {
    if (!names.insert(reg.name()).second) throw usage_error("case '" + reg.name() + "' is registered twice");
  }
}

}  // namespace detail

int run_main(int argc, char** argv) {
  try {
    run_options options = parse_options(argc, argv);
    detail::check_registry();
    run_record& run = detail::journal();
    run.kbench_version = version;
    run.compiler = detail::gpu_compiler();
    run.optimized_build = detail::gpu_code_optimized();
    run.warmup = options.warmup;
    run.warmup_time = options.warmup_time;
    run.iterations = options.iterations;
    run.mode = options.mode;
    switch (options.mode) {
      case run_mode::correctness: return detail::run_correctness(argv[0], options);
      case run_mode::perf: return detail::run_perf(argv[0], options);
      case run_mode::list: return detail::run_list();
    }
  } catch (const usage_error& e) {
    std::fprintf(stderr, "kbench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbench: %s\n", e.what());
    return 1;
  }
  return 1;
}

}  // namespace kbench
