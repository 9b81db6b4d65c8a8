// case_verdict.hpp: the one function that decides a case's verdict, for every mode and every way a case
// ends, on plain results.
#include <kbench/decisions/case_verdict.hpp>

#include <string>

#include "../catch.hpp"

namespace unit_case_verdict_test {  // one per file: the unit tests compile in unity batches

using kbench::case_decision;
using kbench::case_ending;
using kbench::case_verdict;
using kbench::case_work;
using kbench::finding_kind;
using kbench::run_mode;

namespace {

// A correctness run whose one output passed or failed.
kbench::seed_result seed_run(bool passed) {
  kbench::seed_result r;
  r.outputs.emplace_back().result.passed = passed;
  return r;
}

case_work checks(std::initializer_list<bool> passed) {
  case_work w;
  for (const bool p : passed) w.checks.push_back(seed_run(p));
  return w;
}

// A perf outcome that passed each step, with `timing_finding` among the timing's findings when given.
kbench::perf_outcome perf_passing(std::optional<kbench::finding> timing_finding = std::nullopt) {
  kbench::perf_outcome o;
  o.before = seed_run(true);
  o.timing.emplace();
  if (timing_finding) o.timing->findings.push_back(*timing_finding);
  o.census.emplace();
  o.after = seed_run(true);
  return o;
}

}  // namespace

TEST_CASE("a case that did not run is filtered, skipped or an error, with the reason", "[verdict]") {
  for (const run_mode mode : {run_mode::correctness, run_mode::perf, run_mode::census}) {
    const case_decision filtered = kbench::decide_case(mode, false, case_ending::filtered, "more than --max-elements", {});
    CHECK(filtered.verdict == case_verdict::filtered);
    CHECK(filtered.message == "more than --max-elements");
    CHECK(kbench::decide_case(mode, false, case_ending::skipped, "no GPU", {}).verdict == case_verdict::skipped);
    const case_decision error = kbench::decide_case(mode, false, case_ending::error, "hipErrorOutOfMemory", checks({true}));
    CHECK(error.verdict == case_verdict::error);
    CHECK(error.message == "hipErrorOutOfMemory");
  }
  // A shape near a declared one that cannot run is left out: the run does not read as skipped.
  CHECK(kbench::decide_case(run_mode::correctness, true, case_ending::skipped, "spans 2 GPUs", {}).verdict ==
        case_verdict::filtered);
}

TEST_CASE("correctness passes only when every seed passed", "[verdict]") {
  CHECK(kbench::decide_case(run_mode::correctness, false, case_ending::ran, "", checks({true, true})).verdict ==
        case_verdict::pass);
  CHECK(kbench::decide_case(run_mode::correctness, false, case_ending::ran, "", checks({true, false})).verdict ==
        case_verdict::fail);
  CHECK(kbench::decide_case(run_mode::correctness, true, case_ending::ran, "", checks({false})).verdict ==
        case_verdict::fail);
  // A run that checked nothing cannot pass.
  CHECK(kbench::decide_case(run_mode::correctness, false, case_ending::ran, "", {}).verdict == case_verdict::error);
}

TEST_CASE("perf fails with the outcome's first failure", "[verdict]") {
  case_work work;
  work.perf = perf_passing();
  CHECK(kbench::decide_case(run_mode::perf, false, case_ending::ran, "", work).verdict == case_verdict::pass);
  work.perf = perf_passing(kbench::finding{finding_kind::note, "worth knowing"});
  CHECK(kbench::decide_case(run_mode::perf, false, case_ending::ran, "", work).verdict == case_verdict::pass);
  work.perf = perf_passing(kbench::finding{finding_kind::unseen_work, "work on another stream"});
  const case_decision flagged = kbench::decide_case(run_mode::perf, false, case_ending::ran, "", work);
  CHECK(flagged.verdict == case_verdict::fail);
  CHECK(flagged.message == "work on another stream");
  work.perf = perf_passing();
  work.perf->before = seed_run(false);
  work.perf->timing.reset();
  const case_decision wrong = kbench::decide_case(run_mode::perf, false, case_ending::ran, "", work);
  CHECK(wrong.verdict == case_verdict::fail);
  CHECK(wrong.message.find("refusing to time a kernel that is not correct") == 0);
  work.perf = perf_passing();
  work.perf->after = seed_run(false);
  CHECK(kbench::decide_case(run_mode::perf, false, case_ending::ran, "", work).message.find("wrong after it") !=
        std::string::npos);
  // A perf test whose procedure returned nothing is an error, never a pass.
  CHECK(kbench::decide_case(run_mode::perf, false, case_ending::ran, "", {}).verdict == case_verdict::error);
}

TEST_CASE("the census needs a correct kernel, and fails with its first failing finding", "[verdict]") {
  case_work work = checks({false});
  const case_decision wrong = kbench::decide_case(run_mode::census, false, case_ending::ran, "", work);
  CHECK(wrong.verdict == case_verdict::fail);
  CHECK(wrong.message.find("refusing to take the census") == 0);
  work = checks({true});
  CHECK(kbench::decide_case(run_mode::census, false, case_ending::ran, "", work).verdict == case_verdict::error);
  work.census.emplace();
  work.census->findings.push_back({finding_kind::note, "the census shows no figures of the build"});
  CHECK(kbench::decide_case(run_mode::census, false, case_ending::ran, "", work).verdict == case_verdict::pass);
  work.census->findings.push_back({finding_kind::census_mismatch, "the optimized side launches 3 kernels"});
  const case_decision mismatch = kbench::decide_case(run_mode::census, false, case_ending::ran, "", work);
  CHECK(mismatch.verdict == case_verdict::fail);
  CHECK(mismatch.message == "the optimized side launches 3 kernels");
}

}  // namespace unit_case_verdict_test
