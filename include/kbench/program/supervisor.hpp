// kbench/program/supervisor.hpp: a verdict that a case cannot forge. A launch runs the author's code in the
// program's process, and code that ends the process with status 0 (exit, _exit, quick_exit) would read
// as passed to CTest, whatever its results. So `<program> correctness|perf|census` runs as two processes:
// the parent re-executes the program (/proc/self/exe, marked by KBENCH_SUPERVISOR) and never touches the
// GPU; the child runs every case and, after the last one and the results files, tells the parent the
// status it decided (completion_channel.hpp). The parent judges: a child that ends without that word, or
// with another status than the one it decided, fails the run, and the JSON results are marked
// incomplete ("complete": false, with the reason). Exit hooks alone could not hold: _exit and quick_exit
// run none. `list` and --help run in one process, as before. Linux only (both GPU platforms); elsewhere
// the program runs in one process. HIP-free.
#pragma once

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#if defined(__linux__)
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;
#endif

#include "../results/json_report.hpp"
#include "../version.hpp"
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

// The child's report and its end (completion_channel.hpp's lines): the status it decided, when it got that
// far, is the verdict; a program that ended without deciding, or with another status than it decided,
// fails (never 0, nor 77, which CTest reads as a skip).
[[nodiscard]] inline supervised_verdict judge_child(const child_end& end, const std::string& report) {
  std::string last_case;
  bool decided = false;
  int decided_status = 0;
  for (std::size_t begin = 0; begin < report.size() && !decided;) {
    const std::size_t newline = report.find('\n', begin);
    if (newline == std::string::npos) break;  // a line cut short is no word
    const std::string line = report.substr(begin, newline - begin);
    if (line.rfind("case ", 0) == 0) last_case = line.substr(5);
    if (line.rfind("done ", 0) == 0) {
      decided = true;
      decided_status = std::atoi(line.c_str() + 5);
    }
    begin = newline + 1;
  }
  const std::string where = last_case.empty() ? "before its first case" : "during " + last_case;
  const std::string how = end.signaled ? fmt::format("was killed by signal {}", end.code) : fmt::format("ended with status {}", end.code);
  supervised_verdict v;
  if (decided && !end.signaled && end.code == decided_status) {
    v.status = decided_status;
    return v;
  }
  v.complete = false;
  v.signal = end.signaled ? end.code : 0;
  if (decided) {
    v.status = 1;
    v.reason = fmt::format("the program {} after kbench had decided status {} (an exit handler or a destructor "
                           "changed it), so the run fails",
                           how, decided_status);
  } else {
    v.status = end.signaled || end.code == 0 || end.code == 77 ? 1 : end.code;
    v.reason = fmt::format("the program {} {}, before kbench finished: the launch, the reference or other code of "
                           "the case ended the process (exit, _exit, quick_exit, a crash), so the run fails",
                           how, where);
  }
  return v;
}

// Marks the results file at `path` incomplete, with the reason; when the child wrote none (or not a kbench
// document), a document with no cases takes its place, so that a pipeline reading it finds the reason.
inline void mark_incomplete(const std::string& path, run_mode mode, const std::string& reason) {
  nlohmann::ordered_json document;
  if (std::ifstream file(path); file) {
    document = nlohmann::ordered_json::parse(file, nullptr, false);  // a file cut short: discarded
  }
  if (!document.is_object() || !document.contains("schema") || document["schema"] != "kbench-results/1") {
    run_record run;
    run.mode = mode;
    run.kbench_version = version;
    document = results_document(run);
  }
  document["complete"] = false;
  document["incomplete_reason"] = reason;
  write_json_document(document, mode, path, "kbench");
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
// KBENCH_SUPERVISOR), and returns its end and its report.
inline child_end run_child(char** argv, std::string& report) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw error(fmt::format("kbench cannot supervise the run: pipe: {}", std::strerror(errno)));
  ::fcntl(fds[1], F_SETFD, 0);  // the child's end stays open across its exec
  ::setenv(supervisor_variable, fmt::format("{}:{}", fds[1], ::getpid()).c_str(), 1);
  pid_t child = 0;
  const int spawned = ::posix_spawn(&child, "/proc/self/exe", nullptr, nullptr, argv, environ);
  ::unsetenv(supervisor_variable);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    throw error(fmt::format("kbench cannot supervise the run: starting /proc/self/exe: {}", std::strerror(spawned)));
  }
  const child_end end = wait_for_child(child, fds[0], report);
  ::close(fds[0]);
  return end;
}

// The parent's part: runs the child, judges its end, marks its results file (`json_file`, resolved;
// empty: none) incomplete when it is, and ends as the verdict says. A results file from an earlier run
// is removed first, so that one left over never reads as this run's.
inline int supervise(char** argv, const std::string& json_file, run_mode mode) {
  struct stat existing {};
  if (!json_file.empty() && ::stat(json_file.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) {
    std::remove(json_file.c_str());  // a plain file only: never /dev/stdout or a pipe
  }
  std::string report;
  const child_end end = run_child(argv, report);
  const supervised_verdict verdict = judge_child(end, report);
  if (!verdict.complete) {
    std::fprintf(stderr, "kbench: %s\n", verdict.reason.c_str());
    if (!json_file.empty()) {
      mark_incomplete(json_file, mode, verdict.reason);
      std::fprintf(stderr, "kbench: %s is marked incomplete\n", json_file.c_str());
    }
  }
  if (verdict.signal != 0) {
    const rlimit no_core{0, 0};  // the child left its core dump already
    ::setrlimit(RLIMIT_CORE, &no_core);
    std::signal(verdict.signal, SIG_DFL);
    std::raise(verdict.signal);
    return 128 + verdict.signal;  // a signal that does not end a process
  }
  return verdict.status;
}

inline constexpr bool can_supervise = true;
#else
inline int supervise(char**, const std::string&, run_mode) { return 1; }
inline constexpr bool can_supervise = false;
#endif

}  // namespace kbench::detail
