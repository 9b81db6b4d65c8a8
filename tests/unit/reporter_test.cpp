// reporter.hpp: the writers of a run's results told the run's events, one list telling several in order; the JSON
// file, the tables and the comparison with a baseline as reporters write what their functions write.
#include <kbench/reports/reporter.hpp>
#include <kbench/decisions/baseline.hpp>
#include <kbench/reports/json_report.hpp>
#include <kbench/reports/table_report.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_reporter_test {  // one per file: the unit tests compile in unity batches

namespace {

// Says what it was told, in order, into a shared list.
class recorder : public kbench::reporter {
 public:
  recorder(std::string name, std::vector<std::string>& heard) : name_(std::move(name)), heard_(heard) {}
  void case_ended(const kbench::case_record& record) override { heard_.push_back(name_ + " case " + record.case_name); }
  void run_ended(const kbench::run_record& run) override {
    heard_.push_back(name_ + " ended with " + std::to_string(run.cases.size()));
  }

 private:
  std::string name_;
  std::vector<std::string>& heard_;
};

std::string text_of(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string data(const char* name) { return std::string(KBENCH_TEST_DATA) + "/" + name; }

}  // namespace

TEST_CASE("a reporter list tells each of its reporters every event, in the order they were added", "[reporter]") {
  std::vector<std::string> heard;
  kbench::reporter_list list;
  CHECK(list.empty());
  list.add<recorder>("a", heard);
  recorder& b = list.add<recorder>("b", heard);
  (void)b;
  kbench::run_record run;
  run.kbench_version = "0.1.0";
  run.cases.emplace_back().case_name = "rmsnorm";
  list.case_ended(run.cases[0]);
  list.run_ended(run);
  CHECK(heard == std::vector<std::string>{"a case rmsnorm", "b case rmsnorm", "a ended with 1", "b ended with 1"});
}

TEST_CASE("the JSON file, the tables and the comparison, as reporters, write what their functions write", "[reporter]") {
  const kbench::run_record run = kbench::load_results(data("results-slower.json"));
  kbench::reporter_list list;
  list.add<kbench::json_file_reporter>("/nonexistent-dir/", "build/tests/kbench_program");
  list.add<kbench::markdown_file_reporter>("reporter_test.md");
  list.add<kbench::csv_file_reporter>("reporter_test.csv");
  std::FILE* printed = std::tmpfile();
  REQUIRE(printed != nullptr);
  const kbench::baseline_reporter& baseline = list.add<kbench::baseline_reporter>(data("results.json"), kbench::baseline_options{}, printed);
  // The JSON file cannot be written (no such folder): an error, and the writers after it do not run.
  CHECK_THROWS_WITH(list.run_ended(run), kbench_test::contains("/nonexistent-dir/kbench_program.perf.json"));
  CHECK_FALSE(baseline.regressed());
  kbench::reporter_list tables;
  tables.add<kbench::markdown_file_reporter>("reporter_test.md");
  tables.add<kbench::csv_file_reporter>("reporter_test.csv");
  const kbench::baseline_reporter& compared = tables.add<kbench::baseline_reporter>(data("results.json"), kbench::baseline_options{}, printed);
  tables.run_ended(run);
  CHECK(text_of("reporter_test.md") == kbench::to_markdown(run));
  CHECK(text_of("reporter_test.csv") == kbench::to_csv(run));
  CHECK(compared.regressed());  // rmsnorm/rows=4096/cols=16384 is 1.3x slower
  std::rewind(printed);
  std::string text;
  for (int c; (c = std::fgetc(printed)) != EOF;) text += static_cast<char>(c);
  std::fclose(printed);
  const std::string expected =
      "\nagainst the baseline " + data("results.json") + ":\n" +
      kbench::format_baseline(kbench::compare_with_baseline(kbench::load_results(data("results.json")), run));
  CHECK(text == expected);
  std::remove("reporter_test.md");
  std::remove("reporter_test.csv");
  // A run of another mode is not compared.
  kbench::run_record correctness = run;
  correctness.mode = kbench::run_mode::correctness;
  kbench::baseline_reporter other(data("results.json"), kbench::baseline_options{}, nullptr);
  other.run_ended(correctness);
  CHECK_FALSE(other.regressed());
  // The JSON file, to a path: what write_json writes.
  kbench::json_file_reporter file("reporter_test.json", "kbench");
  file.run_ended(run);
  CHECK(text_of("reporter_test.json") == kbench::to_json(run) + "\n");
  std::remove("reporter_test.json");
}

}  // namespace unit_reporter_test
