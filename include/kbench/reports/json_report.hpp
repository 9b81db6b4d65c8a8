// kbench/reports/json_report.hpp: a run as JSON, for pipelines that read results instead of scraping text.
// Written by `<program> correctness|perf --json <path>` (or KBENCH_JSON=<path>); HIP-free, opt-in (nlohmann/json).
//
// Schema "kbench-results/1": schema/kbench-results-1.schema.json (JSON Schema 2020-12) says every key, type and
// value, and is the reference; the tests validate every document kbench writes against it (the host's and a
// program's own in each mode: tests/CMakeLists.txt; a GPU run's: scripts/run.sh), so a key changed here without
// the schema fails them. In short: every key is always present; numbers not finite are "inf", "-inf" or "nan";
// absent values are null; the mode is "correctness", "perf" or "census"; a case holds its checks, its timing
// (perf) and its census (perf and census runs).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "../contract/error.hpp"
#include "../results/case_digest.hpp"
#include "../results/results.hpp"
#include "physics_json.hpp"
#include "reporter.hpp"

namespace kbench {
namespace detail {

inline json to_json(const tolerance& t) {
  json rules = json::array();
  for (const element_rule& r : t.element_rules) {
    const char* kind = r.rule == element_rule::kind::exact ? "exact" : r.rule == element_rule::kind::within ? "within" : "ulp";
    rules.push_back({{"kind", kind}, {"atol", number(r.atol)}, {"rtol", number(r.rtol)}, {"max_ulps", r.max_ulps}});
  }
  return {{"description", t.description},       {"element_rules", rules},
          {"equal_nan", t.equal_nan},           {"max_mismatch_fraction", number(t.max_mismatch_fraction)},
          {"min_cosine", optional_number(t.min_cosine)}, {"max_relative_l2", optional_number(t.max_relative_l2)},
          {"slack_bound", number(t.slack_bound)},       {"slack_may_cluster", t.slack_may_cluster}};
}

// The audit of what max_mismatch let through; null when it let nothing through.
inline json to_json(const std::optional<slack_audit>& audit) {
  if (!audit) return nullptr;
  const slack_audit& s = *audit;
  json clusters = json::array();
  for (const mismatch_cluster& c : s.clusters) {
    clusters.push_back({{"where", c.where}, {"first_index", c.first_index}, {"mismatches", c.mismatches},
                        {"elements", c.elements}, {"threshold", c.threshold}});
  }
  return {{"let_through", s.let_through},           {"bound", number(s.bound)},
          {"worst_multiple", number(s.worst_multiple)}, {"worst_index", s.worst_index},
          {"beyond_bound", s.beyond_bound},         {"first_beyond_bound", s.first_beyond_bound},
          {"clustered_places", s.clustered_places}, {"false_alarm", number(s.false_alarm)},
          {"clusters", clusters}};
}

// The audit of the errors' signs; null where it did not run (an integer output, or one that failed first).
inline json to_json(const std::optional<bias_audit>& audit) {
  if (!audit) return nullptr;
  const bias_audit& b = *audit;
  return {{"groups", b.groups},           {"allowance", number(b.allowance)},         {"worst_where", b.worst_where},
          {"worst_scale", b.worst_scale}, {"worst_bias", number(b.worst_bias)}, {"worst_allowed", number(b.worst_allowed)}, {"worst_ratio", number(b.worst_ratio)}};
}

inline json to_json(const output_result& o) {
  const comparison& r = o.result;
  json mismatches = json::array();
  for (const mismatch& m : r.first_mismatches) {
    mismatches.push_back({{"index", m.index}, {"actual", number(m.actual)}, {"expected", number(m.expected)},
                          {"abs_error", number(m.abs_error)}, {"rel_error", number(m.rel_error)},
                          {"never_written", m.never_written}});
  }
  return {{"name", o.name},
          {"dtype", std::string(info(o.type).name)},
          {"extents", o.extents},
          {"passed", r.passed},
          {"reasons", r.reasons},
          {"tolerance", to_json(r.applied)},
          {"metrics",
           {{"size", r.size}, {"mismatches", r.mismatches}, {"allowed_mismatches", r.allowed_mismatches},
            {"never_written", r.never_written}, {"nonfinite_mismatches", r.nonfinite_mismatches},
            {"nan_in_expected", r.nan_in_expected}, {"nan_in_actual", r.nan_in_actual},
            {"max_abs_error", number(r.max_abs_error)}, {"max_abs_index", r.max_abs_index},
            {"max_rel_error", number(r.max_rel_error)}, {"max_rel_index", r.max_rel_index},
            {"cosine_similarity", number(r.cosine_similarity)}, {"relative_l2_error", number(r.relative_l2_error)},
            {"ulps_equal", r.ulps_equal}, {"ulps_one", r.ulps_one}, {"ulps_two", r.ulps_two}, {"max_ulps", r.max_ulps},
            {"allowed_at_max_abs", number(r.allowed_at_max_abs)}}},
          {"first_mismatches", mismatches},
          {"slack", to_json(r.slack)},
          {"bias", to_json(r.bias)},
          {"oracle", o.oracle ? json{{"reference_inexact", number(o.oracle->reference_inexact)},
                                     {"optimized_inexact", number(o.oracle->optimized_inexact)},
                                     {"reference_max_ulps", o.oracle->reference_max_ulps},
                                     {"optimized_max_ulps", o.oracle->optimized_max_ulps},
                                     {"allowed_inexact", number(o.oracle->allowed_inexact)}}
                              : json(nullptr)}};
}

inline std::string hex(std::uint64_t v) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(v));
  return buffer;
}

// The findings of one step of the procedure, each with that step as its source.
inline json to_json(const std::vector<finding>& findings, finding_source source) {
  json all = json::array();
  for (const finding& f : findings) {
    all.push_back({{"kind", std::string(to_string(f.kind))}, {"text", f.text}, {"source", std::string(to_string(source))}});
  }
  return all;
}

inline json stage_seconds_of(const stage_times& stages) {  // {"first check": 0.05, ...}
  json seconds = json::object();
  for (const auto& [name, value] : stages) seconds[name] = number(value);
  return seconds;
}

inline json to_json(const seed_result& s) {
  json outputs = json::array();
  for (const output_result& o : s.outputs) outputs.push_back(to_json(o));
  json host = nullptr;
  if (s.host_reference) {
    const host_run& h = *s.host_reference;
    host = {{"input_bytes", number(h.input_bytes)}, {"transfer_seconds", number(h.transfer_seconds)}, {"compute_seconds", number(h.compute_seconds)}};
  }
  return {{"seed", hex(s.seed)}, {"passed", s.passed()}, {"problems", texts(s.problems)}, {"findings", to_json(s.problems, finding_source::check)},
          {"outputs", outputs}, {"host_reference", host}, {"edge_runs", s.edge_runs}, {"spike_runs", s.spike_runs},
          {"stage_seconds", stage_seconds_of(s.stage_seconds)}};
}

// A rate, or null where the case declares none of that work.
inline json rate(double per_launch, double per_second) { return per_launch > 0 ? number(per_second) : json(nullptr); }

// The optimized kernel's throughput (json_report's "throughput"), as judge_timing computed it.
inline json throughput_json(const timing_result& t) {
  const work_rates& o = t.throughput.optimized;
  return {{"bytes_per_second", rate(t.work.bytes, o.bytes_per_second)},
          {"flops_per_second", rate(t.work.flops, o.flops_per_second)},
          {"tokens_per_second", rate(t.work.tokens, o.tokens_per_second)},
          {"link_bytes_per_second", rate(t.work.link_bytes, o.link_bytes_per_second)},
          {"fraction_of_copy_bandwidth", o.fraction_of_copy ? number(*o.fraction_of_copy) : json(nullptr)}};
}

// The time saved (json_report's "time_saved"), as judge_timing computed it: null without a device reference,
// and per layer or per token null where the case declares no count of calls.
inline json time_saved_json(const std::optional<time_saved>& saved) {
  if (!saved) return nullptr;
  auto figure = [](const saved_seconds& s) {
    return json{{"seconds", number(s.seconds)}, {"low", number(s.ci.low)}, {"high", number(s.ci.high)}};
  };
  auto scaled = [&figure](const std::optional<saved_seconds>& s) { return s ? figure(*s) : json(nullptr); };
  return {{"per_call", figure(saved->per_call)}, {"per_layer", scaled(saved->per_layer)}, {"per_token", scaled(saved->per_token)}};
}

// A timing, with the host seconds of each step of the perf procedure (`stages`) as its "stage_seconds".
inline json to_json(const timing_result& t, const stage_times& stages) {
  return {{"mode", std::string(to_string(t.mode))},
          {"method", t.method},
          {"launches_per_sample", t.launches_per_sample},
          {"warmup", t.warmup},
          {"input_sets", t.input_sets}, {"input_sets_wanted", t.input_sets_wanted},
          {"input_set_bytes", number(t.input_set_bytes)},
          {"launch_checks", {{"launches_timed", t.checks.timed},
                      {"launches_checked", t.checks.checked},
                      {"smallest_share_caught", t.checks.checked > 0 ? number(t.checks.smallest_share_caught) : json(nullptr)},
                      {"limit", t.checks.limit}}},
          {"optimized", to_json(t.optimized)},
          {"reference", t.reference ? to_json(*t.reference) : json(nullptr)},
          {"samples", {{"optimized", samples(t.optimized_samples)},
                       {"reference", t.reference ? samples(t.reference_samples) : json(nullptr)}}},
          {"precision_target", number(t.precision_target)},
          {"optimized_precision", number(t.optimized_precision)},
          {"reference_precision", number(t.reference_precision)},
          {"precise", t.precise},
          {"speedup", number(t.speedup)},
          {"speedup_interval", {{"low", number(t.speedup_interval.low)}, {"high", number(t.speedup_interval.high)}}},
          {"verdict", std::string(to_string(t.verdict))},
          {"idle_wait", number(t.idle_wait)},
          {"single_launch", number(t.single_launch)},
          {"fresh_launch", number(t.fresh_launch)},
          {"seen_launch", number(t.seen_launch)},
          {"latency", number(t.latency)},
          {"hot_latency", number(t.hot_latency)},
          {"launch_wall", number(t.launch_wall)},
          {"launch_call", number(t.launch_call)},
          {"saturated_call", number(t.saturated_call)},
          {"saturation", number(t.saturation)},
          {"graph_operations", {{"reference", t.reference_graph_operations}, {"optimized", t.optimized_graph_operations}}},
          {"expectations",
           {{"required_speedup", number(t.expectations.required_speedup)},
            {"required_bandwidth", number(t.expectations.required_bandwidth)},
            {"max_plausible_speedup", number(t.expectations.max_plausible_speedup)},
            {"speedup_limit_declared", t.expectations.speedup_limit_declared}}},
          {"work",
           {{"bytes", number(t.work.bytes)},
            {"flops", number(t.work.flops)},
            {"flop_type", std::string(info(t.work.flop_type).name)},
            {"matrix_units", t.work.matrix_units},
            {"tokens", number(t.work.tokens)},
            {"link_bytes", number(t.work.link_bytes)},
            {"calls_per_layer", number(t.work.calls_per_layer)},
            {"calls_per_token", number(t.work.calls_per_token)}}},
          {"throughput", throughput_json(t)},
          {"time_saved", time_saved_json(t.saved)},
          {"roofline", roofline_json(t.roofline)},
          {"clocks", clocks_json(t.clocks, t.reference.has_value())},
          {"flags", texts(t.findings)},
          {"notes", texts(t.findings, false)},
          {"findings", to_json(t.findings, finding_source::timing)},
          {"stage_seconds", stage_seconds_of(stages)}};
}

inline json optional_figure(double v) { return v < 0 ? json(nullptr) : number(v); }

inline json to_json(const census_side& side) {
  json kernels = json::array();
  for (const census_kernel& k : side.kernels) {
    kernels.push_back({{"name", k.name},
                       {"symbol", k.symbol},
                       {"grid", {k.grid[0], k.grid[1], k.grid[2]}},
                       {"block", {k.block[0], k.block[1], k.block[2]}},
                       {"dynamic_shared_bytes", k.dynamic_shared_bytes},
                       {"registers", k.registers < 0 ? json(nullptr) : json(k.registers)},
                       {"static_shared_bytes", k.static_shared_bytes < 0 ? json(nullptr) : json(k.static_shared_bytes)},
                       {"local_bytes", k.local_bytes < 0 ? json(nullptr) : json(k.local_bytes)},
                       {"max_threads_per_block", k.max_threads_per_block < 0 ? json(nullptr) : json(k.max_threads_per_block)},
                       {"built_registers", k.built_registers < 0 ? json(nullptr) : json(k.built_registers)},
                       {"built_static_shared_bytes",
                        k.built_static_shared_bytes < 0 ? json(nullptr) : json(k.built_static_shared_bytes)},
                       {"built_local_bytes", k.built_local_bytes < 0 ? json(nullptr) : json(k.built_local_bytes)},
                       {"blocks_per_unit", k.blocks_per_unit < 0 ? json(nullptr) : json(k.blocks_per_unit)},
                       {"waves_per_unit", k.waves_per_unit < 0 ? json(nullptr) : json(k.waves_per_unit)},
                       {"waves_per_simd", optional_figure(k.waves_per_simd)},
                       {"occupancy", optional_figure(k.occupancy)},
                       {"median_seconds", optional_figure(k.median_seconds)},
                       {"in_side_seconds", optional_figure(k.in_side_seconds)}});
  }
  return {{"captured", side.captured},      {"reason", side.reason},
          {"kernels", kernels},             {"copies", side.copies},
          {"memsets", side.memsets},        {"other", side.other},
          {"copies_seconds", optional_figure(side.copies_seconds)},
          {"parts_seconds", number(side.parts_seconds())},
          {"whole_seconds", optional_figure(side.whole_seconds)}};
}

// The declaration's lines and their digest (null when they could not be read), and the digest of each
// side's kernels as its census saw them (null without a census: correctness runs).
inline json declaration_json(const case_record& c) {
  if (c.declaration.empty()) return nullptr;
  return {{"digest", digest_of_lines(c.declaration)}, {"lines", c.declaration}};
}

inline json kernels_digest_json(const case_record& c) {
  if (!c.census) return nullptr;
  auto digest = [](const std::optional<std::string>& d) { return d ? json(*d) : json(nullptr); };
  return {{"reference", digest(kernels_digest(c.census->reference))}, {"optimized", digest(kernels_digest(c.census->optimized))}};
}

inline json to_json(const case_census& c) {
  return {{"platform", c.platform},
          {"profiler_launches", c.profiler_launches},
          {"profiler_ranges", c.profiler_ranges},
          {"reference", c.reference ? to_json(*c.reference) : json(nullptr)},
          {"optimized", to_json(c.optimized)},
          {"findings", to_json(c.findings, finding_source::census)}};
}

// One case's record as the document's "cases" hold it (a supervised child also sends each to its parent
// as it finishes: program/completion_channel.hpp).
inline nlohmann::ordered_json case_json(const case_record& c) {
  auto shape_json = [](const kbench::shape& s) {
    json dims = json::object();
    for (const auto& d : s.dims()) dims[d.first] = d.second;
    return dims;
  };
  json checks = json::array();
  for (const seed_result& s : c.checks) checks.push_back(to_json(s));
  json record = {{"case", c.case_name},
                 {"shape", shape_json(c.shape)},
                 {"near_shape", c.near_shape ? shape_json(*c.near_shape) : json(nullptr)},
                 {"verdict", std::string(to_string(c.verdict))},
                 {"message", c.message},
                 {"checks", checks},
                 {"wall_seconds", number(c.wall_seconds)},
                 {"devices", c.devices},
                 {"devices_shared", c.devices_shared},
                 {"peer_access", c.peer_access},
                 {"timing", c.timing ? to_json(*c.timing, c.stage_seconds) : json(nullptr)},
                 {"census", c.census ? to_json(*c.census) : json(nullptr)},
                 {"declaration", declaration_json(c)},
                 {"kernels_digest", kernels_digest_json(c)}};
  if (!c.shape.parameters().empty()) {  // only where the case has some: older documents and readers hold
    json params = json::object();
    for (const auto& p : c.shape.parameters()) params[p.first] = p.second;
    record["parameters"] = params;
  }
  return record;
}

}  // namespace detail

// The run's document without its cases ("cases" empty): what a supervised child sends its parent at its
// end, having sent each case as it finished (program/completion_channel.hpp).
[[nodiscard]] inline nlohmann::ordered_json run_document(const run_record& run) {
  using detail::json;
  using detail::number;
  const gpu_info& g = run.device;
  json copy = nullptr;
  if (run.copy) {
    copy = {{"bytes_per_second", number(run.copy->bytes_per_second)},
            {"read_bytes_per_second", number(run.copy->read_bytes_per_second)},
            {"buffer_bytes", run.copy->buffer_bytes},
            {"seconds", detail::to_json(run.copy->seconds)}};
  }
  json peaks = json::array();
  for (const compute_peak& p : run.compute_peaks) {
    peaks.push_back({{"type", std::string(info(p.type).name)}, {"flops_per_second", number(p.flops_per_second)}, {"how", p.how}});
  }
  return {
      {"schema", "kbench-results/1"},
      {"kbench_version", run.kbench_version},
      {"mode", std::string(to_string(run.mode))},
      // The program wrote this document after its last case; a supervising parent that saw it end
      // early writes false, with the reason (program/supervisor.hpp).
      {"complete", run.complete},
      {"incomplete_reason", run.incomplete_reason ? json(*run.incomplete_reason) : json(nullptr)},
      {"compiler", run.compiler},
      {"optimized_build", run.optimized_build},
      {"device",
       {{"usable", g.usable}, {"reason", g.reason}, {"ordinal", g.device}, {"assigned_by", g.assigned_by}, {"pci_bus_id", g.pci_bus_id}, {"platform", g.platform}, {"name", g.name},
        {"arch", g.arch}, {"multiprocessors", g.multiprocessors}, {"wave_size", g.wave_size},
        {"memory_bytes", number(g.memory_bytes)}, {"l2_bytes", number(g.l2_bytes)},
        {"highest_clock_hz", g.highest_clock_hz > 0 ? number(g.highest_clock_hz) : json(nullptr)},
        {"open_seconds", number(g.open_seconds)}}},
      {"options", {{"warmup", run.warmup}, {"iterations", run.iterations}, {"quick", run.quick}}},
      {"copy_bandwidth", copy},
      {"timer_floor", run.timer_floor ? json{{"events_only", number(run.timer_floor->events_only)},
                                             {"empty_kernel", number(run.timer_floor->empty_kernel)},
                                             {"empty_kernel_batch", number(run.timer_floor->empty_kernel_batch)},
                                             {"empty_launch_wall", number(run.timer_floor->empty_launch_wall)}}
                                      : json(nullptr)},
      {"compute_peaks", peaks},
      {"clock_setting", run.clock_setting ? detail::clock_setting_json(*run.clock_setting) : json(nullptr)},
      {"ceilings_seconds", number(run.ceilings_seconds)},
      {"cases", json::array()}};
}

// The run as one "kbench-results/1" document: built once per program and handed to every writer (the JSON
// file, the Markdown and CSV tables, the comparison with a baseline).
[[nodiscard]] inline nlohmann::ordered_json results_document(const run_record& run) {
  nlohmann::ordered_json document = run_document(run);
  for (const case_record& c : run.cases) document["cases"].push_back(detail::case_json(c));
  return document;
}

// The document's text, as the JSON file holds it.
[[nodiscard]] inline std::string to_json(const run_record& run) { return results_document(run).dump(2); }

// The file a run's document goes to: `path`, or, when it ends in '/' (a folder),
// <folder>/<program>.<mode>.json, so that one setting serves every test program of a ctest run.
[[nodiscard]] inline std::string json_document_path(std::string path, run_mode mode, const std::string& program) {
  if (!path.empty() && path.back() == '/') {
    const std::size_t slash = program.find_last_of('/');
    path += (slash == std::string::npos ? program : program.substr(slash + 1)) + "." + std::string(to_string(mode)) +
            ".json";
  }
  return path;
}

// Writes a run's document (results_document) to json_document_path(path); a file that cannot be written is
// an error, not a silent loss.
inline void write_json_document(const nlohmann::ordered_json& document, run_mode mode, std::string path,
                                const std::string& program) {
  path = json_document_path(std::move(path), mode, program);
  std::ofstream file(path);
  if (!file) throw error("cannot write the JSON report to '" + path + "'");
  file << document.dump(2) << '\n';
  if (!file) throw error("writing the JSON report to '" + path + "' failed");
}

inline void write_json(const run_record& run, std::string path, const std::string& program = "kbench") {
  write_json_document(results_document(run), run.mode, std::move(path), program);
}

// The run's document, to the file json_document_path(path) names when the run ends (--json).
class json_file_reporter : public reporter {
 public:
  json_file_reporter(std::string path, std::string program) : path_(std::move(path)), program_(std::move(program)) {}
  void run_ended(const run_record& run) override { write_json(run, path_, program_); }

 private:
  std::string path_;
  std::string program_;
};

}  // namespace kbench
