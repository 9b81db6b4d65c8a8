// last_words.hpp: an abort while the scope lives writes its line to standard error, then ends the process by
// SIGABRT as before; after the scope, an abort writes nothing. Each in a child process of its own (Linux).
#include <kbench/engines/last_words.hpp>

#include <csignal>
#include <cstdlib>
#include <string>

#if defined(__linux__)
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "../catch.hpp"

namespace unit_last_words_test {  // one per file: the unit tests compile in unity batches

#if defined(__linux__)
namespace {

// What a child that runs `body` (its standard error a pipe) wrote, and how it ended.
struct ending {
  std::string written;
  int signal = 0;
};

template <class Body>
ending in_child(Body body) {
  int pipe_ends[2];
  REQUIRE(::pipe(pipe_ends) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(pipe_ends[1], 2);
    ::close(pipe_ends[0]);
    body();
    ::_exit(0);
  }
  ::close(pipe_ends[1]);
  ending e;
  char buffer[256];
  for (ssize_t n; (n = ::read(pipe_ends[0], buffer, sizeof buffer)) > 0;) e.written.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_ends[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
  return e;
}

}  // namespace

TEST_CASE("an abort while the scope lives writes the line, then ends the process by SIGABRT", "[last_words]") {
  const ending inside = in_child([] {
    std::signal(SIGABRT, SIG_DFL);  // as a process without Catch2's handler starts
    const kbench::detail::last_words words("kbench: the process ended while the kernel ran\n");
    std::abort();
  });
  CHECK(inside.written == "kbench: the process ended while the kernel ran\n");
  CHECK(inside.signal == SIGABRT);
  const ending after = in_child([] {
    std::signal(SIGABRT, SIG_DFL);
    { const kbench::detail::last_words words("never written\n"); }
    std::abort();
  });
  CHECK(after.written.empty());
  CHECK(after.signal == SIGABRT);
}
#endif

}  // namespace unit_last_words_test
