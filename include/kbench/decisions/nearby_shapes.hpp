// kbench/decisions/nearby_shapes.hpp: the shapes around a case's declared ones that its correctness run also checks,
// the first of the extended checks. A kernel engineer declares the shapes of a typical run, and the bugs that ship are
// at sizes next to them: a tail that a vector or a tile leaves over. So each dimension of a declared shape also runs
// one step below and one step above (one less and one more, or one multiple of the dimension's rule: a size at a
// multiple of 8 then has neighbours that are not, and one that is not already breaks 8-wide accesses itself), within
// the case's dimension rules (contract/dimension_rule.hpp); flags are never varied. HIP-free.
//
// Cost: a neighbour of a 16384 x 8192 shape costs what the shape does, so only the declared shapes whose
// buffers hold at most small_case_elements elements get neighbours (a few milliseconds each), and the
// smallest declared shape of every case whatever its size, so that no case goes without.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../contract/dimension_rule.hpp"
#include "../contract/error.hpp"
#include "../contract/shape.hpp"

namespace kbench {

using dimension_rules = std::vector<std::pair<std::string, dimension_rule>>;

// What the choice needs to know of a declared shape: the elements of all its buffers (its cost) and the
// dimensions the case reads as flags there (kernel_case::flag), which are switches, not sizes.
struct declared_shape_facts {
  kbench::shape shape;
  double elements = 0.0;
  std::vector<std::string> flags;
};

// 2^22 elements (16 MiB of fp32): a correctness run of that size is a few milliseconds of device work. Up to
// it, the extended checks run in full: the shapes around a declared one (here) and every misalignment
// (procedure/alignment_check.hpp).
inline constexpr double small_case_elements = 4194304.0;

// The rule a case declares on `dimension`, or null.
[[nodiscard]] inline const dimension_rule* rule_for(const dimension_rules& rules, const std::string& dimension) {
  for (const auto& r : rules) {
    if (r.first == dimension) return &r.second;
  }
  return nullptr;
}

// The first of `rules` that shape `s` breaks, or null when it meets them all.
[[nodiscard]] inline const std::pair<std::string, dimension_rule>* broken_rule(const dimension_rules& rules,
                                                                                const kbench::shape& s) {
  for (const auto& r : rules) {
    if (s.has(r.first) && !r.second.allows(s[r.first])) return &r;
  }
  return nullptr;
}

// A usage error when a declared shape breaks a rule, or a rule names a dimension that none of `shapes` has
// (a typo would rule nothing).
inline void check_dimension_rules(const std::string& case_name, const std::vector<kbench::shape>& shapes,
                                  const dimension_rules& rules) {
  for (const kbench::shape& s : shapes) {
    if (const auto* broken = broken_rule(rules, s)) {
      throw usage_error("case '" + case_name + "': shape " + s.to_string() + " breaks its rule on dimension '" +
                        broken->first + "' (" + broken->second.describe() + ")");
    }
  }
  for (const auto& r : rules) {
    bool named = false;
    for (const kbench::shape& s : shapes) named = named || s.has(r.first);
    if (!named && !shapes.empty()) {
      throw usage_error("case '" + case_name + "' has a rule on dimension '" + r.first + "', which none of its shapes has");
    }
  }
}

// The shapes one step from `s` along each of its dimensions that is not a flag, in the shape's order, the
// smaller first; a step is the dimension's multiple (1 without a rule), and a size its rule rules out is left out.
[[nodiscard]] inline std::vector<kbench::shape> shapes_around(const kbench::shape& s, const dimension_rules& rules,
                                                              const std::vector<std::string>& flags) {
  std::vector<kbench::shape> around;
  for (std::size_t i = 0; i < s.dims().size(); ++i) {
    const auto& [dimension, size] = s.dims()[i];
    bool flag = false;
    for (const std::string& f : flags) flag = flag || f == dimension;
    if (flag) continue;
    const dimension_rule* declared = rule_for(rules, dimension);
    const dimension_rule rule = declared ? *declared : dimension_rule();
    const std::int64_t step = rule.multiple();
    for (const bool above : {false, true}) {
      if (above && size > std::numeric_limits<std::int64_t>::max() - step) continue;
      const std::int64_t next = above ? size + step : size - step;
      if (!rule.allows(next)) continue;
      std::vector<kbench::shape::dimension> dims = s.dims();
      dims[i].second = next;
      around.emplace_back(std::move(dims), s.parameters());
    }
  }
  return around;
}

// The case's smallest declared shape (the first of the smallest, on a tie): whatever its size, it gets its
// neighbours, and the other extended checks where no declared shape is small (program.hpp).
[[nodiscard]] inline std::size_t smallest_declared(const std::vector<declared_shape_facts>& declared) {
  std::size_t smallest = 0;
  for (std::size_t i = 1; i < declared.size(); ++i) {
    if (declared[i].elements < declared[smallest].elements) smallest = i;
  }
  return smallest;
}

// Whether declared shape `index` gets neighbours: it is cheap (small_case_elements), or the case's smallest.
[[nodiscard]] inline bool gets_nearby_shapes(const std::vector<declared_shape_facts>& declared, std::size_t index) {
  return index == smallest_declared(declared) || declared.at(index).elements <= small_case_elements;
}

// The shapes near declared shape `index` that the correctness run checks: shapes_around() of it when it gets
// neighbours, less the declared shapes and those an earlier declared shape has as neighbours (each runs once).
[[nodiscard]] inline std::vector<kbench::shape> nearby_shapes(const std::vector<declared_shape_facts>& declared,
                                                              std::size_t index, const dimension_rules& rules) {
  std::set<std::string> taken;
  for (const declared_shape_facts& d : declared) taken.insert(d.shape.to_string());
  for (std::size_t i = 0; i < index; ++i) {
    if (!gets_nearby_shapes(declared, i)) continue;
    for (const kbench::shape& s : shapes_around(declared[i].shape, rules, declared[i].flags)) taken.insert(s.to_string());
  }
  std::vector<kbench::shape> nearby;
  if (!gets_nearby_shapes(declared, index)) return nearby;
  for (kbench::shape& s : shapes_around(declared[index].shape, rules, declared[index].flags)) {
    if (taken.insert(s.to_string()).second) nearby.push_back(std::move(s));
  }
  return nearby;
}

// The option that runs a shape alone: "--shape rows=37,cols=1530" (its label, commas between the parts).
[[nodiscard]] inline std::string shape_option(const kbench::shape& s) {
  std::string text = s.to_string();
  std::replace(text.begin(), text.end(), '/', ',');
  return "--shape " + text;
}

}  // namespace kbench
