// kbench/program/completion_channel.hpp: what a supervised program (the child that program/supervisor.hpp
// starts) tells its parent, one line each:
//   tests <n>                 the tests (cases at declared shapes) this process will run
//   case <label>\t<record>    a test starts, with its record as it starts (JSON on one line)
//   near <label>\t<record>    a shape near the test's declared one starts, inside the test
//   record <record>           that case finished: its record
//   lost <why>                the device is unusable after the last case's error: this process ends as the
//                             next case starts, and the parent goes on in a new one
//   run <document>            every case finished: the results document without its cases
//   done <status>             and the results were written: the exit status kbench decided
// A program that ends without the last line ended early (a launch that called exit(0), a crash), and the
// parent fails the run, keeps the records it got, and runs the tests not yet started in a new process.
// The parent names the pipe's descriptor in KBENCH_SUPERVISOR ("<fd>:<parent pid>[:<fd of done tests>]",
// the last a file of the labels an earlier process started, one per line, that this one leaves out); a
// program started without it (list, --help, a platform without the split) has a channel that says
// nothing. HIP-free.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#if defined(__linux__)
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>
#endif

namespace kbench::detail {

inline constexpr const char* supervisor_variable = "KBENCH_SUPERVISOR";

class completion_channel {
 public:
  // The channel KBENCH_SUPERVISOR names, taken out of the environment (a program this one starts is not
  // the parent's child), and closed to any program it starts.
  completion_channel() {
#if defined(__linux__)
    const char* value = std::getenv(supervisor_variable);
    if (value == nullptr) return;
    const std::string text(value);
    ::unsetenv(supervisor_variable);
    const std::size_t colon = text.find(':');
    fd_ = std::atoi(text.substr(0, colon).c_str());
    if (fd_ <= 2 || ::fcntl(fd_, F_SETFD, FD_CLOEXEC) != 0) {
      fd_ = -1;
      return;
    }
    // The child does not outlive its parent (a killed ctest, a timeout): the GPU is left to the next test.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const std::size_t second = colon == std::string::npos ? colon : text.find(':', colon + 1);
    if (colon != std::string::npos && ::getppid() != std::atoi(text.substr(colon + 1, second - colon - 1).c_str())) ::_exit(1);
    if (second != std::string::npos) read_tests_run_before(std::atoi(text.substr(second + 1).c_str()));
#endif
  }
  completion_channel(const completion_channel&) = delete;
  completion_channel& operator=(const completion_channel&) = delete;

  [[nodiscard]] bool supervised() const { return fd_ >= 0; }
  // Whether an earlier process of this run started the test `label` (it is not run again).
  [[nodiscard]] bool ran_before(const std::string& label) const { return run_before_.count(label) != 0; }

  // The number of tests this process will run.
  void planned(std::size_t tests) const { send("tests " + std::to_string(tests) + "\n"); }
  // A test starts (`near`: a shape near its declared one, inside it), with its record as it starts; the
  // parent names it, and keeps that record as its result, if the program ends before it finishes. A
  // process whose device was lost ends here instead, for the parent to go on in a new one.
  void starting(const std::string& label, const std::string& record, bool near) const {
    if (lost_) end_for_new_process();
    send((near ? "near " : "case ") + label + "\t" + record + "\n");
  }
  void finished(const std::string& record) const { send("record " + record + "\n"); }
  // The last case's error left the device unusable (on NVIDIA a fault ends the context's use).
  void device_lost(const std::string& why) {
    lost_ = supervised();
    send("lost " + one_line(why) + "\n");
  }
  // Every case finished and the results are written: the run's document without its cases, and the
  // status the program exits with.
  void completed(int status, const std::string& run_document = "") const {
    if (!run_document.empty()) send("run " + run_document + "\n");
    send("done " + std::to_string(status) + "\n");
  }

 private:
  static std::string one_line(std::string text) {
    for (char& c : text) c = c == '\n' ? ' ' : c;
    return text;
  }

  // (std::cout, where Catch2 writes, is synchronized with C's streams: flushing those flushes it.)
  [[noreturn]] static void end_for_new_process() {
    std::fflush(nullptr);
    ::_exit(1);
  }

  void read_tests_run_before(int fd) {
#if defined(__linux__)
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(text.size()))) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    for (std::size_t begin = 0, end; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1) {
      run_before_.insert(text.substr(begin, end - begin));
    }
#else
    (void)fd;
#endif
  }

  void send(const std::string& line) const {
#if defined(__linux__)
    for (std::size_t sent = 0; fd_ >= 0 && sent < line.size();) {
      const ssize_t n = ::write(fd_, line.data() + sent, line.size() - sent);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the parent is gone: nothing to tell
      sent += static_cast<std::size_t>(n);
    }
#else
    (void)line;
#endif
  }

  int fd_ = -1;
  bool lost_ = false;
  std::set<std::string> run_before_;
};

// The program's channel, opened on first use (run_main opens it before anything runs).
inline completion_channel& child_channel() {
  static completion_channel channel;
  return channel;
}

}  // namespace kbench::detail
