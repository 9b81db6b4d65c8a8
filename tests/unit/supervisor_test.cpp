// supervisor.hpp, child_report.hpp: how the parent judges a supervised child from its end and its report,
// reads the report, and writes the document of a run one process did not finish. (The processes
// themselves: tests/support/supervised_probe.cpp, run by the CTest entries kbench.supervisor.*.)
#include <kbench/program/supervisor.hpp>

#include <cstdio>
#include <deque>
#include <fstream>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_supervisor_test {  // one per file: the unit tests compile in unity batches

using kbench::detail::child_end;
using kbench::detail::judge_child;
using kbench::detail::supervised_verdict;

namespace {

const std::string finished = "case rmsnorm/rows=37/cols=1531\ncase rmsnorm/rows=4096/cols=8192\ndone 0\n";
const std::string cut_short = "case rmsnorm/rows=37/cols=1531\ncase rmsnorm/rows=4096/cols=8192\n";

nlohmann::ordered_json read_json(const std::string& path) {
  std::ifstream file(path);
  return nlohmann::ordered_json::parse(file);
}

}  // namespace

TEST_CASE("a child that decided its status and exits with it is the verdict", "[supervisor]") {
  for (int status : {0, 1, 77}) {
    const supervised_verdict v = judge_child(child_end{false, status}, "case a/n=1\ndone " + std::to_string(status) + "\n");
    CHECK(v.status == status);
    CHECK(v.complete);
    CHECK(v.signal == 0);
    CHECK(v.reason.empty());
  }
}

TEST_CASE("a child that ends with status 0 without its completion record fails, naming the case", "[supervisor]") {
  const supervised_verdict v = judge_child(child_end{false, 0}, cut_short);
  CHECK(v.status == 1);
  CHECK_FALSE(v.complete);
  CHECK_THAT(v.reason, kbench_test::contains("ended with status 0 during rmsnorm/rows=4096/cols=8192, before kbench finished"));
  // Nothing at all: before the first case.
  const supervised_verdict early = judge_child(child_end{false, 0}, "");
  CHECK(early.status == 1);
  CHECK_THAT(early.reason, kbench_test::contains("before its first case"));
}

TEST_CASE("an early exit with the skip status is no skip", "[supervisor]") {
  const supervised_verdict v = judge_child(child_end{false, 77}, cut_short);
  CHECK(v.status == 1);
  CHECK_FALSE(v.complete);
}

TEST_CASE("an early failure keeps its own status, and is incomplete", "[supervisor]") {
  const supervised_verdict v = judge_child(child_end{false, 3}, cut_short);
  CHECK(v.status == 3);
  CHECK_FALSE(v.complete);
}

TEST_CASE("a child killed by a signal ends the parent by the same signal", "[supervisor]") {
  const supervised_verdict v = judge_child(child_end{true, 11}, cut_short);
  CHECK(v.signal == 11);
  CHECK(v.status == 1);
  CHECK_FALSE(v.complete);
  CHECK_THAT(v.reason, kbench_test::contains("was killed by signal 11 during rmsnorm/rows=4096/cols=8192"));
  // Even after it decided: a crash in teardown is not a pass.
  CHECK(judge_child(child_end{true, 6}, finished).signal == 6);
}

TEST_CASE("a status changed after kbench decided fails", "[supervisor]") {
  const supervised_verdict v = judge_child(child_end{false, 0}, "case a/n=1\ndone 1\n");
  CHECK(v.status == 1);
  CHECK_FALSE(v.complete);
  CHECK_THAT(v.reason, kbench_test::contains("ended with status 0 after kbench had decided status 1"));
  CHECK(judge_child(child_end{false, 0}, "done 77\n").status == 1);
  CHECK(judge_child(child_end{false, 1}, "done 0\n").status == 1);
}

TEST_CASE("a record cut short, or lines after it, do not make a completion", "[supervisor]") {
  CHECK(judge_child(child_end{false, 0}, "case a/n=1\ndone 0").status == 1);  // no newline: not written whole
  CHECK(judge_child(child_end{false, 0}, "case a/n=1\nnone 0\n").status == 1);
  const supervised_verdict v = judge_child(child_end{false, 0}, "done 0\ncase b/n=1\n");
  CHECK(v.complete);  // the first decision counts; what follows is ignored
  CHECK(v.status == 0);
}

TEST_CASE("a child whose device was lost ended on purpose, and says which case lost it", "[supervisor]") {
  const std::string report = "tests 3\ncase a/n=1\t{}\nrecord {\"case\": \"a\"}\nlost a/n=1's error left its device unusable: "
                             "device 0: cudaErrorMisalignedAddress (misaligned address)\n";
  const supervised_verdict v = judge_child(child_end{false, 1}, report);
  CHECK(v.status == 1);
  CHECK_FALSE(v.complete);
  CHECK_THAT(v.reason, kbench_test::contains("a/n=1's error left its device unusable: device 0: cudaErrorMisalignedAddress"));
  CHECK(v.reason.find("before kbench finished") == std::string::npos);
  // Killed after saying so: the signal is the verdict.
  CHECK_THAT(judge_child(child_end{true, 11}, report).reason, kbench_test::contains("killed by signal 11"));
}

TEST_CASE("a child's report: its plan, the tests it started, its records and the case it ended during", "[supervisor]") {
  const std::string text = "tests 3\n"
                           "case a/n=1\t{\"case\": \"a\", \"verdict\": \"error\"}\n"
                           "record {\"case\": \"a\", \"verdict\": \"pass\"}\n"
                           "case a/n=2\t{\"case\": \"a\", \"verdict\": \"error\", \"message\": \"\"}\n"
                           "near a/n=3\t{\"case\": \"a\", \"verdict\": \"error\", \"message\": \"\"}\n"
                           "record {not json\n"
                           "record {\"case\": \"cut";
  const kbench::detail::child_report r = kbench::detail::read_child_report(text);
  REQUIRE(r.planned);
  CHECK(*r.planned == 3);
  CHECK(r.tests == std::vector<std::string>{"a/n=1", "a/n=2"});  // a neighbour is no test of its own
  CHECK(r.last_started == "a/n=3");
  CHECK(r.records.size() == 1);  // neither the broken record nor the one cut short
  CHECK(r.last_finished);        // a record line came, though broken: that case ended
  CHECK(kbench::detail::tests_left(r) == 1);
  CHECK_FALSE(r.decided);
  // Ended during a neighbour: its record as it started is kept, an error with the reason.
  const kbench::detail::child_report during = kbench::detail::read_child_report("tests 2\ncase a/n=1\t{\"case\": \"a\", \"verdict\": "
                                                                                "\"error\", \"message\": \"\"}\n");
  CHECK_FALSE(during.last_finished);
  std::deque<kbench::case_record> cases;
  kbench::detail::add_cases(during, "the program ended with status 0 during a/n=1", cases);
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].verdict == kbench::case_verdict::error);
  CHECK(cases[0].message == "the program ended with status 0 during a/n=1");
  CHECK(kbench::detail::tests_left(during) == 1);
  // Said nothing of its plan: nothing is known to be left.
  CHECK(kbench::detail::tests_left(kbench::detail::read_child_report("case a/n=1\n")) == 0);
}

TEST_CASE("an incomplete run's document: the run a child sent, the cases every child sent, the reason", "[supervisor]") {
  kbench::run_record run;
  run.mode = kbench::run_mode::perf;
  run.device.name = "a device";
  std::deque<kbench::case_record> cases(1);
  cases[0].case_name = "rmsnorm";
  const nlohmann::ordered_json d = kbench::results_document(
      kbench::detail::incomplete_run("", kbench::run_mode::perf, kbench::read_results(kbench::run_document(run)), cases,
                                     "the program ended with status 0 during rmsnorm"));
  CHECK(d["complete"] == false);
  CHECK(d["incomplete_reason"] == "the program ended with status 0 during rmsnorm");
  CHECK(d["cases"].size() == 1);
  CHECK(d["mode"] == "perf");
  CHECK(d["device"]["name"] == "a device");
}

TEST_CASE("an incomplete run whose children sent no run document: the file one wrote, else one that says why", "[supervisor]") {
  const std::string path = "supervisor_test_results.json";
  kbench::run_record run;
  run.mode = kbench::run_mode::perf;
  run.device.name = "written";
  kbench::write_json(run, path);
  const nlohmann::ordered_json from_file =
      kbench::results_document(kbench::detail::incomplete_run(path, kbench::run_mode::perf, std::nullopt, {}, "killed"));
  CHECK(from_file["device"]["name"] == "written");
  CHECK(from_file["complete"] == false);
  std::remove(path.c_str());
  const nlohmann::ordered_json none =
      kbench::results_document(kbench::detail::incomplete_run(path, kbench::run_mode::census, std::nullopt, {}, "killed"));
  CHECK(none["schema"] == "kbench-results/1");
  CHECK(none["mode"] == "census");
  CHECK(none["incomplete_reason"] == "killed");
  CHECK(none["cases"].empty());
  // A file cut short is replaced the same way.
  std::ofstream(path) << "{\"schema\": \"kbench-res";
  CHECK(kbench::detail::incomplete_run(path, kbench::run_mode::census, std::nullopt, {}, "cut").device.name == "");
  std::remove(path.c_str());
}

TEST_CASE("a program started without a supervisor has a silent channel", "[supervisor]") {
  kbench::detail::completion_channel channel;
  CHECK_FALSE(channel.supervised());
  CHECK_FALSE(channel.ran_before("a/n=1"));
  channel.planned(1);
  channel.starting("a/n=1", "{}", false);  // nothing to write to: no effect
  channel.device_lost("a/n=1's error");
  channel.starting("a/n=2", "{}", false);  // and no end: there is no parent to go on
  channel.completed(0);
}

}  // namespace unit_supervisor_test
