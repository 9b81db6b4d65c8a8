// A host program that runs itself under kbench's supervisor (program/supervisor.hpp) as a kbench program
// does, and whose child runs cases that end as told: the CTest entries kbench.supervisor.* check the
// parent's exit status, its words, and the results file it writes, without a GPU.
//
//   supervised_probe <how> [results.json]           one case, probe/n=1
//   supervised_probe series <how,how,...> [results.json]
//                                                   a case per word, probe/n=1, 2, ...: a new process after
//                                                   one that ended early runs those its predecessors left
//   how:
//     pass, fail, skip     the case passes, fails, or the child decides 77 (writing the results first)
//     exit, _exit, quick_exit, exit77, abort
//                          the child ends during the case, before deciding (as a planted launch would)
//     lost                 the case's error leaves the device unusable (the child ends as the next starts)
//     written_then_exit    the child writes its results, then ends with _exit(0) before deciding
//     decided_then_exit    the child decides 1, then ends with _exit(0)
#include <kbench/program/supervisor.hpp>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

std::string line(const nlohmann::ordered_json& j) { return j.dump(); }

kbench::case_record record_of(int n) {
  kbench::case_record c;
  c.case_name = "probe";
  c.shape = kbench::shape{{"n", n}};
  return c;
}

// Ends the process during a case, as a planted launch would; returns for any other word.
void end_as_planted(const std::string& how) {
  if (how == "exit") std::exit(0);
  if (how == "_exit") ::_exit(0);
  if (how == "quick_exit") std::quick_exit(0);
  if (how == "exit77") std::exit(77);
  if (how == "abort") std::abort();
}

int child(const std::vector<std::string>& plan, const char* results) {
  kbench::detail::completion_channel& channel = kbench::detail::child_channel();
  kbench::run_record run;
  run.mode = kbench::run_mode::correctness;
  std::vector<int> to_run;
  for (int n = 1; n <= static_cast<int>(plan.size()); ++n) {
    if (!channel.ran_before("probe/n=" + std::to_string(n))) to_run.push_back(n);
  }
  channel.planned(to_run.size());
  int status = 0;
  std::string last;
  for (const int n : to_run) {
    last = plan[static_cast<std::size_t>(n - 1)];
    const std::string& how = last;
    kbench::case_record& c = run.cases.emplace_back(record_of(n));
    channel.starting("probe/n=" + std::to_string(n), line(kbench::detail::case_json(c)), false);
    end_as_planted(how);
    c.verdict = how == "fail" ? kbench::case_verdict::fail : how == "lost" ? kbench::case_verdict::error : kbench::case_verdict::pass;
    if (how == "lost") c.message = "a planted fault";
    channel.finished(line(kbench::detail::case_json(c)));
    if (how == "lost") channel.device_lost("probe/n=" + std::to_string(n) + "'s error left its device unusable: planted");
    if (how == "fail" || how == "lost") status = 1;
    if (how == "skip" && status == 0) status = 77;
  }
  if (results) kbench::write_json(run, results);
  if (last == "written_then_exit") ::_exit(0);
  if (last == "decided_then_exit") {
    channel.completed(1);
    ::_exit(0);
  }
  channel.completed(status, line(kbench::run_document(run)));
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const bool series = std::string(argv[1]) == "series";
  if (series && argc < 3) return 2;
  std::vector<std::string> plan;
  std::istringstream words(series ? argv[2] : argv[1]);
  for (std::string how; std::getline(words, how, ',');) plan.push_back(how);
  const int results_at = series ? 3 : 2;
  const char* results = argc > results_at ? argv[results_at] : nullptr;
  if (kbench::detail::child_channel().supervised()) return child(plan, results);
  try {
    return kbench::detail::supervise(argv, results ? results : "", kbench::run_mode::correctness);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "supervised_probe: %s\n", e.what());
    return 2;
  }
}
