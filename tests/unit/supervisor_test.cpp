// supervisor.hpp: how the parent judges a supervised child from its end and its report, and how it marks
// a results file incomplete. (The processes themselves: tests/support/supervised_probe.cpp, run by the
// CTest entries kbench.supervisor.*.)
#include <kbench/program/supervisor.hpp>

#include <cstdio>
#include <fstream>
#include <string>

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

TEST_CASE("an incomplete run's results file says so, and keeps what the child wrote", "[supervisor]") {
  const std::string path = "supervisor_test_results.json";
  kbench::run_record run;
  run.mode = kbench::run_mode::perf;
  run.cases.emplace_back().case_name = "rmsnorm";
  kbench::write_json(run, path);
  kbench::detail::mark_incomplete(path, kbench::run_mode::perf, "the program ended with status 0 during rmsnorm");
  const nlohmann::ordered_json marked = read_json(path);
  CHECK(marked["complete"] == false);
  CHECK(marked["incomplete_reason"] == "the program ended with status 0 during rmsnorm");
  CHECK(marked["cases"].size() == 1);
  CHECK(marked["mode"] == "perf");
  std::remove(path.c_str());
}

TEST_CASE("an incomplete run without a results file gets one that says why", "[supervisor]") {
  const std::string path = "supervisor_test_missing.json";
  std::remove(path.c_str());
  kbench::detail::mark_incomplete(path, kbench::run_mode::census, "killed");
  const nlohmann::ordered_json marked = read_json(path);
  CHECK(marked["schema"] == "kbench-results/1");
  CHECK(marked["mode"] == "census");
  CHECK(marked["complete"] == false);
  CHECK(marked["incomplete_reason"] == "killed");
  CHECK(marked["cases"].empty());
  // A file cut short is replaced the same way.
  std::ofstream(path) << "{\"schema\": \"kbench-res";
  kbench::detail::mark_incomplete(path, kbench::run_mode::census, "cut");
  CHECK(read_json(path)["incomplete_reason"] == "cut");
  std::remove(path.c_str());
}

TEST_CASE("a program started without a supervisor has a silent channel", "[supervisor]") {
  const kbench::detail::completion_channel channel;
  CHECK_FALSE(channel.supervised());
  channel.starting("a/n=1");  // nothing to write to: no effect
  channel.completed(0);
}

}  // namespace unit_supervisor_test
