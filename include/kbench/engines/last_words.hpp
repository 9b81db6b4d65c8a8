// kbench/engines/last_words.hpp: a line the process writes to standard error if it is aborted while a step
// that may end it runs, and nothing otherwise. On AMD the HIP runtime aborts the process at a GPU memory
// fault before any call returns an error (virtual_memory_platform.hpp): the line names what was running
// (procedure/bounds_check.hpp), and the supervisor then reports the case as ended by SIGABRT. Linux: a
// SIGABRT handler installed for the scope's length, which writes the line with write(2) (safe in a signal
// handler), puts back the handler it replaced (Catch2's, say) and raises the signal again for it. Elsewhere
// it says nothing. HIP-free.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#if defined(__linux__)
#include <csignal>
#include <signal.h>
#include <unistd.h>
#endif

namespace kbench {
namespace detail {

class last_words {
 public:
  // While this lives, an abort writes `line` (cut to 511 bytes) to standard error first.
  explicit last_words(const std::string& line) {
#if defined(__linux__)
    const std::size_t n = std::min(line.size(), sizeof state().line - 1);
    std::memcpy(state().line, line.data(), n);
    state().length = static_cast<int>(n);
    struct sigaction words {};
    words.sa_handler = &speak;
    sigemptyset(&words.sa_mask);
    installed_ = sigaction(SIGABRT, &words, &state().previous) == 0;
#else
    (void)line;
#endif
  }
  last_words(const last_words&) = delete;
  last_words& operator=(const last_words&) = delete;
  ~last_words() {
#if defined(__linux__)
    state().length = 0;
    if (installed_) sigaction(SIGABRT, &state().previous, nullptr);
#endif
  }

 private:
#if defined(__linux__)
  struct words_state {
    char line[512];
    volatile std::sig_atomic_t length;
    struct sigaction previous;
  };
  static words_state& state() {
    static words_state s{};
    return s;
  }
  static void speak(int signal) {
    if (state().length > 0) (void)!::write(2, state().line, static_cast<std::size_t>(state().length));
    sigaction(SIGABRT, &state().previous, nullptr);
    raise(signal);
  }
  bool installed_ = false;
#endif
};

}  // namespace detail
}  // namespace kbench
