// kbench/program/child_report.hpp: what a supervised child told its parent (completion_channel.hpp's
// lines), read back into the structs they were written from (reports/json_read.hpp), and the results of a run
// that one process could not finish: the records every process sent, in order, with the case a process ended
// during recorded as an error with the reason, which json_report.hpp writes as every run's. HIP-free.
#pragma once

#include <cstdlib>
#include <deque>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../contract/error.hpp"
#include "../reports/json_read.hpp"
#include "../results/results.hpp"
#include "../version.hpp"

namespace kbench::detail {

struct child_report {
  std::optional<std::size_t> planned;        // the tests the process was to run
  std::vector<std::string> tests;            // the tests it started, in order
  std::string last_started;                  // the last case it started (a test or a neighbour); "" before any
  std::optional<case_record> last_start_record;  // that case's record as it started
  bool last_finished = true;                 // whether that case's record came
  std::vector<case_record> records;
  std::string lost;                          // why its device became unusable, when it said so
  std::optional<run_record> run;             // its run without cases, sent at its end
  std::optional<int> decided;                // the exit status it decided
};

// A record's line read back: absent when it is not JSON, or not a record (a line of another program).
template <class Record, class Read>
std::optional<Record> record_in(const std::string& line, Read read) {
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(line, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    return read(j);
  } catch (const usage_error&) {
    return std::nullopt;
  }
}

inline std::optional<case_record> case_in(const std::string& line) {
  return record_in<case_record>(line, [](const nlohmann::ordered_json& j) { return read_case(j); });
}

// The report's lines up to the first decision (what follows is ignored); a line cut short is no line, and
// a record that is not JSON, or not a record, is left out.
[[nodiscard]] inline child_report read_child_report(const std::string& text) {
  child_report r;
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
      r.last_start_record = tab == std::string::npos ? std::nullopt : case_in(rest.substr(tab + 1));
      r.last_finished = false;
      if (word == "case") r.tests.push_back(r.last_started);
    } else if (word == "record") {
      if (std::optional<case_record> record = case_in(rest)) r.records.push_back(std::move(*record));
      r.last_finished = true;
    } else if (word == "lost") {
      r.lost = rest;
    } else if (word == "run") {
      r.run = record_in<run_record>(rest, [](const nlohmann::ordered_json& j) { return read_results(j); });
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
inline void add_cases(const child_report& r, const std::string& reason, std::deque<case_record>& cases) {
  cases.insert(cases.end(), r.records.begin(), r.records.end());
  if (r.last_finished || !r.last_start_record) return;
  case_record& ended = cases.emplace_back(*r.last_start_record);
  ended.verdict = case_verdict::error;
  ended.message = reason;
}

// The run one process did not finish: the last run a process sent, else the one a process wrote to `path`,
// else one without run facts; with `cases`, marked incomplete.
[[nodiscard]] inline run_record incomplete_run(const std::string& path, run_mode mode, const std::optional<run_record>& sent,
                                               std::deque<case_record> cases, const std::string& reason) {
  std::optional<run_record> run = sent;
  if (!run && !path.empty()) {
    if (std::ifstream file(path); file) {
      run = record_in<run_record>(std::string(std::istreambuf_iterator<char>(file), {}),  // a file cut short: discarded
                                  [](const nlohmann::ordered_json& j) { return read_results(j); });
    }
  }
  if (!run) {
    run.emplace();
    run->mode = mode;
    run->kbench_version = version;
  }
  run->complete = false;
  run->incomplete_reason = reason;
  run->cases = std::move(cases);
  return *std::move(run);
}

}  // namespace kbench::detail
