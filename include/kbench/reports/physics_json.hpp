// kbench/reports/physics_json.hpp: the JSON of what a timing measured of the device's physics, for json_report.hpp:
// the roofline (results/roofline.hpp) and the SM clocks (results/clocks.hpp), with the conventions every
// part of the document follows (number(): non-finite numbers as strings). HIP-free; opt-in (nlohmann/json).
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "../results/clocks.hpp"
#include "../results/roofline.hpp"
#include "../results/statistics.hpp"

namespace kbench {
namespace detail {

using json = nlohmann::ordered_json;

inline json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

inline json optional_number(const std::optional<double>& v) { return v ? number(*v) : json(nullptr); }

inline json to_json(const sample_stats& s) {
  return {{"count", s.count}, {"median", number(s.median)}, {"mean", number(s.mean)}, {"min", number(s.min)},
          {"max", number(s.max)}, {"stddev", number(s.stddev)}, {"p10", number(s.p10)}, {"p90", number(s.p90)}};
}

inline json samples(const std::vector<double>& seconds) {
  json all = json::array();
  for (double s : seconds) all.push_back(number(s));
  return all;
}

// The roofline (json_report's "roofline"), as judge_timing computed it; absent figures null.
inline json roofline_json(const roofline& r) {
  auto positive = [](double v) { return v > 0 ? number(v) : json(nullptr); };
  return {{"bound", r.bound.empty() ? json(nullptr) : json(r.bound)},
          {"intensity", positive(r.intensity)},
          {"memory_bytes_per_second", positive(r.memory_bytes_per_second)},
          {"peak_flops_per_second", positive(r.peak_flops_per_second)},
          {"peak", r.peak_how.empty() ? json(nullptr) : json(r.peak_how)},
          {"attainable_flops_per_second", positive(r.attainable_flops_per_second)},
          {"floor_seconds", positive(r.floor_seconds)},
          {"binding", r.binding.empty() ? json(nullptr) : json(r.binding)},
          {"optimized_share", positive(r.optimized_share)},
          {"reference_share", r.reference_share ? number(*r.reference_share) : json(nullptr)}};
}

// Clocks in Hz, null where not read.
inline json clock_readings(const std::vector<double>& hz) {
  json all = json::array();
  for (double h : hz) all.push_back(std::isfinite(h) ? json(h) : json(nullptr));
  return all;
}

// The SM clock over a timing's samples (json_report's "clocks").
inline json clocks_json(const sample_clocks& c, bool with_reference) {
  auto stats = [](const std::optional<sample_stats>& s) { return s ? to_json(*s) : json(nullptr); };
  return {{"measured", c.measured},
          {"unmeasured_reason", c.unmeasured.empty() ? json(nullptr) : json(c.unmeasured)},
          {"highest_hz", c.highest_hz > 0 ? number(c.highest_hz) : json(nullptr)},
          {"throttle_threshold", number(c.throttle_threshold)},
          {"optimized", stats(c.optimized)},
          {"reference", stats(c.reference)},
          {"samples", {{"optimized", clock_readings(c.optimized_hz)},
                       {"reference", with_reference ? clock_readings(c.reference_hz) : json(nullptr)}}},
          {"throttled_samples", clock_readings(c.throttled_hz)},
          {"throttled_kept", c.throttled_kept},
          {"speedup_in_cycles", std::isfinite(c.speedup_in_cycles) ? number(c.speedup_in_cycles) : json(nullptr)}};
}

// The driver's clock setting (json_report's "clock_setting").
inline json clock_setting_json(const clock_control& c) {
  return {{"source", c.source.empty() ? json(nullptr) : json(c.source)},
          {"locked", c.locked ? json(*c.locked) : json(nullptr)},
          {"locked_hz", c.locked_hz > 0 ? number(c.locked_hz) : json(nullptr)},
          {"current_hz", c.current_hz > 0 ? number(c.current_hz) : json(nullptr)},
          {"detail", c.detail}};
}

}  // namespace detail
}  // namespace kbench
