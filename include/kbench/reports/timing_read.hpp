// kbench/reports/timing_read.hpp: what a perf run measured of a case, read back from its "kbench-results/1" document
// for json_read.hpp: the timing (its measurements and their judgement, json_report's "timing") and the census
// (its "census"), with physics_read.hpp's conventions. The timing's "flags" and "notes" are its findings' texts,
// and its "throughput" the optimized kernel's rates: written from the structs, not read (the reference's rates
// and the findings the timing run met, listed first among its findings, are not written). HIP-free; opt-in
// (nlohmann/json).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/error.hpp"
#include "../results/census.hpp"
#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "physics_read.hpp"

namespace kbench::detail {

// One step's findings, with their kinds (the step is the list's: "source" is not read).
inline std::vector<finding> findings_at(const json& object, const char* key) {
  std::vector<finding> out;
  for (const json& f : list_at(object, key)) {
    finding& found = out.emplace_back();
    read_word(f, "kind", found.kind, "a finding kind");
    read(f, "text", found.text);
  }
  return out;
}

// The host seconds of each step of the perf procedure, in the document's order (written with the timing).
inline stage_times stages_at(const json& timing) {
  const json& stages = at_key(timing, "stage_seconds");
  if (!stages.is_null() && !stages.is_object()) throw usage_error("\"stage_seconds\": an object was expected");
  stage_times out;
  for (const auto& [name, seconds] : stages.items()) out.emplace_back(name, number_in(seconds).value_or(0.0));
  return out;
}

// How the timing run took its samples, and the checks of its timed launches.
inline void read_sampling(const json& j, timing_measurements& t) {
  read_word(j, "mode", t.mode, "a timing mode");
  read(j, "method", t.method);
  read(j, "launches_per_sample", t.launches_per_sample);
  read(j, "warmup", t.warmup);
  read(j, "input_sets", t.input_sets);
  read(j, "input_sets_wanted", t.input_sets_wanted);
  read_number(j, "input_set_bytes", t.input_set_bytes);
  const json& checks = at_key(j, "launch_checks");
  read(checks, "launches_timed", t.checks.timed);
  read(checks, "launches_checked", t.checks.checked);
  read_number(checks, "smallest_share_caught", t.checks.smallest_share_caught);  // null: none checked, NaN
  read(checks, "limit", t.checks.limit);
  from_json(at_key(j, "optimized"), t.optimized);
  read_stats(j, "reference", t.reference);
  t.optimized_samples = numbers_at(at_key(j, "samples"), "optimized");
  t.reference_samples = numbers_at(at_key(j, "samples"), "reference");
  read_number(j, "precision_target", t.precision_target);
  read_number(j, "optimized_precision", t.optimized_precision);
  read_number(j, "reference_precision", t.reference_precision);
  read(j, "precise", t.precise);
}

// The single launches, the declared work and expectations, the graphs of batch mode.
inline void read_launches(const json& j, timing_measurements& t) {
  read_number(j, "speedup", t.speedup);
  read_number(at_key(j, "speedup_interval"), "low", t.speedup_interval.low);
  read_number(at_key(j, "speedup_interval"), "high", t.speedup_interval.high);
  read_number(j, "idle_wait", t.idle_wait);
  read_number(j, "single_launch", t.single_launch);
  read_number(j, "fresh_launch", t.fresh_launch);
  read_number(j, "seen_launch", t.seen_launch);
  read_number(j, "latency", t.latency);
  read_number(j, "hot_latency", t.hot_latency);
  read_number(j, "launch_wall", t.launch_wall);
  read_number(j, "launch_call", t.launch_call);
  read_number(j, "saturated_call", t.saturated_call);
  read_number(j, "saturation", t.saturation);
  read(at_key(j, "graph_operations"), "reference", t.reference_graph_operations);
  read(at_key(j, "graph_operations"), "optimized", t.optimized_graph_operations);
  const json& expected = at_key(j, "expectations");
  read_number(expected, "required_speedup", t.expectations.required_speedup);
  read_number(expected, "required_bandwidth", t.expectations.required_bandwidth);
  read_number(expected, "max_plausible_speedup", t.expectations.max_plausible_speedup);
  read(expected, "speedup_limit_declared", t.expectations.speedup_limit_declared);
  const json& work = at_key(j, "work");
  read_number(work, "bytes", t.work.bytes);
  read_number(work, "flops", t.work.flops);
  read_word(work, "flop_type", t.work.flop_type, "an element type");
  read(work, "matrix_units", t.work.matrix_units);
  read_number(work, "tokens", t.work.tokens);
  read_number(work, "link_bytes", t.work.link_bytes);
  read_number(work, "calls_per_layer", t.work.calls_per_layer);
  read_number(work, "calls_per_token", t.work.calls_per_token);
}

// A time saved and its interval (json_report's "time_saved"'s parts).
inline void from_json(const json& j, saved_seconds& s) {
  read_number(j, "seconds", s.seconds);
  read_number(j, "low", s.ci.low);
  read_number(j, "high", s.ci.high);
}

// The time saved; null (a host reference, or a document of a kbench before it) is absent.
inline void read_time_saved(const json& j, std::optional<time_saved>& saved) {
  const json* part = part_at(j, "time_saved");
  if (part == nullptr) return;
  time_saved& t = saved.emplace();
  from_json(at_key(*part, "per_call"), t.per_call);
  if (const json* layer = part_at(*part, "per_layer")) from_json(*layer, t.per_layer.emplace());
  if (const json* token = part_at(*part, "per_token")) from_json(*token, t.per_token.emplace());
}

// A timing (json_report's "timing"); its "stage_seconds" are the case's (stages_at).
inline void from_json(const json& j, timing_result& t) {
  read_sampling(j, t);
  read_launches(j, t);
  if (const json* clocks = part_at(j, "clocks")) from_json(*clocks, t.clocks);
  read_word(j, "verdict", t.verdict, "a speedup verdict");
  const json& rates = at_key(j, "throughput");  // a rate is null where the case declares none of that work: 0
  work_rates& o = t.throughput.optimized;
  read_number(rates, "bytes_per_second", o.bytes_per_second);
  read_number(rates, "flops_per_second", o.flops_per_second);
  read_number(rates, "tokens_per_second", o.tokens_per_second);
  read_number(rates, "link_bytes_per_second", o.link_bytes_per_second);
  read_number(rates, "fraction_of_copy_bandwidth", o.fraction_of_copy);
  if (const json* roof = part_at(j, "roofline")) from_json(*roof, t.roofline);
  read_time_saved(j, t.saved);
  t.findings = findings_at(j, "findings");
}

// Three sizes of a launch: its grid or its block.
inline void read_dims(const json& object, const char* key, unsigned int (&dims)[3]) {
  std::vector<unsigned int> sizes;
  read(object, key, sizes);
  if (sizes.empty()) return;
  if (sizes.size() != 3) throw usage_error(fmt::format("\"{}\": three sizes were expected", key));
  for (int d = 0; d < 3; ++d) dims[d] = sizes[static_cast<std::size_t>(d)];
}

// A kernel of a census side; a figure written null where the runtime would not say it reads as -1.
inline void from_json(const json& j, census_kernel& k) {
  read(j, "name", k.name);
  read(j, "symbol", k.symbol);
  read_dims(j, "grid", k.grid);
  read_dims(j, "block", k.block);
  read(j, "dynamic_shared_bytes", k.dynamic_shared_bytes);
  read(j, "registers", k.registers);
  read(j, "static_shared_bytes", k.static_shared_bytes);
  read(j, "local_bytes", k.local_bytes);
  read(j, "max_threads_per_block", k.max_threads_per_block);
  read(j, "built_registers", k.built_registers);
  read(j, "built_static_shared_bytes", k.built_static_shared_bytes);
  read(j, "built_local_bytes", k.built_local_bytes);
  read(j, "blocks_per_unit", k.blocks_per_unit);
  read(j, "waves_per_unit", k.waves_per_unit);
  read_number(j, "waves_per_simd", k.waves_per_simd);
  read_number(j, "occupancy", k.occupancy);
  read_number(j, "median_seconds", k.median_seconds);
  read_number(j, "in_side_seconds", k.in_side_seconds);
}

// A census side; its "parts_seconds" is the sum of its parts, not read.
inline void from_json(const json& j, census_side& s) {
  read(j, "captured", s.captured);
  read(j, "reason", s.reason);
  for (const json& k : list_at(j, "kernels")) from_json(k, s.kernels.emplace_back());
  read(j, "copies", s.copies);
  read(j, "memsets", s.memsets);
  read(j, "other", s.other);
  read_number(j, "copies_seconds", s.copies_seconds);
  read_number(j, "whole_seconds", s.whole_seconds);
}

inline void from_json(const json& j, case_census& c) {
  read(j, "platform", c.platform);
  read(j, "profiler_launches", c.profiler_launches);
  read(j, "profiler_ranges", c.profiler_ranges);
  if (const json* reference = part_at(j, "reference")) from_json(*reference, c.reference.emplace());
  from_json(at_key(j, "optimized"), c.optimized);
  c.findings = findings_at(j, "findings");
}

}  // namespace kbench::detail
