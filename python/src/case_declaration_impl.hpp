// python/src/case_declaration_impl.hpp: the definitions of case_declaration's verbs that check their arguments
// (case_declaration.hpp), and of what it gives the digest. Included by exactly one translation unit, the
// binding's (module.cpp), as kbench's kernel_case_impl.hpp is by a program's procedure: the replay and the run
// read a declaration and compile none of its checks.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "case_declaration.hpp"

namespace kbench::python {

kbench::detail::declaration_facts case_declaration::facts() const {
  kbench::detail::declaration_facts f;
  f.name = name_;
  f.shape = shape_;
  f.registered_shapes = registered_;
  f.reference = reference_ == side_kind::host ? "host" : reference_ == side_kind::device ? "device" : "none";
  f.optimized = optimized_ == side_kind::device ? "device" : "none";
  for (const declared_python_buffer& b : buffers_) {
    if (b.absent) continue;  // nothing allocates, draws, compares or digests it
    kbench::detail::buffer_facts& facts = f.buffers.emplace_back();
    facts.layout = b.layout;
    if (b.bytes_query) facts.layout.sized_when_opened = true;
    if (drawn(b.layout.role)) facts.init = b.init;
    facts.edge_values = b.edge_values;
    if (compared(b.layout.role)) facts.compared = tolerance_of(b);
  }
  f.work = work_;
  f.expectations = expectations_;
  f.census = census_;
  f.deterministic = deterministic_;
  f.oracle = oracle_;
  f.oracle_ratio = oracle_ratio_;
  f.requires_alignment = requires_alignment_;
  f.edge_values = edge_values_;
  return f;
}

// A new buffer, checked: a unique name, extents > 0, addressable (declared_case::add_buffer's rules). Where
// this build has a kernel_case to replay onto, the replay rejects what breaks them.
declared_python_buffer& case_declaration::add_buffer(std::string buffer_name, buffer_role role, dtype type,
                                                     const std::vector<std::int64_t>& extents) {
  std::size_t size = 0;
  const std::string problem = rules::extents(buffer_name, type, extents, size);
  mirror(problem);
  std::vector<std::size_t> checked;
  for (std::int64_t e : extents) checked.push_back(e > 0 ? static_cast<std::size_t>(e) : 0);
  declared_python_buffer& b = new_buffer(std::move(buffer_name), role, type);
  b.layout.extents = std::move(checked);
  b.layout.size = problem.empty() ? size : 0;  // unchecked (the GPU build): the replay's to reject
  b.given_extents = extents;
  return b;
}

// A drawn buffer, its distribution within the range of its type (declared_case::add_drawn's checks).
declared_python_buffer& case_declaration::add_drawn(std::string buffer_name, buffer_role role, dtype type,
                                                    const std::vector<std::int64_t>& extents,
                                                    const std::optional<distribution>& given) {
  const distribution init = given ? *given : detail::default_distribution(type);
  declared_python_buffer& b = add_buffer(std::move(buffer_name), role, type, extents);
  check_drawn(b, init);
  b.init = init;
  return b;
}

void case_declaration::check_drawn(const declared_python_buffer& b, const distribution& init) const {
  mirror(rules::drawn_values(b.layout.name, b.layout.type, init));
}

// kernel_case::scratch_bytes(name, bytes): a uint8 scratch of `bytes`. Checked in every build: a count past
// INT64_MAX has no replay (scratch() takes an int64), and kernel_case would refuse it with this message.
const declared_python_buffer& case_declaration::scratch_bytes(std::string buffer_name, std::uint64_t bytes) {
  if (std::string problem = rules::scratch_bytes(buffer_name, bytes); !problem.empty()) fail(problem);
  return scratch(std::move(buffer_name), dtype::u8, static_cast<std::int64_t>(bytes));
}

// kernel_case::scratch_bytes(name, query): one byte as declared, sized by `query` when the case is opened.
const declared_python_buffer& case_declaration::scratch_bytes(std::string buffer_name,
                                                              kbench::detail::callable<std::size_t()> query) {
  declared_python_buffer& b = add_buffer(std::move(buffer_name), buffer_role::scratch, dtype::u8, {1});
  b.bytes_query = std::move(query);
  return b;
}

// kernel_case::leading_dimension()'s checks, and the pitch the digest reads (declared_buffers(): 0 unless the
// rows are padded).
void case_declaration::leading_dimension(const std::string& buffer_name, std::int64_t leading_dimension) {
  declared_python_buffer& b = buffer_named(buffer_name);
  if (b.absent) return;  // no rows to pad at this shape
  b.leading_dimensions.push_back(leading_dimension);
  const std::string problem = rules::leading_dimension(buffer_name, b.layout.type, b.layout.extents, b.layout.size, leading_dimension);
  mirror(problem);
  if (!problem.empty()) return;  // unchecked (the GPU build): the replay's to reject
  const auto pitch = static_cast<std::size_t>(leading_dimension);
  b.layout.pitch = pitch > b.layout.extents.back() ? pitch : 0;
}

void case_declaration::oracle(double max_ratio) {
  sides_.push_back(side_verb::oracle);
  if (oracle_) mirror(rules::twice("oracle"));
  if (!oracle_) oracle_ratio_ = max_ratio;  // the first call's, which the replay gives kernel_case (a second fails)
  oracle_ = true;
  mirror(rules::oracle_ratio(max_ratio));
}

void case_declaration::expect_registers_at_most(int registers) {
  numbers_.push_back({number_verb::expect_registers_at_most, static_cast<double>(registers)});
  mirror(rules::registers_at_most(registers));
  census_.max_registers = registers;
}

void case_declaration::expect_occupancy_at_least(double fraction) {
  numbers_.push_back({number_verb::expect_occupancy_at_least, fraction});
  mirror(rules::occupancy_at_least(fraction));
  census_.min_occupancy = fraction;
}

}  // namespace kbench::python
