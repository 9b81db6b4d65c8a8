// kbench/contract/kernel_case_impl.hpp: the definitions of the case declaration's verbs that check their
// arguments (kernel_case.hpp, declared_case.hpp, buffer_handle.hpp). Included by exactly one translation
// unit of a program (procedure_impl.hpp): a test file compiles calls into them, not their checks and
// messages (with registry_impl.hpp, 1.1 s of the 6.6 s that nvcc took for rmsnorm_test.hip on 2 cores).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "declaration_rules.hpp"
#include "kernel_case.hpp"

namespace kbench {
namespace detail {

[[noreturn]] void throw_unbound(const buffer_slot& slot, const char* what) {
  throw usage_error(std::string("buffer '") + slot.name + "' has no " + what +
                    " here: handles convert to memory only inside the launch (or host reference) that kbench runs; "
                    "capture the handle, not a pointer taken from it");
}

void declared_case::fail(const std::string& what) const {
  throw usage_error("case '" + name + "' [" + shape.to_string() + "] " + what);
}

// A new buffer of the case, under a name no buffer of it has yet (present or absent).
static std::unique_ptr<buffer_slot> new_slot(const declared_case& c, std::string buffer_name, buffer_role role,
                                             dtype type) {
  for (const auto* list : {&c.buffers, &c.absent}) {
    for (const auto& b : *list) {
      if (b->name == buffer_name) c.fail(declaration_rules::buffer_twice(buffer_name));
    }
  }
  auto slot = std::make_unique<buffer_slot>();
  slot->name = std::move(buffer_name);
  slot->role = role;
  slot->type = type;
  return slot;
}

buffer_slot& declared_case::add_buffer(std::string buffer_name, buffer_role role, dtype type,
                                      std::initializer_list<std::int64_t> extents) {
  auto slot = new_slot(*this, buffer_name, role, type);
  std::size_t size = 0;
  if (std::string problem = declaration_rules::extents(buffer_name, type, extents, size); !problem.empty()) fail(problem);
  for (std::int64_t e : extents) slot->extents.push_back(static_cast<std::size_t>(e));
  slot->size = size;
  buffers.push_back(std::move(slot));
  return *buffers.back();
}

buffer_slot& declared_case::add_drawn(std::string buffer_name, buffer_role role, dtype type,
                                     std::initializer_list<std::int64_t> extents, const distribution& init) {
  buffer_slot& slot = add_buffer(std::move(buffer_name), role, type, extents);
  if (std::string problem = declaration_rules::drawn_values(slot.name, slot.type, init); !problem.empty()) fail(problem);
  slot.init = init;
  return slot;
}

buffer_slot& declared_case::add_scratch(std::string buffer_name, dtype type, std::int64_t count) {
  if (std::string problem = declaration_rules::scratch_count(buffer_name, count); !problem.empty()) fail(problem);
  if (count == 0) return add_absent(std::move(buffer_name), buffer_role::scratch, type);
  return add_buffer(std::move(buffer_name), buffer_role::scratch, type, {count});
}

buffer_slot& declared_case::add_absent(std::string buffer_name, buffer_role role, dtype type) {
  auto slot = new_slot(*this, std::move(buffer_name), role, type);
  slot->absent = true;
  absent.push_back(std::move(slot));
  return *absent.back();
}

double declared_case::elements() const {
  double total = 0.0;
  for (const auto& b : buffers) total += static_cast<double>(b->size);
  return total;
}

void declared_case::run_launch(bool optimized_side, const device_streams& streams) const {
  const launch_function& single = optimized_side ? optimized : device_reference;
  const device_launch_function& each = optimized_side ? optimized_on_each : device_reference_on_each;
  if (each) {
    each(streams);
  } else {
    single(streams[0]);
  }
}

kbench::tolerance declared_case::tolerance_of(const buffer_slot& out) const {
  if (out.tol) return *out.tol;
  if (case_tolerance) return *case_tolerance;
  return default_tolerance(out.type);
}

std::vector<declared_buffer> declared_case::declared_buffers() const {
  std::vector<declared_buffer> out;
  for (const auto& b : buffers) {
    out.push_back({b->name, b->role, b->type, b->extents, b->size, b->padded() ? b->pitch : 0, b->device_index,
                   bool(b->bytes_query)});
  }
  return out;
}

std::vector<std::string> declared_case::unasked_dimensions() const {
  std::vector<std::string> names, unasked;
  for (const auto& d : shape.dims()) names.push_back(d.first);
  for (const auto& p : shape.parameters()) names.push_back(p.first);
  for (const std::string& name : names) {
    bool was_asked = false;
    for (const std::string& a : asked) was_asked = was_asked || a == name;
    if (!was_asked) unasked.push_back(name);
  }
  return unasked;
}

void declared_case::validate() const {
  bool has_output = false;
  for (const auto& b : buffers) has_output = has_output || compared(b->role);
  if (!has_output) fail(declaration_rules::no_output);
  if (!has_device_reference() && !host_reference) fail(declaration_rules::no_reference);
  if (has_device_reference() && host_reference) fail(declaration_rules::both_references);
  if (!optimized && !optimized_on_each) fail(declaration_rules::no_optimized);
  if (oracle && host_reference) fail(declaration_rules::oracle_and_host_reference);
}

}  // namespace detail

std::int64_t kernel_case::dim(std::string_view dimension) const {
  const std::int64_t size = declared_.shape[dimension];
  declared_.asked.emplace_back(dimension);
  return size;
}

double kernel_case::param(std::string_view parameter) const {
  const double value = declared_.shape.parameter_value(parameter);
  declared_.asked.emplace_back(parameter);
  return value;
}

bool kernel_case::flag(std::string_view dimension) const {
  const std::int64_t value = dim(dimension);
  declared_.flags.emplace_back(dimension);
  if (std::string problem = detail::declaration_rules::flag(dimension, value); !problem.empty()) fail(problem);
  return value == 1;
}

scratch_ref<std::uint8_t> kernel_case::scratch_bytes(std::string buffer_name, std::size_t bytes) {
  if (std::string problem = detail::declaration_rules::scratch_bytes(buffer_name, bytes); !problem.empty()) fail(problem);
  return scratch<std::uint8_t>(std::move(buffer_name), static_cast<std::int64_t>(bytes));
}

int kernel_case::devices(int count) {
  if (count < 1 || count > 64) fail("devices() needs a count from 1 to 64, got " + std::to_string(count));
  if (declared_.devices != 0) fail(detail::declaration_rules::twice("devices"));
  declared_.devices = count;
  return count;
}

void kernel_case::reference(launch_function launch) {
  set_once(declared_.device_reference, std::move(launch), "reference");
  once_per_side(declared_.device_reference_on_each, "reference");
}

void kernel_case::host_reference(host_function compute) {
  set_once(declared_.host_reference, std::move(compute), "host_reference");
}

void kernel_case::optimized(launch_function launch) {
  set_once(declared_.optimized, std::move(launch), "optimized");
  once_per_side(declared_.optimized_on_each, "optimized");
}

void kernel_case::reference(device_launch_function launch) {
  set_once(declared_.device_reference_on_each, std::move(launch), "reference");
  once_per_side(declared_.device_reference, "reference");
}

void kernel_case::optimized(device_launch_function launch) {
  set_once(declared_.optimized_on_each, std::move(launch), "optimized");
  once_per_side(declared_.optimized, "optimized");
}

void kernel_case::allow_speedup_up_to(double factor) {
  if (std::string problem = detail::declaration_rules::speedup_limit(factor); !problem.empty()) fail(problem);
  declared_.expectations.max_plausible_speedup = factor;
  declared_.expectations.speedup_limit_declared = true;
}

void kernel_case::flops(double count, dtype arithmetic) {
  if (std::string problem = detail::declaration_rules::flop_type(arithmetic); !problem.empty()) fail(problem);
  declared_.work.flops = checked_work(count, "flops");
  declared_.work.flop_type = arithmetic;
  declared_.work.matrix_units = false;
}

void kernel_case::matrix_flops(double count, dtype arithmetic) {
  flops(count, arithmetic);
  declared_.work.matrix_units = true;
}

void kernel_case::calls_per_layer(double count) {
  declared_.work.calls_per_layer = checked_calls(count, "calls_per_layer");
}

void kernel_case::calls_per_token(double count) {
  declared_.work.calls_per_token = checked_calls(count, "calls_per_token");
}

void kernel_case::oracle(host_function compute, double max_ratio) {
  set_once(declared_.oracle, std::move(compute), "oracle");
  if (std::string problem = detail::declaration_rules::oracle_ratio(max_ratio); !problem.empty()) fail(problem);
  declared_.oracle_ratio = max_ratio;
}

void kernel_case::requires_alignment(std::size_t bytes) {
  if (std::string problem = detail::declaration_rules::alignment(bytes); !problem.empty()) fail(problem);
  declared_.requires_alignment = bytes;
}

void kernel_case::expect_kernels(int count) {
  if (std::string problem = detail::declaration_rules::expected_kernels(count); !problem.empty()) fail(problem);
  declared_.census.kernels = count;
}

void kernel_case::expect_registers_at_most(int registers) {
  if (std::string problem = detail::declaration_rules::registers_at_most(registers); !problem.empty()) fail(problem);
  declared_.census.max_registers = registers;
}

void kernel_case::expect_occupancy_at_least(double fraction) {
  if (std::string problem = detail::declaration_rules::occupancy_at_least(fraction); !problem.empty()) fail(problem);
  declared_.census.min_occupancy = fraction;
}

resource_bound& kernel_case::expect_resources(std::string kernels, std::string target) {
  if (kernels.empty()) fail("expect_resources() needs the kernels' names (a part of them)");
  resource_bound b;
  b.kernels = std::move(kernels);
  b.target = std::move(target);
  return *declared_.resource_bounds.emplace_back(std::make_unique<resource_bound>(std::move(b)));
}

void kernel_case::pad_rows(detail::buffer_slot& slot, std::int64_t leading_dimension) {
  if (slot.absent) return;  // no rows to pad at this shape
  const std::string problem = detail::declaration_rules::leading_dimension(slot.name, slot.type, slot.extents, slot.size,
                                                                           leading_dimension);
  if (!problem.empty()) fail(problem);
  slot.pitch = static_cast<std::size_t>(leading_dimension);
}

double kernel_case::checked_work(double value, const char* what) const {
  if (std::string problem = detail::declaration_rules::work(value, what); !problem.empty()) fail(problem);
  return value;
}

double kernel_case::checked_calls(double count, const char* what) const {
  if (std::string problem = detail::declaration_rules::calls(count, what); !problem.empty()) fail(problem);
  return count;
}

void kernel_case::fail(const std::string& what) const { declared_.fail(what); }

}  // namespace kbench
