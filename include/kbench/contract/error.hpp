// kbench/contract/error.hpp: the exceptions kbench throws. HIP errors derive from these in hip_check.hpp.
//
// Kernel files include this (through hip_check.hpp, for the launch check), so it stays off <string> and
// <stdexcept>: on nvcc those two cost a kernel file's compile a quarter of a second, an eighth of the whole.
// The message is kept as std::runtime_error keeps its own, shared by the copies, which neither allocate
// nor throw (an exception's copy must not).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string_view>

namespace kbench {

namespace detail {

// An immutable text and its count of holders; the last holder frees it.
class shared_message {
 public:
  explicit shared_message(std::string_view text) : text_(new char[text.size() + 1]) {
    std::memcpy(text_, text.data(), text.size());
    text_[text.size()] = '\0';
    try {
      holders_ = new std::atomic<std::size_t>(1);
    } catch (...) {
      delete[] text_;
      throw;
    }
  }
  shared_message(const shared_message& other) noexcept : text_(other.text_), holders_(other.holders_) {
    holders_->fetch_add(1, std::memory_order_relaxed);
  }
  shared_message& operator=(const shared_message& other) noexcept {
    other.holders_->fetch_add(1, std::memory_order_relaxed);  // first: `other` may be this
    release();
    text_ = other.text_;
    holders_ = other.holders_;
    return *this;
  }
  ~shared_message() { release(); }

  [[nodiscard]] const char* c_str() const noexcept { return text_; }

 private:
  void release() noexcept {
    if (holders_->fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    delete[] text_;
    delete holders_;
  }

  char* text_;
  std::atomic<std::size_t>* holders_ = nullptr;
};

}  // namespace detail

// Base of every error kbench reports; what() is one line that says what went wrong and where. Takes any
// text (a std::string, a literal, fmt's result).
class error : public std::exception {
 public:
  explicit error(std::string_view message) : message_(message) {}
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

 private:
  detail::shared_message message_;
};

// A case, a tolerance or an option was declared in a way that cannot give a meaningful verdict.
class usage_error : public error {
 public:
  using error::error;
};

// A case that cannot run here (it spans more GPUs than the machine shows): skipped, with this reason.
class skipped_case : public error {
 public:
  using error::error;
};

}  // namespace kbench
