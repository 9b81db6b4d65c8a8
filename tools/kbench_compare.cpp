// kbench-compare: a perf run against an earlier one, for CI. Host-only.
//   kbench-compare OLD.json NEW.json [--threshold 0.05] [--intended-change] [--json PATH] [--markdown PATH]
// Prints the comparison (kbench/decisions/baseline.hpp), with the cases whose test changed (declaration or
// reference kernels); exit status 0 without a regression, 1 with one (a case slower beyond the threshold,
// failing now, or whose reference's time moved beyond it without --intended-change; or a NEW run that is
// incomplete), 2 on bad usage or a file that cannot be read or written.
#include <exception>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <kbench/decisions/baseline.hpp>
#include <kbench/reports/table_report.hpp>

namespace {

constexpr int exit_regression = 1;
constexpr int exit_usage = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kbench-compare: compares a kbench perf run (--json results) with an earlier one; exits 0 without "
               "a regression, 1 with one, 2 on bad usage"};
  std::string baseline_path, current_path, json_path, markdown_path;
  kbench::baseline_options options;
  app.add_option("baseline", baseline_path, "the earlier run's results (OLD.json)")->required();
  app.add_option("current", current_path, "this run's results (NEW.json)")->required();
  app.add_option("--threshold", options.threshold,
                 "relative slowdown that counts as a regression, when the whole 95% interval is beyond it")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  app.add_flag("--intended-change", options.intended_change,
               "the test changed on purpose: a reference whose time moved is noted, not a regression");
  app.add_option("--json", json_path, "also write the comparison as JSON to this file");
  app.add_option("--markdown", markdown_path, "also write the comparison as a Markdown table to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);  // prints the help, or the error and a hint
    return status == 0 ? 0 : exit_usage;
  }
  try {
    const kbench::baseline_report report = kbench::compare_with_baseline(
        kbench::load_results(baseline_path), kbench::load_results(current_path), options);
    fmt::print("{}", kbench::format_baseline(report));
    if (!json_path.empty()) kbench::write_text_file(json_path, kbench::to_json(report).dump(2) + "\n");
    if (!markdown_path.empty()) kbench::write_text_file(markdown_path, kbench::to_markdown(report));
    return report.regressed() ? exit_regression : 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kbench-compare: {}\n", e.what());
    return exit_usage;
  }
}
