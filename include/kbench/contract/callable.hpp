// kbench/contract/callable.hpp: a copyable, type-erased callable: what std::function is, for a case's
// launches and functions, without <functional>. Every kernel test file reads the contract's headers, and
// libstdc++'s <functional> in C++17 brings <unordered_map> and <bits/stl_algo.h> (for its searchers),
// about an eighth of what the compiler reads there besides HIP's own headers (docs/measured.md).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "error.hpp"

namespace kbench {
namespace detail {

template <class Signature>
class callable;

template <class R, class... Args>
class callable<R(Args...)> {
 public:
  callable() = default;
  callable(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): as std::function
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, callable> &&
                                              std::is_invocable_r_v<R, std::decay_t<F>&, Args...>>>
  callable(F&& f) : held_(new holder<std::decay_t<F>>(std::forward<F>(f))) {}  // NOLINT: as std::function
  callable(const callable& other) : held_(other.held_ ? other.held_->clone() : nullptr) {}
  callable(callable&& other) noexcept : held_(other.held_) { other.held_ = nullptr; }
  callable& operator=(callable other) noexcept {
    std::swap(held_, other.held_);
    return *this;
  }
  ~callable() { delete held_; }

  explicit operator bool() const { return held_ != nullptr; }
  R operator()(Args... args) const {
    if (held_ == nullptr) throw error("kbench: an empty function was called");
    return held_->call(std::forward<Args>(args)...);
  }

 private:
  struct base {
    virtual ~base() = default;
    virtual R call(Args... args) = 0;
    [[nodiscard]] virtual base* clone() const = 0;
  };
  template <class F>
  struct holder final : base {
    template <class G>
    explicit holder(G&& g) : f(std::forward<G>(g)) {}
    R call(Args... args) override { return f(std::forward<Args>(args)...); }
    [[nodiscard]] base* clone() const override { return new holder(f); }
    F f;
  };

  base* held_ = nullptr;
};

}  // namespace detail
}  // namespace kbench
