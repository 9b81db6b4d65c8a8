// python/src/bind_results.hpp: a run's results as Python values: the typed records of results.hpp (verdict,
// findings, figures, census), read from a "kbench-results/1" document by json_read.hpp, written back by
// json_report.hpp, and each case's console report (case_report.hpp). Read-only: results are made by a run,
// never edited afterwards.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbench/contract/declaration_digest.hpp>
#include <kbench/reports/json_read.hpp>
#include <kbench/reports/json_report.hpp>
#include <kbench/results/outcome.hpp>
#include <kbench/results/results.hpp>

#include "case_report.hpp"

namespace kbench::python {

namespace detail {

// The same words the document and the reports use (outcome.hpp's to_string).
template <class Enum>
[[nodiscard]] std::string word(Enum e) {
  return std::string(to_string(e));
}

inline void bind_findings(py::module_& m) {
  py::class_<finding>(m, "Finding")
      .def_property_readonly("kind", [](const finding& f) { return word(f.kind); })
      .def_readonly("text", &finding::text)
      .def_property_readonly("fails", &finding::fails)
      .def("__repr__", [](const finding& f) { return "<kbench.Finding " + word(f.kind) + ": " + f.text + ">"; });
  py::class_<sourced_finding, finding>(m, "SourcedFinding")
      .def_property_readonly("source", [](const sourced_finding& f) { return word(f.source); });
}

inline void bind_checks(py::module_& m) {
  py::class_<comparison>(m, "Comparison")
      .def_readonly("passed", &comparison::passed)
      .def_readonly("reasons", &comparison::reasons)
      .def_property_readonly("tolerance", [](const comparison& c) { return c.applied.description; })
      .def_readonly("size", &comparison::size)
      .def_readonly("mismatches", &comparison::mismatches)
      .def_readonly("never_written", &comparison::never_written)
      .def_readonly("max_abs_error", &comparison::max_abs_error)
      .def_readonly("max_rel_error", &comparison::max_rel_error)
      .def_readonly("cosine_similarity", &comparison::cosine_similarity);
  py::class_<output_result>(m, "Output")
      .def_readonly("name", &output_result::name)
      .def_readonly("dtype", &output_result::type)
      .def_readonly("extents", &output_result::extents)
      .def_readonly("comparison", &output_result::result);
  py::class_<seed_result>(m, "Check")
      .def_readonly("seed", &seed_result::seed)
      .def_property_readonly("passed", &seed_result::passed)
      .def_readonly("problems", &seed_result::problems)
      .def_readonly("outputs", &seed_result::outputs)
      .def_readonly("edge_runs", &seed_result::edge_runs);
}

inline void bind_timing(py::module_& m) {
  py::class_<sample_stats>(m, "SampleStats")
      .def_readonly("count", &sample_stats::count)
      .def_readonly("median", &sample_stats::median)
      .def_readonly("mean", &sample_stats::mean)
      .def_readonly("min", &sample_stats::min)
      .def_readonly("max", &sample_stats::max)
      .def_readonly("stddev", &sample_stats::stddev);
  py::class_<timing_result>(m, "Timing")
      .def_property_readonly("mode", [](const timing_result& t) { return word(t.mode); })
      .def_readonly("method", &timing_result::method)
      .def_readonly("optimized", &timing_result::optimized)
      .def_readonly("reference", &timing_result::reference)
      .def_readonly("speedup", &timing_result::speedup)
      .def_property_readonly("speedup_interval", [](const timing_result& t) {
        return std::make_pair(t.speedup_interval.low, t.speedup_interval.high);
      })
      .def_property_readonly("verdict", [](const timing_result& t) { return word(t.verdict); })
      .def_readonly("latency", &timing_result::latency)
      .def_readonly("hot_latency", &timing_result::hot_latency)
      .def_property_readonly("bytes_per_second", [](const timing_result& t) { return t.throughput.optimized.bytes_per_second; })
      .def_property_readonly("fraction_of_copy", [](const timing_result& t) { return t.throughput.optimized.fraction_of_copy; })
      .def_readonly("findings", &timing_result::findings);
  py::class_<case_census>(m, "Census")
      .def_property_readonly("optimized_kernels", [](const case_census& c) { return c.optimized.kernels.size(); })
      .def_readonly("platform", &case_census::platform)
      .def_readonly("findings", &case_census::findings);
}

inline void bind_case_record(py::module_& m) {
  py::class_<case_record>(m, "CaseRecord")
      .def_readonly("case_name", &case_record::case_name)
      .def_readonly("shape", &case_record::shape)
      .def_property_readonly("label", [](const case_record& c) { return case_label(c.case_name, c.shape); })
      .def_property_readonly("verdict", [](const case_record& c) { return word(c.verdict); })
      .def_readonly("message", &case_record::message)
      .def_readonly("checks", &case_record::checks)
      .def_readonly("timing", &case_record::timing)
      .def_readonly("census", &case_record::census)
      .def_readonly("wall_seconds", &case_record::wall_seconds)
      .def_readonly("declaration", &case_record::declaration)
      .def_property_readonly("declaration_digest", [](const case_record& c) -> std::optional<std::string> {
        if (c.declaration.empty()) return std::nullopt;
        return kbench::detail::digest_of_lines(c.declaration);
      })
      .def("failure_reasons", &failure_reasons)
      .def("report", &case_report);
}

inline void bind_run(py::module_& m) {
  py::class_<gpu_info>(m, "Device")
      .def_readonly("usable", &gpu_info::usable)
      .def_readonly("reason", &gpu_info::reason)
      .def_readonly("platform", &gpu_info::platform)
      .def_readonly("name", &gpu_info::name)
      .def_readonly("arch", &gpu_info::arch);
  py::class_<run_record>(m, "Run")
      .def_property_readonly("mode", [](const run_record& r) { return word(r.mode); })
      .def_readonly("kbench_version", &run_record::kbench_version)
      .def_readonly("compiler", &run_record::compiler)
      .def_readonly("device", &run_record::device)
      .def_readonly("complete", &run_record::complete)
      .def_readonly("incomplete_reason", &run_record::incomplete_reason)
      .def_property_readonly("cases", [](const run_record& r) { return std::vector<case_record>(r.cases.begin(), r.cases.end()); })
      .def("to_json", [](const run_record& r) { return kbench::to_json(r); });
  // The document's text (not a path: the Python side opens files), read by kbench's one reader.
  m.def("read_results_text", [](const std::string& text) {
    nlohmann::ordered_json document;
    try {
      document = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::ordered_json::parse_error& e) {
      throw usage_error(std::string("the results are not JSON: ") + e.what());
    }
    return read_results(document);
  }, py::arg("text"));
}

}  // namespace detail

inline void bind_results(py::module_& m) {
  detail::bind_findings(m);
  detail::bind_checks(m);
  detail::bind_timing(m);
  detail::bind_case_record(m);
  detail::bind_run(m);
}

}  // namespace kbench::python
