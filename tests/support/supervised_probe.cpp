// A host program that runs itself under kbench's supervisor (program/supervisor.hpp) as a kbench program
// does, and whose child ends as told: the CTest entries kbench.supervisor.* check the parent's exit status,
// its words, and the results file it marks, without a GPU.
//
//   supervised_probe <how> [results.json]
//     pass, fail, skip     the child decides 0, 1 or 77 and exits with it (writing the results first)
//     exit, _exit, quick_exit, exit77, abort
//                          the child ends during its case, before deciding (as a planted launch would)
//     written_then_exit    the child writes its results, then ends with _exit(0) before deciding
//     decided_then_exit    the child decides 1, then ends with _exit(0)
#include <kbench/program/supervisor.hpp>

#include <cstdlib>
#include <string>

#include <unistd.h>

namespace {

// The results a finished child writes: one case, complete.
void write_results(const char* path, kbench::case_verdict verdict) {
  kbench::run_record run;
  run.mode = kbench::run_mode::correctness;
  kbench::case_record& c = run.cases.emplace_back();
  c.case_name = "probe";
  c.shape = kbench::shape{{"n", 1}};
  c.verdict = verdict;
  kbench::write_json(run, path);
}

int child(const std::string& how, const char* results) {
  const kbench::detail::completion_channel& channel = kbench::detail::child_channel();
  channel.starting("probe/n=1");
  if (how == "exit") std::exit(0);
  if (how == "_exit") ::_exit(0);
  if (how == "quick_exit") std::quick_exit(0);
  if (how == "exit77") std::exit(77);
  if (how == "abort") std::abort();
  const int status = how == "fail" ? 1 : how == "skip" ? 77 : 0;
  if (results) write_results(results, status == 0 ? kbench::case_verdict::pass : kbench::case_verdict::fail);
  if (how == "written_then_exit") ::_exit(0);
  if (how == "decided_then_exit") {
    channel.completed(1);
    ::_exit(0);
  }
  channel.completed(status);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* results = argc > 2 ? argv[2] : nullptr;
  if (kbench::detail::child_channel().supervised()) return child(argv[1], results);
  try {
    return kbench::detail::supervise(argv, results ? results : "", kbench::run_mode::correctness);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "supervised_probe: %s\n", e.what());
    return 2;
  }
}
