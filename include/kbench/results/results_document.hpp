// kbench/results/results_document.hpp: reading a "kbench-results/1" document (json_report.hpp) back: a
// case's label, numbers written as strings when not finite, table cells. HIP-free; shared by
// baseline.hpp and table_report.hpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "../contract/error.hpp"

namespace kbench::detail {

// "rows=37/cols=1531": a case's dims in the document's order (ordered_json keeps it), joined as
// shape::to_string joins them.
inline std::string shape_text_of(const nlohmann::ordered_json& c) {
  std::string dims;
  for (const auto& [name, size] : c.at("shape").items()) {
    dims += (dims.empty() ? "" : "/") + name + "=" + std::to_string(size.get<std::int64_t>());
  }
  return dims;
}

// "rmsnorm/rows=37/cols=1531": a case at a shape, as the reports name it.
inline std::string case_label_of(const nlohmann::ordered_json& c) {
  const std::string name = c.at("case").get<std::string>(), dims = shape_text_of(c);
  return dims.empty() ? name : name + "/" + dims;
}

// A number as json_report.hpp writes it: a JSON number, or "nan" / "inf" / "-inf"; null (and a missing
// key) is absent.
inline std::optional<double> number_in(const nlohmann::ordered_json& j) {
  if (j.is_null()) return std::nullopt;
  if (j.is_number()) return j.get<double>();
  const std::string s = j.get<std::string>();  // anything else is a type error, with nlohmann's message
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  throw usage_error("'" + s + "' is not a number");
}

inline std::optional<double> number_at(const nlohmann::ordered_json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? std::nullopt : number_in(*it);
}

// A finite number, or absent: what a table shows.
inline std::optional<double> finite_at(const nlohmann::ordered_json& object, const char* key) {
  const std::optional<double> v = number_at(object, key);
  return v && std::isfinite(*v) ? v : std::nullopt;
}

// A Markdown table cell: '|' would end the cell and a line break the row.
inline std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else out += ch;
  }
  return out;
}

}  // namespace kbench::detail
