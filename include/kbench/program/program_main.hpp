// kbench/program/program_main.hpp: run_main() of a kbench program, `<program> list`, and the exit
// status. HIP-free; compiled once per program.
//
//   <program> correctness [kbench options] [Catch2 options]   one Catch2 test per case and shape
//   <program> perf        [kbench options] [Google Benchmark options]
//   <program> census      [kbench options]                    a check, then the kernels each side launches
//   <program> list                                            the cases, their shapes and buffers
//   <program> resources   [--json <path>]                     every kernel's registers, LDS (shared memory),
//                                                             scratch (stack) and waves per SIMD (warps per
//                                                             SM), per target, with no GPU
//   <program> [mode] --help                                   kbench's options, then the framework's
//
// Exit status: 0 passed; 1 failed (a wrong kernel, a broken test, a flagged timing, a HIP error); 2 bad
// usage; 77 skipped: no GPU is usable (unless --require-gpu / KBENCH_REQUIRE_GPU=1, which makes that a
// failure), or --max-elements left nothing to run. --json <path> writes every result (json_report.hpp),
// --markdown and --csv a table of them (table_report.hpp); --baseline <earlier perf JSON> compares with an
// earlier run (baseline.hpp) and fails (1) when a case got slower beyond --baseline-threshold, or its
// reference's time moved beyond it (unless --intended-change). correctness, perf and census run supervised
// (supervisor.hpp): a program that ends before kbench decided its status fails, whatever its exit status,
// and the tests after a case that ended the process or left the device unusable run in a new process.
#pragma once

#include <cstdio>
#include <exception>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../decisions/baseline.hpp"
#include "../reports/census_report.hpp"
#include "../reports/json_report.hpp"
#include "../reports/reporter.hpp"
#include "../reports/results_document.hpp"
#include "../reports/table_report.hpp"
#include "../version.hpp"
#include "case_lifecycle.hpp"
#include "command_line.hpp"
#include "program.hpp"
#include "supervisor.hpp"

namespace kbench {
namespace detail {

// The writers of a finished run's tables and comparison with a baseline (--markdown, --csv, --baseline), added
// to `reporters` in that order; the comparison's, when there is one.
inline const baseline_reporter* add_table_reporters(reporter_list& reporters, run_mode mode, const run_options& options) {
  if (!options.markdown_path.empty()) reporters.add<markdown_file_reporter>(options.markdown_path);
  if (!options.csv_path.empty()) reporters.add<csv_file_reporter>(options.csv_path);
  if (options.baseline_path.empty() || mode != run_mode::perf) return nullptr;
  baseline_options compare;
  compare.threshold = options.baseline_threshold;
  compare.intended_change = options.intended_change;
  return &reporters.add<baseline_reporter>(options.baseline_path, compare);
}

// The tables and the comparison with a baseline of a finished run; true when the baseline comparison finds a
// regression.
inline bool write_tables_and_compare(run_mode mode, const run_record& run, const run_options& options) {
  reporter_list reporters;
  const baseline_reporter* compared = add_table_reporters(reporters, mode, options);
  reporters.run_ended(run);
  return compared != nullptr && compared->regressed();
}

// The progress line ends with the run: after its results file, before its tables.
class progress_end : public reporter {
 public:
  explicit progress_end(const progress_line& line) : line_(line) {}
  void run_ended(const run_record&) override { line_.end(); }

 private:
  const progress_line& line_;
};

// One line of JSON, for the supervising parent (an invalid UTF-8 byte in a message is replaced, not thrown).
inline std::string json_line(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string case_json_line(const case_record& record) { return json_line(case_json(record)); }

int finish(program_run& run, const char* program, const run_options& options, int framework_status) {
  const run_record& results = run.results;
  reporter_list reporters;  // one run, for every writer, in the order they write
  if (!options.json_path.empty()) reporters.add<json_file_reporter>(options.json_path, program);
  reporters.add<progress_end>(run.progress);
  const baseline_reporter* compared = add_table_reporters(reporters, results.mode, options);
  reporters.run_ended(results);
  if (compared != nullptr && compared->regressed()) {
    fmt::print("kbench: a regression against the baseline (above): a case slower beyond {:.3g}%, failing now, or "
               "whose reference moved (--intended-change if the test changed on purpose)\n",
               100 * options.baseline_threshold);
    return 1;
  }
  int failed = 0, skipped = 0, filtered = 0;
  std::string reason;
  for (const case_record& c : results.cases) {
    failed += c.verdict == case_verdict::fail || c.verdict == case_verdict::error;
    filtered += c.verdict == case_verdict::filtered;
    if (c.verdict == case_verdict::skipped) ++skipped, reason = c.message;
  }
  if (failed > 0 || framework_status != 0) return 1;
  const char* what = options.mode == run_mode::perf ? "benchmark(s)" : "test(s)";
  if (!results.cases.empty() && filtered == static_cast<int>(results.cases.size())) {
    fmt::print("kbench: nothing ran: the filters leave out all {} {} ({})\n", filtered, what, results.cases.back().message);
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

// Lists every case and shape, and the shapes near each that a correctness run checks too, instantiating
// each declaration on the host (no GPU needed), so a broken declaration is an error here too, naming the
// case and shape; so is a registered shape with a dimension the case never asks for (its label would name a
// shape that is not what ran).
inline int run_list(program_run& run, const run_options& options) {
  for (const case_registration& reg : registered_cases()) {
    std::vector<std::pair<kbench::shape, std::string>> listed;
    for (const kbench::shape& s : run_shapes(reg, options)) {
      listed.emplace_back(s, "");
      for (const kbench::shape& near : nearby_run_shapes(run, reg, s, options)) {
        listed.emplace_back(near, " (near " + s.to_string() + ")");
      }
    }
    for (const auto& [s, near] : listed) {
      const host_declaration* declared = nullptr;
      try {
        declared = &declared_with_every_dimension(run, reg, s);
      } catch (const usage_error& e) {
        throw usage_error(case_label(reg.name(), s) + near + ": " + e.what());
      }
      std::string buffers;
      for (const declared_buffer& b : declared->buffers) {
        const char* role = role_name(b.role);
        const std::string array = b.sized_when_opened ? fmt::format("{} [sized on the GPU]", info(b.type).name)
                                                      : describe_array(b.type, b.extents);
        buffers += fmt::format("{}{} {} {}{}", buffers.empty() ? "" : ", ", role, b.name, array,
                               b.pitch ? fmt::format(" (rows {} apart)", b.pitch) : std::string());
      }
      fmt::print("{}{}: {}\n", case_label(reg.name(), s), near, buffers);
    }
  }
  return 0;
}

// Shapes given at run time (--shape, --axis) are checked before anything runs: each must reach some case,
// and every case must accept every shape it is given, asking for each of its dimensions.
inline void check_run_shapes(program_run& run, const run_options& options) {
  if (options.shapes.empty()) return;
  std::size_t runs = 0;
  std::vector<bool> axis_used(options.shapes.axes.size(), false);
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : run_shapes(reg, options)) {
      (void)declared_with_every_dimension(run, reg, s);
      ++runs;
      for (std::size_t a = 0; a < options.shapes.axes.size(); ++a) axis_used[a] = axis_used[a] || s.has(options.shapes.axes[a].name);
    }
  }
  for (std::size_t a = 0; a < axis_used.size(); ++a) {
    if (!axis_used[a]) throw usage_error("--axis " + options.shapes.axes[a].name + ": no case of this program has that dimension");
  }
  if (runs == 0) {
    std::string asked;
    for (const kbench::shape& s : options.shapes.shapes) asked += (asked.empty() ? "" : ", ") + s.to_string();
    throw usage_error("--shape " + asked + ": no case of this program has shapes with those dimensions, or whose dimension rules "
                      "allow them (see `list`)");
  }
}

// `<program> census`: a check with one seed, then the census of each side, printed.
class census_mode : public case_mode {
 public:
  explicit census_mode(const run_options& options) : options_(options) {}

  // Once per program, and not part of any case's wall time.
  void prepare(const gpu_info&) override { (void)built_resources(); }

  case_work run(opened_case& instance, const gpu_info& g, const case_record& started) override {
    case_work work;
    const seed_result& checked = work.checks.emplace_back(instance.check(seeds_for_run(options_).front(), true));
    if (!checked.passed()) {
      std::fputs(format_seed_result(started.case_name, started.shape, checked).c_str(), stdout);
      return work;  // a wrong kernel's census is never taken
    }
    work.census = instance.census(options_, g, built_resources());
    std::fputs(format_census(case_label(started.case_name, started.shape), *work.census).c_str(), stdout);
    return work;
  }

 private:
  const run_options& options_;
};

inline int run_census(program_run& run, const char* program, const run_options& options) {
  begin_tests(run, count_tests(options));
  census_mode mode(options);
  for (const case_registration& reg : registered_cases()) {
    for (const kbench::shape& s : run_shapes(reg, options)) (void)run_case_at_shape(run, reg, s, options, mode);
  }
  for (const case_record& c : run.results.cases) std::fputs(format_case_outcome(c).c_str(), stdout);
  return finish(run, program, options, 0);
}

// Names registered twice make reports ambiguous; a dimension rule that a registered shape breaks, or that
// names no dimension of the case, is a mistake of the registration.
inline void check_registry() {
  if (registered_cases().empty()) throw usage_error("no case is registered in this program (KBENCH_REGISTER)");
  std::set<std::string> names;
  for (const case_registration& reg : registered_cases()) {
    if (!names.insert(reg.name()).second) throw usage_error("case '" + reg.name() + "' is registered twice");
    check_dimension_rules(reg.name(), reg.shapes(), reg.dimension_rules());
  }
}

// The program, told whether it runs as a supervised child: a parent (not supervised) of a mode that runs
// cases starts the child and ends as supervisor.hpp judges it. `run` gets the run's results.
inline int run_program(program_run& run, int argc, char** argv, bool supervised) {
  try {
    run_options options = parse_command_line(argc, argv);
    if (options.help) {
      std::fputs(options.help_text.c_str(), stdout);
      std::fflush(stdout);
      if (options.mode == run_mode::list) return 0;
      std::printf("\n%s options:\n", options.mode == run_mode::perf ? "Google Benchmark" : "Catch2");
      std::fflush(stdout);
      return options.mode == run_mode::perf ? run_perf(run, argv[0], options)
                                            : run_correctness(run, argv[0], options);
    }
    check_registry();
    check_run_shapes(run, options);
    if (!options.baseline_path.empty()) (void)load_results(options.baseline_path);  // a bad file fails now, not after the run
    const bool runs_cases = options.mode != run_mode::list && options.mode != run_mode::resources;
    if (!supervised && can_supervise && runs_cases) {
      const std::string json_file = options.json_path.empty() ? "" : json_document_path(options.json_path, options.mode, argv[0]);
      // A run that one process could not finish: its tables and baseline comparison come from every
      // process's records (its exit status already fails).
      return supervise(argv, json_file, options.mode, [&options](const run_record& records) {
        (void)write_tables_and_compare(options.mode, records, options);
      });
    }
    run_record& results = run.results;
    results.kbench_version = version;
    results.compiler = gpu_compiler();
    results.optimized_build = gpu_code_optimized();
    results.warmup = options.warmup;
    results.warmup_time = options.warmup_time;
    results.iterations = options.iterations;
    results.mode = options.mode;
    results.quick = options.quick;
    switch (options.mode) {
      case run_mode::correctness: return run_correctness(run, argv[0], options);
      case run_mode::perf: return run_perf(run, argv[0], options);
      case run_mode::census: return run_census(run, argv[0], options);
      case run_mode::list: return run_list(run, options);
      case run_mode::resources: return run_resources_mode(run, argv[0], options);
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

}  // namespace detail

int run_main(int argc, char** argv) {
  // Before anything runs: a supervised child takes its channel out of the environment.
  const detail::completion_channel& channel = detail::child_channel();
  detail::read_arguments_from_files();
  detail::program_run run;  // the run's results, owned here: every mode is handed them
  if (channel.supervised()) run.case_writers.add<detail::parent_record_sender>();
  const int status = detail::run_program(run, argc, argv, channel.supervised());
  // After the results files: the parent now knows the run finished, and has its document but the cases.
  channel.completed(status, channel.supervised() ? detail::json_line(run_document(run.results)) : "");
  return status;
}

}  // namespace kbench
