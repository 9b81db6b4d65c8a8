// kbench/contract/dimension_rule.hpp: the sizes a dimension of a case may take, declared on its registration
// where a kernel supports fewer than all (a multiple of 8, at least 64, at most 4096). HIP-free.
//
//   KBENCH_REGISTER(rope).shape(...).dimension("head_dim", kbench::multiple_of(2));  // pairs of elements
//   KBENCH_REGISTER(copy).shape(...).dimension("n", kbench::multiple_of(4).at_least(64).at_most(1 << 30));
//
// kbench checks the declared shapes and those given at run time against it, and never runs the shapes
// around the declared ones (decisions/nearby_shapes.hpp) at a size it rules out.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "error.hpp"

namespace kbench {

class dimension_rule {
 public:
  // Each verb checks its bound at once: a bad one is a usage error when the registration runs.
  dimension_rule& multiple_of(std::int64_t m) {
    if (m <= 0) throw usage_error("a dimension rule's multiple_of(" + std::to_string(m) + ") must be above 0");
    multiple_ = m;
    return *this;
  }
  dimension_rule& at_least(std::int64_t least) {
    if (least > most_) throw usage_error(contradiction(least, most_));
    least_ = least;
    return *this;
  }
  dimension_rule& at_most(std::int64_t most) {
    if (least_ > most) throw usage_error(contradiction(least_, most));
    most_ = most;
    return *this;
  }

  [[nodiscard]] std::int64_t multiple() const { return multiple_; }
  [[nodiscard]] std::int64_t least() const { return least_; }
  [[nodiscard]] std::int64_t most() const { return most_; }

  // Sizes are above 0 whatever the rule says (an extent of 0 is no buffer).
  [[nodiscard]] bool allows(std::int64_t size) const {
    return size > 0 && size % multiple_ == 0 && size >= least_ && size <= most_;
  }

  // "a multiple of 8, at least 64"
  [[nodiscard]] std::string describe() const {
    std::string text;
    auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
    if (multiple_ > 1) add("a multiple of " + std::to_string(multiple_));
    if (least_ > std::numeric_limits<std::int64_t>::min()) add("at least " + std::to_string(least_));
    if (most_ < std::numeric_limits<std::int64_t>::max()) add("at most " + std::to_string(most_));
    return text.empty() ? "any size" : text;
  }

 private:
  static std::string contradiction(std::int64_t least, std::int64_t most) {
    return "a dimension rule's at_least(" + std::to_string(least) + ") is above its at_most(" + std::to_string(most) +
           "): no size meets both";
  }

  std::int64_t multiple_ = 1;
  std::int64_t least_ = std::numeric_limits<std::int64_t>::min();
  std::int64_t most_ = std::numeric_limits<std::int64_t>::max();
};

// The first verb of a rule, as a free function: kbench::multiple_of(8).at_least(64).
[[nodiscard]] inline dimension_rule multiple_of(std::int64_t m) { return dimension_rule().multiple_of(m); }
[[nodiscard]] inline dimension_rule at_least(std::int64_t least) { return dimension_rule().at_least(least); }
[[nodiscard]] inline dimension_rule at_most(std::int64_t most) { return dimension_rule().at_most(most); }

}  // namespace kbench
