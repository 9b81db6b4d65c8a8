// kbench/program/child_report.hpp: what a supervised child told its parent (completion_channel.hpp's
// lines), read back, and the results document of a run that one process could not finish: the records
// every process sent, in order, with the case a process ended during recorded as an error with the
// reason. HIP-free.
#pragma once

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../results/json_report.hpp"
#include "../version.hpp"

namespace kbench::detail {

struct child_report {
  std::optional<std::size_t> planned;        // the tests the process was to run
  std::vector<std::string> tests;            // the tests it started, in order
  std::string last_started;                  // the last case it started (a test or a neighbour); "" before any
  nlohmann::ordered_json last_start_record;  // that case's record as it started
  bool last_finished = true;                 // whether that case's record came
  std::vector<nlohmann::ordered_json> records;
  std::string lost;                          // why its device became unusable, when it said so
  std::optional<nlohmann::ordered_json> run; // its results document without cases, sent at its end
  std::optional<int> decided;                // the exit status it decided
};

// The report's lines up to the first decision (what follows is ignored); a line cut short is no line, and
// a record that is not JSON is left out.
[[nodiscard]] inline child_report read_child_report(const std::string& text) {
  child_report r;
  const auto parse = [](const std::string& json) { return nlohmann::ordered_json::parse(json, nullptr, false); };
  for (std::size_t begin = 0; begin < text.size() && !r.decided;) {
    const std::size_t newline = text.find('\n', begin);
    if (newline == std::string::npos) break;
    const std::string line = text.substr(begin, newline - begin);
    begin = newline + 1;
    const std::size_t space = line.find(' ');
    const std::string word = line.substr(0, space);
    const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (word == "tests") {
      r.planned = static_cast<std::size_t>(std::strtoull(rest.c_str(), nullptr, 10));
    } else if (word == "case" || word == "near") {
      const std::size_t tab = rest.find('\t');
      r.last_started = rest.substr(0, tab);
      r.last_start_record = tab == std::string::npos ? nlohmann::ordered_json() : parse(rest.substr(tab + 1));
      r.last_finished = false;
      if (word == "case") r.tests.push_back(r.last_started);
    } else if (word == "record") {
      nlohmann::ordered_json record = parse(rest);
      if (record.is_object()) r.records.push_back(std::move(record));
      r.last_finished = true;
    } else if (word == "lost") {
      r.lost = rest;
    } else if (word == "run") {
      nlohmann::ordered_json run = parse(rest);
      if (run.is_object()) r.run = std::move(run);
    } else if (word == "done") {
      r.decided = std::atoi(rest.c_str());
    }
  }
  return r;
}

// The tests a process that ended early left to run (0 when it said nothing of its plan).
[[nodiscard]] inline std::size_t tests_left(const child_report& r) {
  return r.planned && *r.planned > r.tests.size() ? *r.planned - r.tests.size() : 0;
}

// The cases one process ran, added to `cases`: its records, and, when it ended during a case, that case's
// record as it started, an error with `reason`.
inline void add_cases(const child_report& r, const std::string& reason, nlohmann::ordered_json& cases) {
  for (const nlohmann::ordered_json& record : r.records) cases.push_back(record);
  if (r.last_finished || !r.last_start_record.is_object()) return;
  nlohmann::ordered_json ended = r.last_start_record;
  ended["verdict"] = "error";
  ended["message"] = reason;
  cases.push_back(std::move(ended));
}

// The results document of a run that did not finish in one process: the last run document a process sent,
// else the one a process wrote to `path`, else one without run facts; with `cases`, marked incomplete.
[[nodiscard]] inline nlohmann::ordered_json incomplete_document(const std::string& path, run_mode mode,
                                                                const std::optional<nlohmann::ordered_json>& sent,
                                                                nlohmann::ordered_json cases, const std::string& reason) {
  nlohmann::ordered_json document;
  if (sent) {
    document = *sent;
  } else if (std::ifstream file(path); !path.empty() && file) {
    document = nlohmann::ordered_json::parse(file, nullptr, false);  // a file cut short: discarded
  }
  if (!document.is_object() || !document.contains("schema") || document["schema"] != "kbench-results/1") {
    run_record run;
    run.mode = mode;
    run.kbench_version = version;
    document = run_document(run);
  }
  document["complete"] = false;
  document["incomplete_reason"] = reason;
  document["cases"] = std::move(cases);
  return document;
}

}  // namespace kbench::detail
