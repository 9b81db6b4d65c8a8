// kbench/reports/table_report.hpp: a run's results (results.hpp) as one table, a row per case and shape: Markdown
// for people (a pull request, a CI summary), CSV for spreadsheets and scripts. It shows what the results
// document (json_report.hpp) holds: a figure the document writes null is an empty cell; table_file_reporter writes
// one to a file when the run ends. HIP-free.
#pragma once

#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../contract/error.hpp"
#include "../results/census.hpp"
#include "../results/results.hpp"
#include "report.hpp"
#include "reporter.hpp"

namespace kbench {
namespace detail {

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

// One row, as plain values: absent ones are empty cells.
struct table_row {
  std::string case_name;
  std::string shape;            // "rows=37/cols=1531"
  std::string verdict;          // the case's: "pass", "fail", ...
  std::string speedup_verdict;  // "faster", "slower", "no significant difference"; empty: untimed, or a host reference
  std::string mode;             // "cold", "hot", "batch"; empty untimed
  std::optional<double> launches_per_sample;
  std::optional<double> reference_median;  // seconds per launch
  std::optional<double> optimized_median;
  std::optional<double> speedup, speedup_low, speedup_high;
  std::optional<double> bytes_per_second;            // the optimized kernel's
  std::optional<double> fraction_of_copy_bandwidth;  // of the device-to-device copy measured in the same run
  std::optional<double> roofline_share;  // the least time the ceilings allow over the optimized median
  std::string roofline_binding;          // the ceiling that gives that least time ("memory", "compute")
  std::string roofline_bound;            // which ceiling the intensity meets first
  std::optional<double> reference_kernels;  // from the census: kernels one launch of each side runs
  std::optional<double> optimized_kernels;
  std::optional<double> optimized_clock_hz;  // the median SM clock over the optimized kernel's samples
  std::optional<double> speedup_in_cycles;
  // The time saved per call (reference median less optimized median, seconds) and its 95% interval; per layer
  // and per token where the case declares its calls. Absent without a device reference.
  std::optional<double> saved, saved_low, saved_high, saved_per_layer, saved_per_token;
};

// The kernels one launch of a side runs, from a case's census (absent: not captured).
inline std::optional<double> kernel_count(const census_side& side) {
  if (!side.captured) return std::nullopt;
  return static_cast<double>(side.kernels.size());
}

// What a median is in each timing mode: batch times many launches queued back to back and divides.
inline std::string median_meaning(const std::string& mode) {
  if (mode == "batch") return "per launch, back to back";
  return mode.empty() ? "" : "one launch";
}

// A figure a table shows: finite, or absent.
inline std::optional<double> finite(double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; }

// The figures of a positive quantity that the document writes null where they are 0 (a rate of work the case
// does not declare, a share of no roofline): absent there.
inline std::optional<double> positive(double v) { return v > 0 ? finite(v) : std::nullopt; }

inline void add_timing(const timing_result& t, table_row& r) {
  r.mode = std::string(to_string(t.mode));
  r.speedup_verdict = std::string(to_string(t.verdict));
  r.launches_per_sample = static_cast<double>(t.launches_per_sample);
  r.optimized_median = finite(t.optimized.median);
  if (t.reference) r.reference_median = finite(t.reference->median);
  r.speedup = finite(t.speedup);
  r.speedup_low = finite(t.speedup_interval.low);
  r.speedup_high = finite(t.speedup_interval.high);
  if (t.work.bytes > 0) r.bytes_per_second = finite(t.throughput.optimized.bytes_per_second);
  if (t.throughput.optimized.fraction_of_copy) r.fraction_of_copy_bandwidth = finite(*t.throughput.optimized.fraction_of_copy);
  r.roofline_share = positive(t.roofline.optimized_share);
  r.roofline_binding = t.roofline.binding;
  r.roofline_bound = t.roofline.bound;
  if (t.clocks.optimized) r.optimized_clock_hz = finite(t.clocks.optimized->median);
  r.speedup_in_cycles = finite(t.clocks.speedup_in_cycles);
  if (t.saved) {
    r.saved = finite(t.saved->per_call.seconds);
    r.saved_low = finite(t.saved->per_call.ci.low);
    r.saved_high = finite(t.saved->per_call.ci.high);
    if (t.saved->per_layer) r.saved_per_layer = finite(t.saved->per_layer->seconds);
    if (t.saved->per_token) r.saved_per_token = finite(t.saved->per_token->seconds);
  }
}

// "47.26 us (46.90 us to 47.60 us); 94.52 us per layer": the Markdown cell of the time saved.
inline std::string saved_cell(const table_row& r) {
  if (!r.saved) return {};
  std::string cell = format_duration(*r.saved);
  if (r.saved_low && r.saved_high) cell += fmt::format(" ({} to {})", format_duration(*r.saved_low), format_duration(*r.saved_high));
  if (r.saved_per_layer) cell += fmt::format("; {} per layer", format_duration(*r.saved_per_layer));
  if (r.saved_per_token) cell += fmt::format("; {} per token", format_duration(*r.saved_per_token));
  return cell;
}

inline std::vector<table_row> table_rows(const run_record& run) {
  std::vector<table_row> rows;
  for (const case_record& c : run.cases) {
    table_row& r = rows.emplace_back();
    r.case_name = c.case_name;
    r.shape = c.shape.to_string();
    r.verdict = std::string(to_string(c.verdict));
    if (c.timing) add_timing(*c.timing, r);
    if (c.census) {
      if (c.census->reference) r.reference_kernels = kernel_count(*c.census->reference);
      r.optimized_kernels = kernel_count(c.census->optimized);
    }
  }
  return rows;
}

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
inline std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

inline std::string csv_number(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); }

// A figure the runtime gave beside the one the program's own code gives for the device's target ("-" where
// either is absent, -1): "32 / 32". Static shared memory and stack are the build's; dynamic shared memory is the
// launch's alone.
inline std::string run_and_built(long long run, long long built) {
  auto figure = [](long long v) { return v < 0 ? std::string("-") : fmt::format("{:g}", static_cast<double>(v)); };
  return figure(run) + " / " + figure(built);
}

inline std::string launch_dims(const unsigned int (&dims)[3]) { return fmt::format("{}x{}x{}", dims[0], dims[1], dims[2]); }

// A row per kernel of each side of case `c`'s census: where a launch's time went and what each kernel
// holds, at run time and as built.
inline std::string census_rows(const case_record& c) {
  const case_census& census = *c.census;
  const bool amd = census.platform == "amd";
  std::string rows;
  for (const char* side : {"reference", "optimized"}) {
    const census_side* s = side == std::string("reference") ? (census.reference ? &*census.reference : nullptr) : &census.optimized;
    if (s == nullptr || !s->captured) continue;
    for (const census_kernel& k : s->kernels) {
      const std::optional<double> alone = k.median_seconds >= 0 ? finite(k.median_seconds) : std::nullopt;
      const double residency = amd ? k.waves_per_simd : static_cast<double>(k.waves_per_unit);
      rows += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", markdown_cell(c.case_name),
          markdown_cell(c.shape.to_string()), side, markdown_cell(k.name), alone ? format_duration(*alone) : std::string(),
          launch_dims(k.grid), launch_dims(k.block), run_and_built(k.registers, k.built_registers),
          run_and_built(k.static_shared_bytes, k.built_static_shared_bytes), fmt::format("{}", k.dynamic_shared_bytes),
          run_and_built(k.local_bytes, k.built_local_bytes),
          residency >= 0 ? fmt::format("{:g} {}", residency, amd ? "waves/SIMD" : "warps/SM") : "",
          k.occupancy >= 0 ? fmt::format("{:.0f}%", 100 * k.occupancy) : "");
    }
  }
  return rows;
}

// The census's kernels of every case that has one, as a second table (empty: no case had a census).
inline std::string markdown_kernels(const run_record& run) {
  std::string rows;
  for (const case_record& c : run.cases) {
    if (c.census) rows += census_rows(c);
  }
  if (rows.empty()) return "";
  return "\nKernels, from each census (run / built: the runtime's figure on this device / the program's own code for "
         "its target; bytes; local: stack or scratch per thread):\n\n"
         "| case | shape | side | kernel | alone, cold | grid | block | registers | static shared | dynamic shared | "
         "local | residency | occupancy |\n"
         "| --- | --- | --- | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n" +
         rows;
}

}  // namespace detail

// | case | shape | reference median | optimized median | speedup (95% interval) | saved per call (95% interval) |
// bandwidth | of copy | roofline | kernels | verdict | timing | (the mode and the optimized side's median SM clock), with footnotes saying what a median is in the timing modes present. Kernels: one
// launch of each side, from the census ("3 -> 1": a fusion); a second table lists those kernels, each with
// its time and its resources at run time beside the build's.
[[nodiscard]] inline std::string to_markdown(const run_record& results) {
  const std::vector<detail::table_row> rows = detail::table_rows(results);
  bool batch = false, one_launch = false;
  auto median = [&](const std::optional<double>& seconds, const std::string& mode) {
    if (!seconds) return std::string();
    (mode == "batch" ? batch : one_launch) = true;
    return format_duration(*seconds) + (mode == "batch" ? " [1]" : " [2]");
  };
  std::string out =
      "| case | shape | reference median | optimized median | speedup (95% interval) | saved per call (95% interval) | "
      "bandwidth | of copy | roofline | kernels | verdict | timing |\n"
      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n";
  for (const detail::table_row& r : rows) {
    std::string speedup;
    if (r.speedup) {
      speedup = fmt::format("{:.3f}x", *r.speedup);
      if (r.speedup_low && r.speedup_high) {
        speedup += fmt::format(" ({:.3f} to {:.3f})", *r.speedup_low, *r.speedup_high);
      }
    }
    const std::string bandwidth = r.bytes_per_second ? fmt::format("{:.1f} GB/s", *r.bytes_per_second / 1e9) : "";
    const std::string share =
        r.fraction_of_copy_bandwidth ? fmt::format("{:.1f}%", 100 * *r.fraction_of_copy_bandwidth) : "";
    const std::string verdict = r.speedup_verdict.empty() ? r.verdict : r.verdict + ", " + r.speedup_verdict;
    // "96.1% (memory)": the share of the roofline the optimized kernel reaches, by the ceiling that binds;
    // "memory-bound" alone where none binds (a working set the cache may serve).
    std::string roofline;
    if (r.roofline_share) {
      roofline = fmt::format("{:.1f}% ({})", 100 * *r.roofline_share, r.roofline_binding);
    } else if (!r.roofline_bound.empty()) {
      roofline = r.roofline_bound + "-bound";
    }
    std::string kernels;
    if (r.optimized_kernels) {
      kernels = r.reference_kernels ? fmt::format("{:g} -> {:g}", *r.reference_kernels, *r.optimized_kernels)
                                    : fmt::format("{:g}", *r.optimized_kernels);
    }
    std::string timing = r.mode;
    if (r.mode == "batch" && r.launches_per_sample) timing += fmt::format(" ({:g} launches)", *r.launches_per_sample);
    if (r.optimized_clock_hz) timing += fmt::format(", {:.0f} MHz", *r.optimized_clock_hz / 1e6);
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", detail::markdown_cell(r.case_name),
                       detail::markdown_cell(r.shape), median(r.reference_median, r.mode),
                       median(r.optimized_median, r.mode), speedup, detail::saved_cell(r), bandwidth, share, roofline, kernels,
                       detail::markdown_cell(verdict), timing);
  }
  if (batch || one_launch) out += "\n";
  if (batch) {
    out += "[1] per launch, back to back: batch mode times many launches queued together and divides by their "
           "number.\n";
  }
  if (one_launch) out += "[2] one launch: cold mode flushes the caches before it, hot mode does not.\n";
  return out + detail::markdown_kernels(results);
}

// A header row, then a row per case and shape; numbers plain (seconds, bytes per second, fractions; a time
// saved is negative where the optimized kernel is the slower), absent values empty, lines ended by CRLF (RFC 4180).
[[nodiscard]] inline std::string to_csv(const run_record& results) {
  using detail::csv_field;
  using detail::csv_number;
  std::string out =
      "case,shape,verdict,speedup_verdict,timing_mode,median_is,launches_per_sample,reference_median_seconds,"
      "optimized_median_seconds,speedup,speedup_low,speedup_high,bytes_per_second,fraction_of_copy_bandwidth,"
      "roofline_bound,roofline_binding,roofline_share,reference_kernels,optimized_kernels,optimized_clock_hz,"
      "speedup_in_cycles,saved_seconds,saved_low,saved_high,saved_per_layer_seconds,saved_per_token_seconds\r\n";
  for (const detail::table_row& r : detail::table_rows(results)) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\r\n", csv_field(r.case_name), csv_field(r.shape),
                       csv_field(r.verdict), csv_field(r.speedup_verdict), csv_field(r.mode),
                       csv_field(detail::median_meaning(r.mode)), csv_number(r.launches_per_sample),
                       csv_number(r.reference_median), csv_number(r.optimized_median), csv_number(r.speedup),
                       csv_number(r.speedup_low), csv_number(r.speedup_high), csv_number(r.bytes_per_second),
                       csv_number(r.fraction_of_copy_bandwidth), csv_field(r.roofline_bound),
                       csv_field(r.roofline_binding), csv_number(r.roofline_share), csv_number(r.reference_kernels),
                       csv_number(r.optimized_kernels), csv_number(r.optimized_clock_hz), csv_number(r.speedup_in_cycles),
                       csv_number(r.saved), csv_number(r.saved_low), csv_number(r.saved_high),
                       csv_number(r.saved_per_layer), csv_number(r.saved_per_token));
  }
  return out;
}

// Writes `text` to `path` as it is (binary: CSV's CRLF stays); a file that cannot be written is an error,
// not a silent loss (as write_json).
inline void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  if (!file) throw error("cannot write '" + path + "'");
  file << text;
  if (!file) throw error("writing '" + path + "' failed");
}

// A table of the run, to a file when the run ends: Markdown (--markdown) or CSV (--csv).
class table_file_reporter : public reporter {
 public:
  using format = std::string (*)(const run_record&);
  table_file_reporter(std::string path, format table) : path_(std::move(path)), table_(table) {}
  void run_ended(const run_record& run) override { write_text_file(path_, table_(run)); }

 private:
  std::string path_;
  format table_;
};

struct markdown_file_reporter : table_file_reporter {
  explicit markdown_file_reporter(std::string path)
      : table_file_reporter(std::move(path), [](const run_record& run) { return to_markdown(run); }) {}
};

struct csv_file_reporter : table_file_reporter {
  explicit csv_file_reporter(std::string path) : table_file_reporter(std::move(path), [](const run_record& run) { return to_csv(run); }) {}
};

}  // namespace kbench
