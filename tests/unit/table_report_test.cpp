// table_report.hpp: a run's results as a Markdown table and as CSV (read back from their document, as a file's are).
#include <kbench/reports/table_report.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <kbench/reports/json_read.hpp>
#include <kbench/reports/json_report.hpp>

#include "../catch.hpp"

namespace unit_table_report_test {  // one per file: the unit tests compile in unity batches

using json = nlohmann::ordered_json;

namespace {

kbench::timing_result timing(kbench::timing_mode mode, double optimized, double reference) {
  kbench::timing_result t;
  t.mode = mode;
  t.launches_per_sample = mode == kbench::timing_mode::batch ? 100 : 1;
  t.optimized = kbench::summarize({optimized});
  t.reference = kbench::summarize({reference});
  t.speedup = reference / optimized;
  t.speedup_interval = {1.9, 2.1};
  t.verdict = kbench::speedup_verdict::faster;
  t.work.bytes = 2e8;
  t.throughput = kbench::throughput_of(t.work, t.optimized.median, t.reference->median, 4e12);
  kbench::roofline_ceilings ceilings;
  ceilings.memory_bytes_per_second = 4e12;
  ceilings.memory_binds = mode == kbench::timing_mode::cold;  // hot and batch: the cache may serve it
  t.roofline = kbench::roofline_of(t.work, ceilings, t.optimized.median, t.reference->median);
  return t;
}

// A cold case, a batch case, and a case whose name needs quoting in CSV.
kbench::run_record sample_run() {
  kbench::run_record run;
  run.mode = kbench::run_mode::perf;
  run.copy = kbench::copy_bandwidth{4e12, 1u << 30, kbench::summarize({5e-4})};
  auto add = [&](const std::string& name, kbench::shape shape, std::optional<kbench::timing_result> t) {
    kbench::case_record& c = run.cases.emplace_back();
    c.case_name = name;
    c.shape = std::move(shape);
    c.verdict = kbench::case_verdict::pass;
    c.timing = std::move(t);
  };
  add("rmsnorm", {{"rows", 2}, {"cols", 3}}, timing(kbench::timing_mode::cold, 1e-4, 2e-4));
  add("rmsnorm", {{"rows", 2}, {"cols", 6}}, timing(kbench::timing_mode::batch, 5e-6, 1e-5));
  add("soft\"max,v2", {{"n", 8}}, timing(kbench::timing_mode::hot, 1e-3, 2e-3));
  // The first case's time saved, at two calls per layer; the others' is not given (empty cells).
  run.cases[0].timing->work.calls_per_layer = 2;
  run.cases[0].timing->saved = kbench::time_saved{{1e-4, {9e-5, 1.1e-4}}, kbench::saved_seconds{2e-4, {1.8e-4, 2.2e-4}}, std::nullopt};
  // The first case's census: a fusion, three kernels against one.
  kbench::case_census census;
  census.reference.emplace().captured = true;
  census.reference->kernels.resize(3);
  census.optimized.captured = true;
  census.optimized.kernels.resize(1);
  kbench::census_kernel& fused = census.optimized.kernels[0];
  fused.name = "fused_kernel<4>";
  fused.grid[0] = 2;
  fused.block[0] = 256;
  fused.dynamic_shared_bytes = 512;
  fused.registers = 40;
  fused.built_registers = 40;
  fused.static_shared_bytes = 1024;
  fused.built_static_shared_bytes = 1024;
  fused.local_bytes = 0;
  fused.built_local_bytes = 16;  // disagrees: the table shows both
  fused.waves_per_unit = 48;
  fused.occupancy = 0.75;
  fused.median_seconds = 9e-5;
  census.platform = "nvidia";
  run.cases[0].census = census;
  return run;
}

// The run as its document gives it back.
kbench::run_record document(const kbench::run_record& run) { return kbench::read_results(json::parse(kbench::to_json(run))); }

std::size_t lines_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

// The first table: a row per case and shape (the kernels' table follows it).
std::string case_table(const std::string& markdown) { return markdown.substr(0, markdown.find("\nKernels, from")); }

}  // namespace

TEST_CASE("markdown: a header, a row per case and shape, and what a median is in each mode", "[table]") {
  const std::string md = case_table(kbench::to_markdown(document(sample_run())));
  CHECK(md.rfind("| case | shape | reference median | optimized median | speedup (95% interval) | saved per call (95% "
                 "interval) | bandwidth | of copy | roofline | kernels | verdict | timing |\n| --- |",
                 0) == 0);
  CHECK(lines_starting(md, "| rmsnorm |") == 2);
  CHECK(lines_starting(md, "| soft\"max,v2 |") == 1);
  // The roofline: 2e8 bytes at 4 TB/s take 50 us at the least, half the optimized median; hot and batch
  // medians are bound by nothing (the cache may serve them).
  CHECK_THAT(md, kbench_test::contains("| rmsnorm | rows=2/cols=3 | 200.00 us [2] | 100.00 us [2] | 2.000x (1.900 to "
                                       "2.100) | 100.00 us (90.00 us to 110.00 us); 200.00 us per layer | 2000.0 GB/s | "
                                       "50.0% | 50.0% (memory) | 3 -> 1 | pass, faster | cold |\n"));
  CHECK_THAT(md, kbench_test::contains("| 2.000x (1.900 to 2.100) |  | 40000.0 GB/s |"));  // none given
  CHECK_THAT(md, kbench_test::contains("| memory-bound |  | pass, faster | batch (100 launches) |\n"));
  CHECK_THAT(md, kbench_test::contains("| 10.00 us [1] | 5.00 us [1] |"));
  CHECK_THAT(md, kbench_test::contains("| batch (100 launches) |"));
  CHECK_THAT(md, kbench_test::contains("[1] per launch, back to back"));
  CHECK_THAT(md, kbench_test::contains("[2] one launch"));
}

TEST_CASE("markdown: a census lists each kernel with its resources at run time beside the build's", "[table]") {
  const std::string md = kbench::to_markdown(document(sample_run()));
  CHECK_THAT(md, kbench_test::contains("| case | shape | side | kernel | alone, cold | grid | block | registers | "
                                       "static shared | dynamic shared | local | residency | occupancy |\n"));
  CHECK_THAT(md, kbench_test::contains("| rmsnorm | rows=2/cols=3 | optimized | fused_kernel<4> | 90.00 us | 2x1x1 | "
                                       "256x1x1 | 40 / 40 | 1024 / 1024 | 512 | 0 / 16 | 48 warps/SM | 75% |\n"));
  // The reference's three kernels, their figures unknown: dashes, not zeros.
  CHECK(lines_starting(md, "| rmsnorm | rows=2/cols=3 | reference |  |  | 1x1x1 | 1x1x1 | - / - | - / - | 0 | - / - |") == 3);
  kbench::run_record amd = sample_run();
  amd.cases[0].census->platform = "amd";
  amd.cases[0].census->optimized.kernels[0].waves_per_simd = 2.5;
  CHECK_THAT(kbench::to_markdown(document(amd)), kbench_test::contains("| 2.5 waves/SIMD | 75% |\n"));
  kbench::run_record none = sample_run();
  none.cases[0].census.reset();
  CHECK_THAT(kbench::to_markdown(document(none)), !kbench_test::contains("Kernels, from each census"));
  // A document whose census is not kbench's shape is an error naming the case, not a crash.
  json broken = json::parse(kbench::to_json(sample_run()));
  broken["cases"][0]["census"]["optimized"]["kernels"][0]["name"] = 7;
  CHECK_THROWS_WITH(kbench::read_results(broken), kbench_test::contains("the census of case 'rmsnorm' in the results"));
}

TEST_CASE("markdown: a cell holding '|' does not split the row", "[table]") {
  kbench::run_record run = sample_run();
  run.cases[0].case_name = "a|b";
  CHECK(lines_starting(case_table(kbench::to_markdown(document(run))), "| a\\|b | rows=2/cols=3 |") == 1);
}

TEST_CASE("csv: a header, plain numbers, RFC 4180 quoting and CRLF", "[table]") {
  const std::string csv = kbench::to_csv(document(sample_run()));
  const std::string header =
      "case,shape,verdict,speedup_verdict,timing_mode,median_is,launches_per_sample,reference_median_seconds,"
      "optimized_median_seconds,speedup,speedup_low,speedup_high,bytes_per_second,fraction_of_copy_bandwidth,"
      "roofline_bound,roofline_binding,roofline_share,reference_kernels,optimized_kernels,optimized_clock_hz,"
      "speedup_in_cycles,saved_seconds,saved_low,saved_high,saved_per_layer_seconds,saved_per_token_seconds\r\n";
  CHECK(csv.rfind(header, 0) == 0);
  CHECK_THAT(csv, kbench_test::contains("\r\nrmsnorm,rows=2/cols=3,pass,faster,cold,one launch,1,0.0002,0.0001,2,"
                                        "1.9,2.1,2000000000000,0.5,memory,memory,0.5,3,1,,,0.0001,9e-05,0.00011,0.0002,\r\n"));
  CHECK_THAT(csv, kbench_test::contains("\r\nrmsnorm,rows=2/cols=6,pass,faster,batch,\"per launch, back to "
                                        "back\",100,"));
  CHECK_THAT(csv, kbench_test::contains("\r\n\"soft\"\"max,v2\",n=8,pass,faster,hot,one launch,1,"));
  CHECK(lines_starting(csv, "rmsnorm,") == 2);
}

TEST_CASE("a correctness run gives its verdicts and empty timing cells", "[table]") {
  kbench::run_record run = sample_run();
  run.mode = kbench::run_mode::correctness;
  run.copy.reset();
  for (kbench::case_record& c : run.cases) c.timing.reset();
  run.cases[1].verdict = kbench::case_verdict::fail;
  const kbench::run_record doc = document(run);
  CHECK_THAT(kbench::to_csv(doc), kbench_test::contains("\r\nrmsnorm,rows=2/cols=6,fail,,,,,,,,,,,,,,,,,,,,,,,\r\n"));
  CHECK_THAT(kbench::to_markdown(doc), kbench_test::contains("| rmsnorm | rows=2/cols=6 |  |  |  |  |  |  |  |  | fail |  |\n"));
  CHECK_THAT(kbench::to_markdown(doc), !kbench_test::contains("[1]"));
}

TEST_CASE("a document of another schema is a usage error", "[table]") {
  CHECK_THROWS_AS(kbench::read_results(json{{"schema", "other/1"}, {"cases", json::array()}}), kbench::usage_error);
  CHECK_THROWS_AS(kbench::read_results(json::array()), kbench::usage_error);
}

TEST_CASE("write_text_file writes the text as it is, or throws", "[table]") {
  CHECK_THROWS_AS(kbench::write_text_file("/nonexistent-dir/table.csv", "x"), kbench::error);
  const char* path = "kbench_table_report_test.csv";
  kbench::write_text_file(path, "a,b\r\n1,2\r\n");
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  CHECK(text.str() == "a,b\r\n1,2\r\n");
  std::remove(path);
}

}  // namespace unit_table_report_test
