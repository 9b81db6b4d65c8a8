// kbench/program/completion_channel.hpp: what a supervised program (the child that program/supervisor.hpp
// starts) tells its parent: a line as each case starts ("case <label>"), and, after every case finished
// and the results were written, the exit status kbench decided ("done <status>"). A program that ends
// without that last line ended early (a launch that called exit(0), say), and the parent fails the run.
// The parent names a pipe's descriptor in KBENCH_SUPERVISOR ("<fd>:<parent pid>"); a program started
// without it (list, --help, a platform without the split) has a channel that says nothing. HIP-free.
#pragma once

#include <cerrno>
#include <cstdlib>
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
    if (colon != std::string::npos && ::getppid() != std::atoi(text.substr(colon + 1).c_str())) ::_exit(1);
#endif
  }
  completion_channel(const completion_channel&) = delete;
  completion_channel& operator=(const completion_channel&) = delete;

  [[nodiscard]] bool supervised() const { return fd_ >= 0; }
  // A case starts: the parent names it if the program ends during it.
  void starting(const std::string& label) const { send("case " + label + "\n"); }
  // Every case finished and the results are written: the status the program exits with.
  void completed(int status) const { send("done " + std::to_string(status) + "\n"); }

 private:
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
};

// The program's channel, opened on first use (run_main opens it before anything runs).
inline const completion_channel& child_channel() {
  static const completion_channel channel;
  return channel;
}

}  // namespace kbench::detail
