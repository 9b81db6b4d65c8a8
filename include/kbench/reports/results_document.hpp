// kbench/reports/results_document.hpp: a perf run's "kbench-results/1" document (json_report.hpp) read from its file
// into a run_record (load_results), as the comparison with a baseline reads it (`kbench-compare`, --baseline): the
// file's checks, then json_read.hpp's reader. HIP-free; opt-in (nlohmann/json).
#pragma once

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../contract/error.hpp"
#include "../results/results.hpp"
#include "json_read.hpp"

namespace kbench {

// Reads a perf run's results. A file that is missing, not JSON, of another schema, a correctness run, without
// well-formed cases, or holding a value the writer does not write (read_results) is a usage error naming the
// file.
[[nodiscard]] inline run_record load_results(const std::string& path) {
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
  try {
    return read_results(doc);
  } catch (const usage_error& e) {
    throw problem(std::string("cannot be read: ") + e.what());
  }
}

}  // namespace kbench
