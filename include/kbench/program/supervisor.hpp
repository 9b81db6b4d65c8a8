// kbench/program/supervisor.hpp: a verdict that a case cannot forge, and a case that cannot take the rest
// of the run with it. A launch runs the author's code in the program's process, and code that ends the
// process with status 0 (exit, _exit, quick_exit) would read as passed to CTest, whatever its results;
// code that crashes, or faults on the device (on NVIDIA a misaligned access leaves the context unusable),
// would end every case after it. So `<program> correctness|perf|census` runs as two processes: the parent
// re-executes the program (/proc/self/exe, marked by KBENCH_SUPERVISOR) and never touches the GPU; the
// child runs the cases, sends each case's record as it ends, and, after the last one and the results
// files, tells the parent the status it decided (completion_channel.hpp). The parent judges: a child that
// ends without that word, or with another status than the one it decided, fails the run, and the JSON
// results are marked incomplete ("complete": false, with the reason); the tests it had not started run in
// a new child. Exit hooks alone could not hold: _exit and quick_exit run none. `list` and --help run in
// one process, as before. Linux only (both GPU platforms); elsewhere the program runs in one process.
// HIP-free.
#pragma once

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#if defined(__linux__)
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;
#endif

#include "../reports/json_report.hpp"
#include "../results/results.hpp"
#include "child_report.hpp"
#include "completion_channel.hpp"

namespace kbench::detail {

// How the child ended: its exit status, or the signal that killed it.
struct child_end {
  bool signaled = false;
  int code = 0;  // the exit status, or the signal
};

// The parent's judgement: its own exit status (or the child's signal, raised again so that CTest and a
// shell see the same death), and whether the child's results are complete, and why not.
struct supervised_verdict {
  int status = 0;
  int signal = 0;
  bool complete = true;
  std::string reason;
};

// The child's report and its end: the status it decided, when it got that far, is the verdict; a program
// that ended without deciding, or with another status than it decided, fails (never 0, nor 77, which CTest
// reads as a skip). One whose device was lost ended on purpose, as its next case started.
[[nodiscard]] inline supervised_verdict judge_child(const child_end& end, const child_report& report) {
  const std::string where = report.last_started.empty() ? "before its first case" : "during " + report.last_started;
  const std::string how = end.signaled ? fmt::format("was killed by signal {}", end.code) : fmt::format("ended with status {}", end.code);
  supervised_verdict v;
  if (report.decided && !end.signaled && end.code == *report.decided) {
    v.status = *report.decided;
    return v;
  }
  v.complete = false;
  v.signal = end.signaled ? end.code : 0;
  if (report.decided) {
    v.status = 1;
    v.reason = fmt::format("the program {} after kbench had decided status {} (an exit handler or a destructor "
                           "changed it), so the run fails",
                           how, *report.decided);
  } else if (!report.lost.empty() && !end.signaled) {
    v.status = 1;
    v.reason = fmt::format("{}; that process ended there, so the run fails", report.lost);
  } else {
    v.status = end.signaled || end.code == 0 || end.code == 77 ? 1 : end.code;
    v.reason = fmt::format("the program {} {}, before kbench finished: the launch, the reference or other code of "
                           "the case ended the process (exit, _exit, quick_exit, a crash), so the run fails",
                           how, where);
  }
  return v;
}

[[nodiscard]] inline supervised_verdict judge_child(const child_end& end, const std::string& report) {
  return judge_child(end, read_child_report(report));
}

#if defined(__linux__)

// Reads the child's report until the child ends (a descendant that kept the pipe open does not hold the
// parent: the child's end is looked for five times a second), then reaps it.
inline child_end wait_for_child(pid_t child, int report_fd, std::string& report) {
  char buffer[4096];
  int status = 0;
  bool reaped = false;
  for (;;) {
    pollfd p{report_fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 200);
    if (ready > 0) {
      const ssize_t n = ::read(report_fd, buffer, sizeof buffer);
      if (n > 0) report.append(buffer, static_cast<std::size_t>(n));
      if (n > 0 || (n < 0 && errno == EINTR)) continue;
      break;  // the end of the report
    }
    if (ready < 0 && errno == EINTR) continue;
    if (::waitpid(child, &status, WNOHANG) == child) {
      reaped = true;
      ::fcntl(report_fd, F_SETFL, O_NONBLOCK);
      for (ssize_t n; (n = ::read(report_fd, buffer, sizeof buffer)) > 0;) report.append(buffer, static_cast<std::size_t>(n));
      break;
    }
  }
  while (!reaped && ::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return {true, WTERMSIG(status)};
  return {false, WIFEXITED(status) ? WEXITSTATUS(status) : 1};
}

// Starts this program again as its own supervised child (same arguments, same environment but for
// KBENCH_SUPERVISOR, which also names a file of the tests an earlier child started, when there are any),
// and returns its end and its report.
inline child_end run_child(char** argv, const std::vector<std::string>& started, std::string& report) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw error(fmt::format("kbench cannot supervise the run: pipe: {}", std::strerror(errno)));
  ::fcntl(fds[1], F_SETFD, 0);  // the child's end stays open across its exec
  std::string variable = fmt::format("{}:{}", fds[1], ::getpid());
  int started_fd = -1;
  if (!started.empty()) {
    started_fd = ::memfd_create("kbench-tests-started", 0);  // open across the exec; the child closes it
    if (started_fd < 0) throw error(fmt::format("kbench cannot supervise the run: memfd_create: {}", std::strerror(errno)));
    std::string lines;
    for (const std::string& label : started) lines += label + "\n";
    for (std::size_t written = 0; written < lines.size();) {
      const ssize_t n = ::write(started_fd, lines.data() + written, lines.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw error(fmt::format("kbench cannot supervise the run: writing the tests run: {}", std::strerror(errno)));
      written += static_cast<std::size_t>(n);
    }
    variable += fmt::format(":{}", started_fd);
  }
  ::setenv(supervisor_variable, variable.c_str(), 1);
  pid_t child = 0;
  const int spawned = ::posix_spawn(&child, "/proc/self/exe", nullptr, nullptr, argv, environ);
  ::unsetenv(supervisor_variable);
  ::close(fds[1]);
  if (started_fd >= 0) ::close(started_fd);
  if (spawned != 0) {
    ::close(fds[0]);
    throw error(fmt::format("kbench cannot supervise the run: starting /proc/self/exe: {}", std::strerror(spawned)));
  }
  const child_end end = wait_for_child(child, fds[0], report);
  ::close(fds[0]);
  return end;
}

// What the processes of one run found, as each ended.
struct supervised_run {
  std::deque<case_record> cases;
  std::optional<run_record> run;  // the last run a process sent
  std::optional<supervised_verdict> first_early_end;
  std::string reasons;
};

// Ends the parent as `v` says: with its status, or by the child's signal, raised again so that CTest and a
// shell see the same death.
inline int end_as(const supervised_verdict& v) {
  if (v.signal != 0) {
    const rlimit no_core{0, 0};  // the child left its core dump already
    ::setrlimit(RLIMIT_CORE, &no_core);
    std::signal(v.signal, SIG_DFL);
    std::raise(v.signal);
    return 128 + v.signal;  // a signal that does not end a process
  }
  return v.status;
}

// The parent's part: runs the child and judges its end. A child that ended early during a test, with tests
// left, is followed by a new one that runs those (each process leaves out the tests the ones before it
// started), so that a case that crashes or loses the device fails alone. When every process finished, the
// last one's verdict and results stand; otherwise the run fails, and the parent writes the results file
// (`json_file`, resolved; empty: none) from every process's records, marked incomplete with the reasons,
// and hands that run to `write_others` (the tables, the comparison with a baseline). A results file
// from an earlier run is removed first, so that one left over never reads as this run's.
inline int supervise(char** argv, const std::string& json_file, run_mode mode,
                     const std::function<void(const run_record&)>& write_others = {}) {
  struct stat existing {};
  if (!json_file.empty() && ::stat(json_file.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) {
    std::remove(json_file.c_str());  // a plain file only: never /dev/stdout or a pipe
  }
  supervised_run run;
  std::vector<std::string> started;
  for (;;) {
    std::string text;
    const child_end end = run_child(argv, started, text);
    const child_report report = read_child_report(text);
    const supervised_verdict verdict = judge_child(end, report);
    add_cases(report, verdict.reason, run.cases);
    if (report.run) run.run = report.run;
    if (verdict.complete && !run.first_early_end) return verdict.status;
    if (verdict.complete) break;
    std::fprintf(stderr, "kbench: %s\n", verdict.reason.c_str());
    if (!run.first_early_end) run.first_early_end = verdict;
    run.reasons += (run.reasons.empty() ? "" : "; ") + verdict.reason;
    const std::size_t left = tests_left(report);
    if (report.tests.empty() || left == 0) break;
    started.insert(started.end(), report.tests.begin(), report.tests.end());
    std::fprintf(stderr, "kbench: the run goes on in a new process with the %zu test%s after %s\n", left,
                 left == 1 ? "" : "s", report.tests.back().c_str());
  }
  const run_record incomplete = incomplete_run(json_file, mode, run.run, std::move(run.cases), run.reasons);
  if (!json_file.empty()) {
    write_json_document(results_document(incomplete), mode, json_file, "kbench");
    std::fprintf(stderr, "kbench: %s is marked incomplete\n", json_file.c_str());
  }
  if (write_others) write_others(incomplete);
  return end_as(*run.first_early_end);
}

inline constexpr bool can_supervise = true;
#else
inline int supervise(char**, const std::string&, run_mode, const std::function<void(const run_record&)>& = {}) {
  return 1;
}
inline constexpr bool can_supervise = false;
#endif

}  // namespace kbench::detail
