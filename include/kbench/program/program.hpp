// kbench/program/program.hpp: what the parts of a kbench program share: the run (its results, its progress
// line, the declarations read), the shapes a case runs at, and the entry points of each mode. HIP-free;
// the modes are defined in catch2_adapter.hpp (correctness), benchmark_adapter.hpp (perf) and
// program_main.hpp (list, main), each compiled once per program.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "../contract/registered_cases.hpp"
#include "../contract/registry.hpp"
#include "../decisions/nearby_shapes.hpp"
#include "../decisions/sweep.hpp"
#include "../procedure.hpp"
#include "../results/kernel_resources.hpp"
#include "../reports/report.hpp"
#include "../reports/reporter.hpp"
#include "../results/results.hpp"
#include "completion_channel.hpp"

namespace kbench {
namespace detail {

inline constexpr int exit_skipped = 77;

// Progress of a long run, on a terminal: a line as each case starts (which, how far, an estimate of what
// is left). Silent when standard error is not a terminal, so logs stay as they were, or with
// KBENCH_PROGRESS=0.
class progress_line {
 public:
  // `total`: the cases and shapes the run reaches.
  void begin(std::size_t total) {
    const char* setting = std::getenv("KBENCH_PROGRESS");
    shown_ = isatty(fileno(stderr)) && !(setting && std::string(setting) == "0");
    total_ = total;
    start_ = std::chrono::steady_clock::now();
  }
  void end() const {
    if (shown_) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      fmt::print(stderr, "kbench [done, {:.0f} s]\n", elapsed);
    }
  }
  // A test (a declared shape: those near it run inside its test) starts.
  void starting(const std::string& label) {
    ++started_;
    if (!shown_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string estimate;
    if (started_ > 1) {
      estimate = fmt::format(", about {:.0f} s left",
                             elapsed / static_cast<double>(started_ - 1) * static_cast<double>(total_ - started_ + 1));
    }
    fmt::print(stderr, "kbench [{} of {}, {:.0f} s{}] {}\n", started_, total_, elapsed, estimate, label);
  }

 private:
  bool shown_ = false;
  std::size_t total_ = 0;
  std::size_t started_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// Each case's declaration at each shape, read on the host the first time it is asked for and kept for the
// rest of the run: every host-side question (the filters, the shapes around a declared one, the digest's
// lines, the resource bounds, `list`) is a look-up.
class host_declarations {
 public:
  [[nodiscard]] const host_declaration& of(const case_registration& reg, const kbench::shape& s) {
    const std::string key = case_label(reg.name(), s);
    auto it = read_.find(key);
    if (it == read_.end()) it = read_.emplace(key, declare_on_host(reg, s)).first;
    return it->second;
  }

 private:
  std::map<std::string, host_declaration> read_;
};

// A case's record as one line of JSON (program_main.hpp), for the parent (completion_channel.hpp).
std::string case_json_line(const case_record& record);

// The writer a supervising parent reads: each case's record, as the case ends, down the channel
// (completion_channel.hpp); the parent writes the run's files when a child did not finish it.
class parent_record_sender : public reporter {
 public:
  void case_ended(const case_record& record) override {
    try {
      child_channel().finished(case_json_line(record));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kbench: the record of %s could not be sent to the supervising process: %s\n",
                   record.case_name.c_str(), e.what());
    }
  }
  void run_ended(const run_record&) override {}
};

// One run of a program, owned by run_main() and handed to every mode: the results of every case as each
// ended (the exit status, the summary and every results file come from them), the writers told of each
// case as it ends, the progress line, and the declarations read so far.
struct program_run {
  run_record results;
  reporter_list case_writers;  // a supervised child's parent_record_sender
  progress_line progress;
  host_declarations declarations;
  bool perf_header_printed = false;  // the device's ceilings, printed above the first case's figures
};

// The declaration of a case at a shape that a user named (`list`, --shape): a dimension of the shape the case
// never asks for is an error, since the label would name a shape that is not what ran.
inline const host_declaration& declared_with_every_dimension(program_run& run, const case_registration& reg,
                                                             const kbench::shape& s) {
  const host_declaration& declared = run.declarations.of(reg, s);
  for (const std::string& d : declared.unasked_dimensions) {
    throw usage_error("case '" + reg.name() + "' never asks for dimension '" + d + "' of shape {" + s.to_string() + "}");
  }
  return declared;
}

// The GPU for a case, or null when none is usable (then `why` says why); probed here, inside the test
// (never before: a missing GPU skips each test, it does not abort the program). The run records it.
inline const gpu_info* usable_gpu(program_run& run, const run_options& options, std::string& why) {
  const gpu_info& g = open_gpu(options.device);
  run.results.device = g;
  run.results.device.assigned_by = options.device_source;
  if (g.usable) return &g;
  why = g.reason;
  return nullptr;
}

// Why --device-count or --max-elements leaves this shape out ("" when they do not).
inline std::string filtered_because(program_run& run, const case_registration& reg, const kbench::shape& s,
                                    const run_options& options) {
  const host_declaration& declared = run.declarations.of(reg, s);
  if (options.device_count > 0 && declared.device_count != options.device_count) {
    return fmt::format("spans {} GPU{}, not --device-count {}", declared.device_count,
                       declared.device_count == 1 ? "" : "s", options.device_count);
  }
  if (options.max_elements > 0 && declared.elements() > options.max_elements) {
    return fmt::format("{:.0f} elements, more than --max-elements {:.0f}", declared.elements(), options.max_elements);
  }
  return {};
}

// The shapes a case runs at in this run: its registered ones, or what --shape and --axis ask for, less those
// its dimension rules rule out (a shape that reproduces one case's failure may be none of another's).
// A test that an earlier process of this run started (supervisor.hpp: one whose case ended that process)
// does not run again.
inline std::vector<kbench::shape> run_shapes(const case_registration& reg, const run_options& options) {
  std::vector<kbench::shape> shapes = shapes_to_run(reg.shapes(), options.shapes);
  const auto ruled_out = [&](const kbench::shape& s) {
    return broken_rule(reg.dimension_rules(), s) != nullptr || child_channel().ran_before(case_label(reg.name(), s));
  };
  shapes.erase(std::remove_if(shapes.begin(), shapes.end(), ruled_out), shapes.end());
  return shapes;
}

// What the choices around a case's declared shapes need: each one's facts, read on the host, and the
// position of `s` among them (facts.size() when `s` is not declared).
struct declared_shapes {
  std::vector<declared_shape_facts> facts;
  std::size_t index = 0;
};
inline declared_shapes declared_shapes_of(program_run& run, const case_registration& reg, const kbench::shape& s) {
  declared_shapes d;
  for (const kbench::shape& shape : reg.shapes()) d.facts.push_back(run.declarations.of(reg, shape).facts);
  for (d.index = 0; d.index < d.facts.size(); ++d.index) {
    if (d.facts[d.index].shape.to_string() == s.to_string()) break;
  }
  return d;
}

// The shapes near declared shape `s` that its correctness test checks too (decisions/nearby_shapes.hpp):
// none with --quick, none when shapes are chosen at run time (--shape, --axis: a run of exactly those; a
// neighbour's own reproducer is such a run), none for a case that opts out.
inline std::vector<kbench::shape> nearby_run_shapes(program_run& run, const case_registration& reg,
                                                    const kbench::shape& s, const run_options& options) {
  if (options.quick || !options.shapes.empty() || !reg.runs_nearby_shapes()) return {};
  const declared_shapes d = declared_shapes_of(run, reg, s);
  if (d.index == d.facts.size()) return {};
  return nearby_shapes(d.facts, d.index, reg.dimension_rules());
}

// Whether declared shape `s` runs the extended checks (every misalignment, the edges) beyond
// small_case_elements: the case's smallest declared shape when none of its shapes is small, so that no case
// goes without them.
inline bool extended_at_any_size(program_run& run, const case_registration& reg, const kbench::shape& s) {
  const declared_shapes d = declared_shapes_of(run, reg, s);
  if (d.index == d.facts.size()) return false;
  const std::size_t smallest = smallest_declared(d.facts);
  return d.index == smallest && d.facts[smallest].elements > small_case_elements;
}

// The case-and-shape tests this run holds, before a framework's filter.
inline std::size_t count_tests(const run_options& options) {
  std::size_t n = 0;
  for (const case_registration& reg : registered_cases()) n += run_shapes(reg, options).size();
  return n;
}

// The run's tests begin: the progress line and a supervising parent learn how many run (as the
// framework's filter leaves them).
inline void begin_tests(program_run& run, std::size_t tests) {
  run.progress.begin(tests);
  child_channel().planned(tests);
}

inline std::vector<char*> argv_for(const char* program, std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(program)};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// The modes, each defined once per program. `finish` turns the run's results into the exit status (and
// the results files): failures first, then a run in which nothing ran, then skips.
int run_correctness(program_run& run, const char* program, run_options& options);
int run_perf(program_run& run, const char* program, run_options& options);
int run_resources_mode(program_run& run, const char* program, const run_options& options);
int finish(program_run& run, const char* program, const run_options& options, int framework_status);
// The build's figures, which the census shows beside the runtime's (resource_listing.hpp), defined with
// `<program> resources` in a translation unit of its own (resources_mode.hpp), so that neither main()'s nor
// the perf adapter's compiles the code-object reader too (4 s of g++ each). The program is read once, by the
// first call of built_resources(): the modes that take a census call it before their first case, so that no
// case's wall time holds it; a code object file that a case declares is read at the first call after (a
// file of a few KiB).
const built_listing& built_resources();
// Kernels launched by name are checked against the parameters their file records where the platform cannot
// read them from the loaded code object (AMD): the reader of those records, installed (resources_mode.hpp,
// beside the other readers of code object files).
void read_arguments_from_files();

}  // namespace detail

// main() of a kbench program: `<program> correctness|perf|list [options]` (program_main.hpp).
int run_main(int argc, char** argv);

}  // namespace kbench
