// kbench/program/program.hpp: what the parts of a kbench program share: the journal of every result, the
// records of a case's test, and the entry points of each mode. HIP-free; the modes are defined in
// catch2_adapter.hpp (correctness), benchmark_adapter.hpp (perf) and program_main.hpp (list, main), each
// compiled once per program.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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
#include "../results/report.hpp"
#include "../results/results.hpp"
#include "completion_channel.hpp"
#include "options.hpp"

namespace kbench {
namespace detail {

inline constexpr int exit_skipped = 77;

// Everything this program run found; the exit status, the summary and the JSON file come from it.
inline run_record& journal() {
  static run_record run;
  return run;
}

// Records the case as skipped when no GPU is usable; the GPU is probed here, inside the test (never
// before: a missing GPU skips each test, it does not abort the program).
inline const gpu_info* gpu_or_skip(const run_options& options, case_record& record) {
  const gpu_info& g = open_gpu(options.device);
  journal().device = g;
  journal().device.assigned_by = options.device_source;
  if (g.usable) return &g;
  record.verdict = case_verdict::skipped;
  record.message = g.reason;
  return nullptr;
}

// The case at a shape on its GPUs, or null (recorded as skipped, with the reason) when it spans more GPUs
// than this machine shows.
inline std::unique_ptr<case_run> open_case(const case_registration& reg, const kbench::shape& s,
                                           const run_options& options, case_record& record) {
  try {
    auto run = std::make_unique<case_run>(reg, s, options);
    record.devices = run->devices();
    record.devices_shared = run->devices_shared();
    record.peer_access = run->peer_access();
    return run;
  } catch (const skipped_case& e) {
    record.verdict = case_verdict::skipped;
    record.message = e.what();
    return nullptr;
  }
}

// Records the wall time of a case's test, however it ends.
class wall_timer {
 public:
  explicit wall_timer(case_record& record) : record_(record), start_(std::chrono::steady_clock::now()) {}
  ~wall_timer() { record_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  wall_timer(const wall_timer&) = delete;
  wall_timer& operator=(const wall_timer&) = delete;

 private:
  case_record& record_;
  std::chrono::steady_clock::time_point start_;
};

// Elements in all buffers of a case at a shape, from its declaration.
inline double declared_elements(const case_registration& reg, const kbench::shape& s) {
  double total = 0.0;
  for (const declared_buffer& b : declare_on_host(reg, s)) total += static_cast<double>(b.size);
  return total;
}

// True (and recorded) when --max-elements leaves this shape out.
inline bool filtered_out(const case_registration& reg, const kbench::shape& s, const run_options& options,
                         case_record& record) {
  if (options.device_count > 0) {
    const int spans = declared_device_count(reg, s);
    if (spans != options.device_count) {
      record.verdict = case_verdict::filtered;
      record.message = fmt::format("spans {} GPU{}, not --device-count {}", spans, spans == 1 ? "" : "s", options.device_count);
      return true;
    }
  }
  if (options.max_elements <= 0) return false;
  const double elements = declared_elements(reg, s);
  if (elements <= options.max_elements) return false;
  record.verdict = case_verdict::filtered;
  record.message = fmt::format("{:.0f} elements, more than --max-elements {:.0f}", elements, options.max_elements);
  return true;
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

// The shapes near declared shape `s` that its correctness test checks too (decisions/nearby_shapes.hpp):
// none with --quick, none when shapes are chosen at run time (--shape, --axis: a run of exactly those; a
// neighbour's own reproducer is such a run), none for a case that opts out.
// What the choices around a case's declared shapes need: each one's facts, read on the host, and the
// position of `s` among them (facts.size() when `s` is not declared).
struct declared_shapes {
  std::vector<declared_shape_facts> facts;
  std::size_t index = 0;
};
inline declared_shapes declared_shapes_of(const case_registration& reg, const kbench::shape& s) {
  declared_shapes d;
  for (const kbench::shape& shape : reg.shapes()) d.facts.push_back(declared_facts(reg, shape));
  for (d.index = 0; d.index < d.facts.size(); ++d.index) {
    if (d.facts[d.index].shape.to_string() == s.to_string()) break;
  }
  return d;
}

inline std::vector<kbench::shape> nearby_run_shapes(const case_registration& reg, const kbench::shape& s,
                                                    const run_options& options) {
  if (options.quick || !options.shapes.empty() || !reg.runs_nearby_shapes()) return {};
  const declared_shapes d = declared_shapes_of(reg, s);
  if (d.index == d.facts.size()) return {};
  return nearby_shapes(d.facts, d.index, reg.dimension_rules());
}

// Whether declared shape `s` runs issue 23's additions (every misalignment, the edges) beyond
// small_case_elements: the case's smallest declared shape when none of its shapes is small, so that no case
// goes without them.
inline bool additions_at_any_size(const case_registration& reg, const kbench::shape& s) {
  const declared_shapes d = declared_shapes_of(reg, s);
  if (d.index == d.facts.size()) return false;
  const std::size_t smallest = smallest_declared(d.facts);
  return d.index == smallest && d.facts[smallest].elements > small_case_elements;
}

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
  void starting(std::size_t index, const std::string& label) const {
    if (!shown_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string estimate;
    if (index > 1) {
      estimate = fmt::format(", about {:.0f} s left", elapsed / static_cast<double>(index - 1) * static_cast<double>(total_ - index + 1));
    }
    fmt::print(stderr, "kbench [{} of {}, {:.0f} s{}] {}\n", index, total_, elapsed, estimate, label);
  }

 private:
  bool shown_ = false;
  std::size_t total_ = 0;
  std::chrono::steady_clock::time_point start_;
};

inline progress_line& progress() {
  static progress_line line;
  return line;
}

// The case-and-shape tests this run holds, before a framework's filter.
inline std::size_t count_tests(const run_options& options) {
  std::size_t n = 0;
  for (const case_registration& reg : registered_cases()) n += run_shapes(reg, options).size();
  return n;
}

// The run's tests begin: the progress line and a supervising parent learn how many run (as the
// framework's filter leaves them).
inline void begin_tests(std::size_t tests) {
  progress().begin(tests);
  child_channel().planned(tests);
}

// A case's record as one line of JSON (program_main.hpp), for the parent (completion_channel.hpp).
std::string case_json_line(const case_record& record);

// A shape near a declared one (`near`) runs inside the declared shape's test, so the progress line, which
// counts tests, does not count it.
inline case_record& new_record(const case_registration& reg, const kbench::shape& s,
                               const std::optional<kbench::shape>& near = std::nullopt) {
  case_record& r = journal().cases.emplace_back();
  r.case_name = reg.name();
  r.shape = s;
  r.near_shape = near;
  if (!near) {
    const auto tests = std::count_if(journal().cases.begin(), journal().cases.end(), [](const case_record& c) { return !c.near_shape; });
    progress().starting(static_cast<std::size_t>(tests), case_label(r.case_name, s));
  }
  if (child_channel().supervised()) child_channel().starting(case_label(r.case_name, s), case_json_line(r), near.has_value());
  return r;
}

inline std::vector<char*> argv_for(const char* program, std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(program)};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// The modes, each defined once per program. `finish` turns the journal into the exit status (and the
// JSON file): failures first, then a run in which nothing ran, then skips.
int run_correctness(const char* program, run_options& options);
int run_perf(const char* program, run_options& options);
int finish(const char* program, const run_options& options, int framework_status);
// The build's figures beside the census's (resource_listing.hpp), defined with `<program> resources`, so
// that the perf adapter's translation unit does not compile the code-object reader too (4 s of g++). The
// program is read once, by the first call of built_resources(): the modes that take a census call it
// before their first case, so that no case's wall time holds it.
struct built_listing {
  std::vector<kernel_resources> kernels;
  std::string problem;  // why the program's device code could not be read
};
const built_listing& built_resources();
void join_built_resources(case_census& c, const std::string& arch);

}  // namespace detail

// main() of a kbench program: `<program> correctness|perf|list [options]` (program_main.hpp).
int run_main(int argc, char** argv);

}  // namespace kbench
