// kbench/results/results_document.hpp: reading a "kbench-results/1" document (json_report.hpp) back: a perf
// run's document from its file (load_results), a case's label, numbers written as strings when not finite
// (physics_read.hpp's number_in), table cells. HIP-free; shared by baseline.hpp and table_report.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/error.hpp"
#include "../contract/shape.hpp"
#include "physics_read.hpp"

namespace kbench::detail {

// "rows=37/cols=1531": a case's dims in the document's order (ordered_json keeps it), then its parameters
// (a key that documents of older kbench, and cases without parameters, lack), joined as shape::to_string
// joins them.
inline std::string shape_text_of(const nlohmann::ordered_json& c) {
  std::string dims;
  for (const auto& [name, size] : c.at("shape").items()) {
    dims += (dims.empty() ? "" : "/") + name + "=" + std::to_string(size.get<std::int64_t>());
  }
  if (c.contains("parameters")) {
    for (const auto& [name, value] : c.at("parameters").items()) {
      dims += (dims.empty() ? "" : "/") + name + "=" + exact_decimal(value.get<double>());
    }
  }
  return dims;
}

// "rmsnorm/rows=37/cols=1531": a case at a shape, as the reports name it.
inline std::string case_label_of(const nlohmann::ordered_json& c) {
  const std::string name = c.at("case").get<std::string>(), dims = shape_text_of(c);
  return dims.empty() ? name : name + "/" + dims;
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

namespace kbench {

// Reads a perf run's results. A file that is missing, not JSON, of another schema, a correctness run, or
// without well-formed cases is a usage error naming the file.
[[nodiscard]] inline nlohmann::ordered_json load_results(const std::string& path) {
  using json = nlohmann::ordered_json;
  auto problem = [&](const std::string& what) { return usage_error("'" + path + "' " + what); };
  std::ifstream file(path);
  if (!file) throw problem("cannot be opened (no such file, or not readable)");
  json doc;
  try {
    doc = json::parse(file);
  } catch (const json::parse_error& e) {
    throw problem(std::string("is not JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("schema")) throw problem("is not a kbench results file: it has no \"schema\"");
  if (doc["schema"] != "kbench-results/1") {
    throw problem("has schema " + doc["schema"].dump() + "; kbench reads \"kbench-results/1\"");
  }
  if (!doc.contains("mode") || doc["mode"] != "perf") {
    throw problem("is not a perf run (mode " + (doc.contains("mode") ? doc["mode"].dump() : "absent") +
                  "): it has no timings to compare");
  }
  if (!doc.contains("cases") || !doc["cases"].is_array()) throw problem("has no \"cases\" array");
  std::size_t index = 0;
  for (const json& c : doc["cases"]) {
    const bool well_formed =
        c.is_object() && c.contains("case") && c["case"].is_string() && c.contains("shape") && c["shape"].is_object() &&
        std::all_of(c["shape"].begin(), c["shape"].end(), [](const json& size) { return size.is_number_integer(); }) &&
        c.contains("verdict") && c["verdict"].is_string() && c.contains("timing") &&
        (c["timing"].is_null() || c["timing"].is_object());
    if (!well_formed) {
      throw problem(fmt::format("has a malformed case (number {}): each needs \"case\", \"shape\" {{dim: size}}, "
                                "\"verdict\" and \"timing\"",
                                index));
    }
    ++index;
  }
  return doc;
}

}  // namespace kbench
