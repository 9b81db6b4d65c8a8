// kbench/reports/json_read.hpp: a "kbench-results/1" document (json_report.hpp) read back into the structs it was
// written from (results.hpp): the one place that reads the document by its keys. The tables, the comparison with a
// baseline and the supervisor's document of an unfinished run read the structs.
//
// The document as json_report.hpp writes it and as earlier kbench wrote it: a key an older document lacks (the
// schema, schema/kbench-results-1.schema.json, says which), or null, reads as the struct's default or as absent.
// What the writer derives from the structs is not read: the structs give it again (a check's "passed" and
// "problems", a timing's "flags" and "notes", a finding's "source", a census side's "parts_seconds", the
// digests). What the document does not carry reads as the default (a timing's own stage times and the findings
// it met, the reference's throughput, a comparison's first indices of each kind). Whether the cases carry their
// declarations and kernels' digests at all is the run's (run_record::declarations_carried). A value of the wrong
// type, a word that names no verdict, mode, finding kind or element type, is a usage error naming the case.
// HIP-free; opt-in (nlohmann/json).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/dtype.hpp"
#include "../contract/error.hpp"
#include "../contract/shape.hpp"
#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "physics_read.hpp"
#include "timing_read.hpp"

namespace kbench {
namespace detail {

inline element_rule::kind rule_kind(const std::string& word) {
  if (word == "exact") return element_rule::kind::exact;
  if (word == "within") return element_rule::kind::within;
  if (word == "ulp") return element_rule::kind::ulp;
  throw usage_error("'" + word + "' is not a kind of element rule kbench knows");
}

inline void from_json(const json& j, tolerance& t) {
  read(j, "description", t.description);
  for (const json& r : list_at(j, "element_rules")) {
    element_rule& rule = t.element_rules.emplace_back();
    if (part_at(r, "kind")) {
      std::string kind;
      read(r, "kind", kind);
      rule.rule = rule_kind(kind);
    }
    read_number(r, "atol", rule.atol);
    read_number(r, "rtol", rule.rtol);
    read(r, "max_ulps", rule.max_ulps);
  }
  read(j, "equal_nan", t.equal_nan);
  read_number(j, "max_mismatch_fraction", t.max_mismatch_fraction);
  read_number(j, "min_cosine", t.min_cosine);
  read_number(j, "max_relative_l2", t.max_relative_l2);
  read_number(j, "slack_bound", t.slack_bound);
  read(j, "slack_may_cluster", t.slack_may_cluster);
}

inline void from_json(const json& j, slack_audit& s) {
  read(j, "let_through", s.let_through);
  read_number(j, "bound", s.bound);
  read_number(j, "worst_multiple", s.worst_multiple);
  read(j, "worst_index", s.worst_index);
  read(j, "beyond_bound", s.beyond_bound);
  read(j, "first_beyond_bound", s.first_beyond_bound);
  read(j, "clustered_places", s.clustered_places);
  read_number(j, "false_alarm", s.false_alarm);
  for (const json& c : list_at(j, "clusters")) {
    mismatch_cluster& cluster = s.clusters.emplace_back();
    read(c, "where", cluster.where);
    read(c, "first_index", cluster.first_index);
    read(c, "mismatches", cluster.mismatches);
    read(c, "elements", cluster.elements);
    read(c, "threshold", cluster.threshold);
  }
}

inline void from_json(const json& j, bias_audit& b) {
  read(j, "groups", b.groups);
  read_number(j, "allowance", b.allowance);
  read(j, "worst_where", b.worst_where);
  read(j, "worst_scale", b.worst_scale);
  read_number(j, "worst_bias", b.worst_bias);
  read_number(j, "worst_allowed", b.worst_allowed);
  read_number(j, "worst_ratio", b.worst_ratio);
}

inline void from_json(const json& j, oracle_result& o) {
  read_number(j, "reference_inexact", o.reference_inexact);
  read_number(j, "optimized_inexact", o.optimized_inexact);
  read(j, "reference_max_ulps", o.reference_max_ulps);
  read(j, "optimized_max_ulps", o.optimized_max_ulps);
  read_number(j, "allowed_inexact", o.allowed_inexact);
}

// A comparison's figures (json_report's "metrics").
inline void read_metrics(const json& m, comparison& r) {
  read(m, "size", r.size);
  read(m, "mismatches", r.mismatches);
  read(m, "allowed_mismatches", r.allowed_mismatches);
  read(m, "never_written", r.never_written);
  read(m, "nonfinite_mismatches", r.nonfinite_mismatches);
  read(m, "nan_in_expected", r.nan_in_expected);
  read(m, "nan_in_actual", r.nan_in_actual);
  read_number(m, "max_abs_error", r.max_abs_error);
  read(m, "max_abs_index", r.max_abs_index);
  read_number(m, "max_rel_error", r.max_rel_error);
  read(m, "max_rel_index", r.max_rel_index);
  read_number(m, "cosine_similarity", r.cosine_similarity);
  read_number(m, "relative_l2_error", r.relative_l2_error);
  read(m, "ulps_equal", r.ulps_equal);
  read(m, "ulps_one", r.ulps_one);
  read(m, "ulps_two", r.ulps_two);
  read(m, "max_ulps", r.max_ulps);
  read_number(m, "allowed_at_max_abs", r.allowed_at_max_abs);
}

inline void from_json(const json& j, output_result& o) {
  read(j, "name", o.name);
  read_word(j, "dtype", o.type, "an element type");
  read(j, "extents", o.extents);
  comparison& r = o.result;
  read(j, "passed", r.passed);
  read(j, "reasons", r.reasons);
  from_json(at_key(j, "tolerance"), r.applied);
  read_metrics(at_key(j, "metrics"), r);
  for (const json& m : list_at(j, "first_mismatches")) {
    mismatch& first = r.first_mismatches.emplace_back();
    read(m, "index", first.index);
    read_number(m, "actual", first.actual);
    read_number(m, "expected", first.expected);
    read_number(m, "abs_error", first.abs_error);
    read_number(m, "rel_error", first.rel_error);
    read(m, "never_written", first.never_written);
  }
  if (const json* slack = part_at(j, "slack")) from_json(*slack, r.slack.emplace());
  if (const json* bias = part_at(j, "bias")) from_json(*bias, r.bias.emplace());
  if (const json* oracle = part_at(j, "oracle")) from_json(*oracle, o.oracle.emplace());
}

// A seed as hex() writes it: "0x1a2b".
inline std::uint64_t seed_in(const std::string& text) {
  char* end = nullptr;
  const unsigned long long seed = std::strtoull(text.c_str(), &end, 16);
  if (text.rfind("0x", 0) != 0 || text.size() < 3 || *end != '\0') throw usage_error("'" + text + "' is not a seed");
  return seed;
}

inline void from_json(const json& j, seed_result& s) {
  if (part_at(j, "seed")) {
    std::string seed;
    read(j, "seed", seed);
    s.seed = seed_in(seed);
  }
  s.problems = findings_at(j, "findings");
  for (const json& o : list_at(j, "outputs")) from_json(o, s.outputs.emplace_back());
  if (const json* host = part_at(j, "host_reference")) {
    host_run& h = s.host_reference.emplace();
    read_number(*host, "input_bytes", h.input_bytes);
    read_number(*host, "transfer_seconds", h.transfer_seconds);
    read_number(*host, "compute_seconds", h.compute_seconds);
  }
  read(j, "edge_runs", s.edge_runs);
  read(j, "spike_runs", s.spike_runs);
  s.stage_seconds = stages_at(j);
}


// A shape from its dims ({name: size}, in the document's order) and its parameters ({name: value}).
inline kbench::shape shape_in(const json& dims, const json& parameters) {
  std::vector<kbench::shape::dimension> sizes;
  std::vector<kbench::shape::parameter> values;
  if (!dims.is_null() && !dims.is_object()) throw usage_error("\"shape\": an object {dim: size} was expected");
  for (const auto& [name, size] : dims.items()) {
    if (!size.is_number_integer()) throw usage_error("\"shape\": the size of '" + name + "' is not an integer");
    sizes.emplace_back(name, size.get<std::int64_t>());
  }
  if (!parameters.is_null() && !parameters.is_object()) throw usage_error("\"parameters\": an object was expected");
  for (const auto& [name, value] : parameters.items()) {
    values.emplace_back(name, number_in(value).value_or(0.0));
  }
  return kbench::shape(std::move(sizes), std::move(values));
}

inline case_record case_from_json(const json& c) {
  case_record r;
  read(c, "case", r.case_name);
  r.shape = shape_in(at_key(c, "shape"), at_key(c, "parameters"));
  if (const json* near = part_at(c, "near_shape")) r.near_shape = shape_in(*near, json());
  read_word(c, "verdict", r.verdict, "a case's verdict");
  read(c, "message", r.message);
  for (const json& s : list_at(c, "checks")) from_json(s, r.checks.emplace_back());
  read_number(c, "wall_seconds", r.wall_seconds);
  read(c, "devices", r.devices);
  read(c, "devices_shared", r.devices_shared);
  read(c, "peer_access", r.peer_access);
  if (const json* timing = part_at(c, "timing")) {
    from_json(*timing, r.timing.emplace());
    r.stage_seconds = stages_at(*timing);  // the perf procedure's, written with the timing
  }
  if (const json* census = part_at(c, "census")) {
    try {
      from_json(*census, r.census.emplace());
    } catch (const usage_error& e) {
      throw usage_error(fmt::format("the census of case '{}' in the results: {}", r.case_name, e.what()));
    }
  }
  read(at_key(c, "declaration"), "lines", r.declaration);
  return r;
}

inline void from_json(const json& j, gpu_info& g) {
  read(j, "usable", g.usable);
  read(j, "reason", g.reason);
  read(j, "ordinal", g.device);
  read(j, "assigned_by", g.assigned_by);
  read(j, "pci_bus_id", g.pci_bus_id);
  read(j, "platform", g.platform);
  read(j, "name", g.name);
  read(j, "arch", g.arch);
  read(j, "multiprocessors", g.multiprocessors);
  read(j, "wave_size", g.wave_size);
  read_number(j, "memory_bytes", g.memory_bytes);
  read_number(j, "l2_bytes", g.l2_bytes);
  read_number(j, "highest_clock_hz", g.highest_clock_hz);
  read_number(j, "open_seconds", g.open_seconds);
}

// What a run measured once per program: the copy bandwidth, the timer floor, the arithmetic peaks, the clock.
inline void read_ceilings(const json& doc, run_record& run) {
  if (const json* copy = part_at(doc, "copy_bandwidth")) {
    copy_bandwidth& c = run.copy.emplace();
    read_number(*copy, "bytes_per_second", c.bytes_per_second);
    read_number(*copy, "read_bytes_per_second", c.read_bytes_per_second);
    read(*copy, "buffer_bytes", c.buffer_bytes);
    from_json(at_key(*copy, "seconds"), c.seconds);
  }
  if (const json* floor = part_at(doc, "timer_floor")) {
    timer_floor& f = run.timer_floor.emplace();
    read_number(*floor, "events_only", f.events_only);
    read_number(*floor, "empty_kernel", f.empty_kernel);
    read_number(*floor, "empty_kernel_batch", f.empty_kernel_batch);
    read_number(*floor, "empty_launch_wall", f.empty_launch_wall);
  }
  for (const json& p : list_at(doc, "compute_peaks")) {
    compute_peak& peak = run.compute_peaks.emplace_back();
    read_word(p, "type", peak.type, "an element type");
    read_number(p, "flops_per_second", peak.flops_per_second);
    read(p, "how", peak.how);
  }
  if (const json* clock = part_at(doc, "clock_setting")) from_json(*clock, run.clock_setting.emplace());
  read_number(doc, "ceilings_seconds", run.ceilings_seconds);
}

// The run's facts, without its cases (run_document's part).
inline run_record run_from_json(const json& doc) {
  run_record run;
  read_word(doc, "mode", run.mode, "a run mode");
  read(doc, "kbench_version", run.kbench_version);
  read(doc, "complete", run.complete);
  if (part_at(doc, "incomplete_reason")) read(doc, "incomplete_reason", run.incomplete_reason.emplace());
  read(doc, "compiler", run.compiler);
  read(doc, "optimized_build", run.optimized_build);
  from_json(at_key(doc, "device"), run.device);
  const json& options = at_key(doc, "options");
  read(options, "warmup", run.warmup);
  read(options, "iterations", run.iterations);
  read(options, "quick", run.quick);
  read_ceilings(doc, run);
  return run;
}

}  // namespace detail

// One case's record (json_report's case_json, a line a supervised child sends its parent) read back.
[[nodiscard]] inline case_record read_case(const nlohmann::ordered_json& record) {
  return detail::case_from_json(record);
}

// A "kbench-results/1" document of any mode read back, every case with it. A document of another schema,
// without a "cases" list, or with a value that is not what the writer writes, is a usage error (naming the
// case, by its number, for a case's).
[[nodiscard]] inline run_record read_results(const nlohmann::ordered_json& document) {
  using detail::json;
  if (!document.is_object() || !document.contains("schema") || document["schema"] != "kbench-results/1") {
    throw usage_error("a \"kbench-results/1\" document (json_report.hpp) was expected");
  }
  if (!document.contains("cases") || !document["cases"].is_array()) throw usage_error("the results have no \"cases\" array");
  run_record run;
  try {
    run = detail::run_from_json(document);
  } catch (const usage_error& e) {
    throw usage_error(std::string("the results: ") + e.what());
  }
  const json& cases = document["cases"];
  auto carried = [&cases](const char* key) {
    return std::any_of(cases.begin(), cases.end(), [key](const json& c) { return c.is_object() && c.contains(key); });
  };
  run.declarations_carried = carried("declaration");
  run.kernels_digests_carried = carried("kernels_digest");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    try {
      run.cases.push_back(detail::case_from_json(cases[i]));
    } catch (const usage_error& e) {
      throw usage_error(fmt::format("case number {} of the results: {}", i, e.what()));
    }
  }
  return run;
}

}  // namespace kbench
