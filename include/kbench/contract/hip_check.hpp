// kbench/contract/hip_check.hpp: every HIP call goes through KBENCH_HIP_CHECK, which throws kbench::hip_error naming
// the call, the file, the line and HIP's error string; KBENCH_HIP_CHECK_NOTHROW reports instead, for
// destructors; KBENCH_HIP_CHECK_LAUNCH checks the last error after a kernel launch. On NVIDIA they take a
// cudaError_t too (CUB, the CUDA runtime), as HIP's error of the same meaning. Kernel files include this:
// no <string> here (error.hpp says why).
#pragma once

#include <cstdio>
#include <string_view>

#include "error.hpp"
#include "platform.hpp"

namespace kbench {

class hip_error : public error {
 public:
  hip_error(hipError_t code, std::string_view message) : error(message), code_(code) {}
  [[nodiscard]] hipError_t code() const noexcept { return code_; }

 private:
  hipError_t code_;
};

namespace detail {

// "<expression> failed at <file>:<line>: <name> (<description>)", cut to the buffer (an expression of a
// thousand characters loses its end).
struct hip_error_text {
  char text[1024];
};

inline hip_error_text describe_hip_error(hipError_t code, const char* expression, const char* file, int line) {
  hip_error_text d;
  std::snprintf(d.text, sizeof d.text, "%s failed at %s:%d: %s (%s)", expression, file, line, hipGetErrorName(code),
                hipGetErrorString(code));
  return d;
}

// An error thrown or reported here is consumed: the runtime also keeps a failed call's error as its last
// error, which the next launch's check would read (and blame on that launch) once this one was caught and
// handled. An error of the context (a fault) stays whatever is read.
[[noreturn]] inline void throw_hip_error(hipError_t code, const char* expression, const char* file, int line) {
  (void)hipGetLastError();
  throw hip_error(code, describe_hip_error(code, expression, file, line).text);
}

inline void report_hip_error(hipError_t code, const char* expression, const char* file, int line) noexcept {
  (void)hipGetLastError();
  std::fprintf(stderr, "kbench: %s\n", describe_hip_error(code, expression, file, line).text);
}

}  // namespace detail
}  // namespace kbench

#define KBENCH_HIP_CHECK(expression)                                                        \
  do {                                                                                      \
    const hipError_t kbench_status_ = ::kbench::detail::as_hip_error(expression);           \
    if (kbench_status_ != hipSuccess)                                                       \
      ::kbench::detail::throw_hip_error(kbench_status_, #expression, __FILE__, __LINE__);   \
  } while (false)

#define KBENCH_HIP_CHECK_NOTHROW(expression)                                                \
  do {                                                                                      \
    const hipError_t kbench_status_ = ::kbench::detail::as_hip_error(expression);           \
    if (kbench_status_ != hipSuccess)                                                       \
      ::kbench::detail::report_hip_error(kbench_status_, #expression, __FILE__, __LINE__);  \
  } while (false)

#define KBENCH_HIP_CHECK_LAUNCH() KBENCH_HIP_CHECK(hipGetLastError())
