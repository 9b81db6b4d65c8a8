// kbench/reports/physics_read.hpp: what physics_json.hpp writes, read back into its structs (sample statistics, the
// roofline, the SM clocks, the driver's clock setting), and the conventions every reader of a "kbench-results/1"
// document follows: a key that a document of an older kbench lacks, or null, reads as the struct's default; a
// number may be the string "nan", "inf" or "-inf" (number()); a verdict, a mode, a finding's kind or an element
// type is the word outcome.hpp's to_string (or dtype's info) gives it; a value of another type than the writer's,
// or a word that names nothing, is a usage error naming it. For json_read.hpp. HIP-free; opt-in (nlohmann/json).
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/dtype.hpp"
#include "../contract/error.hpp"
#include "../results/clocks.hpp"
#include "../results/outcome.hpp"
#include "../results/roofline.hpp"
#include "../results/statistics.hpp"

namespace kbench::detail {

using json = nlohmann::ordered_json;

// A number as json_report.hpp writes it: a JSON number, or "nan" / "inf" / "-inf"; null (and a missing
// key) is absent.
inline std::optional<double> number_in(const json& j) {
  if (j.is_null()) return std::nullopt;
  if (j.is_number()) return j.get<double>();
  if (!j.is_string()) throw usage_error(fmt::format("a {} is not a number", j.type_name()));
  const std::string s = j.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  throw usage_error("'" + s + "' is not a number");
}

// The value of `key` in `object`, or null where there is none (a document of an older kbench, an absent part).
inline const json& at_key(const json& object, const char* key) {
  static const json absent;
  if (object.is_null()) return absent;
  if (!object.is_object()) throw usage_error(fmt::format("an object was expected, not a {}", object.type_name()));
  const auto it = object.find(key);
  return it == object.end() ? absent : *it;
}

// The part of `object` at `key`, or nullptr where there is none: an optional struct.
inline const json* part_at(const json& object, const char* key) {
  const json& value = at_key(object, key);
  return value.is_null() ? nullptr : &value;
}

// The list at `key` (none: an empty one).
inline const json& list_at(const json& object, const char* key) {
  static const json empty = json::array();
  const json& list = at_key(object, key);
  if (list.is_null()) return empty;
  if (!list.is_array()) throw usage_error(fmt::format("\"{}\": a list was expected, not a {}", key, list.type_name()));
  return list;
}

inline std::optional<double> number_at(const json& object, const char* key) {
  try {
    return number_in(at_key(object, key));
  } catch (const usage_error& e) {
    throw usage_error(fmt::format("\"{}\": {}", key, e.what()));
  }
}

// `into` from object[key] where the document has it: a plain value (a text, a flag, a count, a list of them).
template <class T>
void read(const json& object, const char* key, T& into) {
  const json& value = at_key(object, key);
  if (value.is_null()) return;
  try {
    value.get_to(into);
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("\"{}\": {}", key, e.what()));
  }
}

inline void read_number(const json& object, const char* key, double& into) {
  if (const std::optional<double> v = number_at(object, key)) into = *v;
}

inline void read_number(const json& object, const char* key, std::optional<double>& into) {
  if (const std::optional<double> v = number_at(object, key)) into = *v;
}

// Numbers in a list, in order; a null among them (a clock that was not read) is NaN.
inline std::vector<double> numbers_at(const json& object, const char* key) {
  std::vector<double> out;
  for (const json& item : list_at(object, key)) {
    try {
      out.push_back(number_in(item).value_or(std::numeric_limits<double>::quiet_NaN()));
    } catch (const usage_error& e) {
      throw usage_error(fmt::format("\"{}\": {}", key, e.what()));
    }
  }
  return out;
}

// The words of the enums: outcome.hpp's to_string, and an element type's name.
struct enum_words {
  template <class Enum>
  std::string_view operator()(Enum e) const {
    return to_string(e);
  }
  std::string_view operator()(dtype t) const { return info(t).name; }
};

// The value of `Enum` whose word is `word`. The enums count from 0, and a value past the last one has the
// word "?": the words are tried in order until then.
template <class Enum>
Enum from_word(const std::string& word, const char* what) {
  for (int i = 0; i < 256; ++i) {
    const std::string_view w = enum_words{}(static_cast<Enum>(i));
    if (w == "?") break;
    if (w == word) return static_cast<Enum>(i);
  }
  throw usage_error(fmt::format("'{}' is not {} kbench knows", word, what));
}

template <class Enum>
void read_word(const json& object, const char* key, Enum& into, const char* what) {
  if (!part_at(object, key)) return;
  std::string word;
  read(object, key, word);
  into = from_word<Enum>(word, what);
}

inline void from_json(const json& j, sample_stats& s) {
  read(j, "count", s.count);
  read_number(j, "median", s.median);
  read_number(j, "mean", s.mean);
  read_number(j, "min", s.min);
  read_number(j, "max", s.max);
  read_number(j, "stddev", s.stddev);
  read_number(j, "p10", s.p10);
  read_number(j, "p90", s.p90);
}

inline void read_stats(const json& object, const char* key, std::optional<sample_stats>& into) {
  if (const json* stats = part_at(object, key)) from_json(*stats, into.emplace());
}

// The roofline (json_report's "roofline"); a figure written null where it is 0 or absent reads as 0.
inline void from_json(const json& j, roofline& r) {
  read(j, "bound", r.bound);
  read_number(j, "intensity", r.intensity);
  read_number(j, "memory_bytes_per_second", r.memory_bytes_per_second);
  read_number(j, "peak_flops_per_second", r.peak_flops_per_second);
  read(j, "peak", r.peak_how);
  read_number(j, "attainable_flops_per_second", r.attainable_flops_per_second);
  read_number(j, "floor_seconds", r.floor_seconds);
  read(j, "binding", r.binding);
  read_number(j, "optimized_share", r.optimized_share);
  read_number(j, "reference_share", r.reference_share);
}

// The SM clock over a timing's samples (json_report's "clocks"); a host reference's clocks are not written.
inline void from_json(const json& j, sample_clocks& c) {
  read(j, "measured", c.measured);
  read(j, "unmeasured_reason", c.unmeasured);
  read_number(j, "highest_hz", c.highest_hz);
  read_number(j, "throttle_threshold", c.throttle_threshold);
  read_stats(j, "optimized", c.optimized);
  read_stats(j, "reference", c.reference);
  c.optimized_hz = numbers_at(at_key(j, "samples"), "optimized");
  c.reference_hz = numbers_at(at_key(j, "samples"), "reference");
  c.throttled_hz = numbers_at(j, "throttled_samples");
  read(j, "throttled_kept", c.throttled_kept);
  read_number(j, "speedup_in_cycles", c.speedup_in_cycles);  // written null where not finite: NaN
}

// The driver's clock setting (json_report's "clock_setting").
inline void from_json(const json& j, clock_control& c) {
  read(j, "source", c.source);
  if (part_at(j, "locked")) {
    bool locked = false;
    read(j, "locked", locked);
    c.locked = locked;
  }
  read_number(j, "locked_hz", c.locked_hz);
  read_number(j, "current_hz", c.current_hz);
  read(j, "detail", c.detail);
}

}  // namespace kbench::detail
