// python/src/tolerance_policy.hpp: tolerance policies composed at run time. In C++ a composition is a type
// (tol::all_of<A, B>, contract/tolerance.hpp); from Python it is a list of the same policies, applied in
// order to one tolerance, so that `tol.allclose(1e-2, 1e-2) & tol.max_mismatch(0.05)` lowers to exactly what
// `tol::allclose{1e-2, 1e-2} && tol::max_mismatch{0.05}` does (the same description, rules and digest).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <kbench/contract/tolerance.hpp>

namespace kbench::python {

class tolerance_policy {
 public:
  // One of kbench's policies. Its parameters are checked here, at once, so that a bad one is an error
  // where it is written rather than where it is applied.
  template <class Policy, class = std::enable_if_t<tol::is_policy_v<Policy>>>
  explicit tolerance_policy(const Policy& policy) {
    kbench::tolerance scratch;
    policy.apply(scratch);
    parts_.push_back([policy](kbench::tolerance& t) { policy.apply(t); });
  }

  // Both hold: this policy's parts, then `other`'s.
  [[nodiscard]] tolerance_policy operator&(const tolerance_policy& other) const {
    tolerance_policy both = *this;
    both.parts_.insert(both.parts_.end(), other.parts_.begin(), other.parts_.end());
    return both;
  }

  // What it says, before it is validated: "allclose(rtol=0.01, atol=0.01) && max_mismatch(5%, each within 10x)".
  [[nodiscard]] std::string describe() const {
    kbench::tolerance t;
    for (const auto& apply : parts_) apply(t);
    return t.description;
  }

  // The engine's tolerance, validated (make_tolerance's rules): one that cannot reject is a usage error.
  [[nodiscard]] kbench::tolerance lower() const {
    kbench::tolerance t;
    for (const auto& apply : parts_) apply(t);
    validate(t);
    return t;
  }

 private:
  std::vector<std::function<void(kbench::tolerance&)>> parts_;
};

}  // namespace kbench::python
