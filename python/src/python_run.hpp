// python/src/python_run.hpp: a Python case run by kbench's procedure exactly as a C++ case is: registered
// under its name (a case_registration whose function replays the Python case, case_replay.hpp), with the
// shapes the test declares, and run through program/case_lifecycle.hpp's run_case_at_shape() with the modes
// of a kbench program: correctness (every seed, then the shapes around the declared one) and perf (check,
// time, check again). The options are a kbench program's, parsed by its own parser (program/options.hpp).
// Plain C++ for the host compiler, with neither HIP nor Python: compiled once, in python_run.cpp.
//
// A kbench program runs its cases in a supervised child, so that a case that crashes or leaves its GPU
// unusable cannot end the run unrecorded; a Python run is in the test's own process (docs/python.md).
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <kbench/program/case_lifecycle.hpp>
#include <kbench/program/options.hpp>
#include <kbench/reports/json_report.hpp>
#include <kbench/version.hpp>

#include "gpu_path.hpp"

namespace kbench {
namespace detail {
// program_main.hpp defines it for kbench's programs; the module has no program_main. A Python run is never
// a supervised child, so run_case_at_shape() never sends it; written the same way all the same.
std::string case_json_line(const case_record& record) {
  return case_json(record).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}
}  // namespace detail

namespace python {
namespace detail {

using kbench::detail::case_mode;
using kbench::detail::opened_case;
using kbench::detail::program_run;

// The Python cases whose runs are under way, by name: the replay's way from a kernel_case to its source.
struct python_sources {
  std::mutex lock;
  std::map<std::string, std::shared_ptr<python_case_source>> by_name;
};
inline python_sources& sources() {
  static python_sources held;
  return held;
}

// A source listed for the length of one run or declaration (and not after: it holds Python objects).
class listed_source {
 public:
  listed_source(std::string name, std::shared_ptr<python_case_source> source) : name_(std::move(name)) {
    const std::lock_guard<std::mutex> hold(sources().lock);
    if (!sources().by_name.emplace(name_, std::move(source)).second) {
      throw usage_error("case '" + name_ + "' is being run already: a side cannot run its own case");
    }
  }
  ~listed_source() {
    const std::lock_guard<std::mutex> hold(sources().lock);
    sources().by_name.erase(name_);
  }
  listed_source(const listed_source&) = delete;
  listed_source& operator=(const listed_source&) = delete;

 private:
  std::string name_;
};

// case_registration::shape() takes a list whose length is fixed where it is written: one of each length up
// to 12 dimensions, then each parameter with with().
template <std::size_t... I>
void add_dimensions(case_registration& r, const std::vector<kbench::shape::dimension>& d, std::index_sequence<I...>) {
  r.shape({d[I]...});
}
template <std::size_t Rank = 0>
void add_shape(case_registration& r, const kbench::shape& s) {
  if constexpr (Rank <= 12) {
    if (s.dims().size() != Rank) return add_shape<Rank + 1>(r, s);
    add_dimensions(r, s.dims(), std::make_index_sequence<Rank>{});
    for (const auto& [name, value] : s.parameters()) r.with(name, value);
  } else {
    throw usage_error("shape {" + s.to_string() + "} has more than 12 dimensions: the Python module takes up to 12");
  }
}

inline case_registration registration_of(const python_run_request& request) {
  case_registration r(request.name, &replay_python_case, "<python>", 0);
  for (const kbench::shape& s : request.shapes.empty() ? std::vector<kbench::shape>{request.shape} : request.shapes) {
    add_shape(r, s);
  }
  return r;
}

// The correctness run of catch2_adapter.hpp's correctness_mode, without Catch2: every seed, the first with
// the extended checks (at any size where `extended_at_any_size`).
class python_correctness_mode : public case_mode {
 public:
  python_correctness_mode(const run_options& options, bool extended_at_any_size)
      : options_(options), any_size_(extended_at_any_size) {}
  kbench::case_work run(opened_case& instance, const gpu_info&, const case_record&) override {
    kbench::case_work work;
    bool first = true;
    for (const std::uint64_t seed : seeds_for_run(options_)) {
      work.checks.push_back(instance.check(seed, first, first && any_size_));
      first = false;
    }
    return work;
  }

 private:
  const run_options& options_;
  bool any_size_;
};

// A shape near the declared one, checked once with the declared shape's first seed (catch2_adapter.hpp's
// nearby_mode).
class python_nearby_mode : public case_mode {
 public:
  explicit python_nearby_mode(std::uint64_t seed) : seed_(seed) {}
  kbench::case_work run(opened_case& instance, const gpu_info&, const case_record&) override {
    kbench::case_work work;
    work.checks.push_back(instance.check(seed_, false));
    return work;
  }

 private:
  std::uint64_t seed_;
};

// benchmark_adapter.hpp's perf_mode, without Google Benchmark: the device's ceilings once, then the perf
// procedure. The census has no figures of the build: the sides' kernels are Python's, not this module's.
class python_perf_mode : public case_mode {
 public:
  python_perf_mode(program_run& run, const run_options& options) : run_(run), options_(options) {}
  void prepare(const gpu_info&) override {
    const device_ceilings& ceilings = kbench::detail::device_ceilings_once();
    run_.results.copy = ceilings.copy;
    run_.results.timer_floor = ceilings.floor;
    run_.results.compute_peaks = ceilings.compute;
    run_.results.clock_setting = ceilings.clock_setting;
    run_.results.ceilings_seconds = ceilings.seconds;
  }
  kbench::case_work run(opened_case& instance, const gpu_info& g, const case_record&) override {
    kbench::case_work work;
    work.perf = instance.perf(options_, g, seeds_for_run(options_), built_);
    return work;
  }

 private:
  program_run& run_;
  const run_options& options_;
  built_listing built_;
};

inline run_options options_of(const python_run_request& request) {
  std::vector<const char*> argv{"kbench"};
  for (const std::string& a : request.arguments) argv.push_back(a.c_str());
  run_options options = parse_options(static_cast<int>(argv.size()), argv.data());
  if (options.mode != run_mode::correctness && options.mode != run_mode::perf) {
    throw usage_error("kbench.run_case runs correctness or perf, not " + std::string(to_string(options.mode)));
  }
  if (!options.passthrough.empty()) throw usage_error("kbench.run_case: unknown option '" + options.passthrough.front() + "'");
  // What a program writes or chooses for itself, a run from Python does otherwise: never ignored in silence.
  const std::pair<bool, const char*> unused[] = {
      {!options.json_path.empty() || !options.markdown_path.empty() || !options.csv_path.empty(),
       "--json, --markdown, --csv (or KBENCH_JSON, KBENCH_CSV): the Run it returns writes its document (to_json())"},
      {!options.baseline_path.empty(), "--baseline: compare the document with kbench-compare"},
      {!options.shapes.shapes.empty() || !options.shapes.axes.empty(), "--shape, --axis: give the shape to run_case"}};
  for (const auto& [given, why] : unused) {
    if (given) throw usage_error(std::string("kbench.run_case does not take ") + why);
  }
  return options;
}

}  // namespace detail

python_case_source& python_case_named(const std::string& name) {
  const std::lock_guard<std::mutex> hold(detail::sources().lock);
  const auto found = detail::sources().by_name.find(name);
  if (found == detail::sources().by_name.end()) throw error("kbench: no Python case named '" + name + "' is being run");
  return *found->second;
}

std::vector<std::string> replayed_lines(const std::shared_ptr<python_case_source>& source,
                                        const python_run_request& request) {
  const detail::listed_source listed(request.name, source);
  return kbench::detail::declare_on_host(detail::registration_of(request), request.shape).lines;
}

run_record run_python_case(const std::shared_ptr<python_case_source>& source, const python_run_request& request) {
  const run_options options = detail::options_of(request);
  const detail::listed_source listed(request.name, source);
  const case_registration registration = detail::registration_of(request);
  detail::program_run run;
  run_record& results = run.results;
  results.kbench_version = version;
  results.compiler = kbench::detail::gpu_compiler();
  results.optimized_build = kbench::detail::gpu_code_optimized();
  results.warmup = options.warmup;
  results.warmup_time = options.warmup_time;
  results.iterations = options.iterations;
  results.mode = options.mode;
  results.quick = options.quick;
  if (options.mode == run_mode::perf) {
    detail::python_perf_mode mode(run, options);
    (void)kbench::detail::run_case_at_shape(run, registration, request.shape, options, mode);
    return std::move(run.results);
  }
  detail::python_correctness_mode mode(options, kbench::detail::extended_at_any_size(run, registration, request.shape));
  const case_record& record = kbench::detail::run_case_at_shape(run, registration, request.shape, options, mode);
  if (record.checks.empty()) return std::move(run.results);  // filtered, skipped, an error: nor do its neighbours run
  for (const kbench::shape& near : kbench::detail::nearby_run_shapes(run, registration, request.shape, options)) {
    detail::python_nearby_mode nearby(record.checks.front().seed);
    (void)kbench::detail::run_case_at_shape(run, registration, near, options, nearby, request.shape);
  }
  return std::move(run.results);
}

}  // namespace python
}  // namespace kbench
