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
      if (b->name == buffer_name) c.fail("declares buffer '" + buffer_name + "' twice");
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
  if (extents.size() == 0) fail("buffer '" + buffer_name + "' has no extents");
  std::size_t size = 1;
  for (std::int64_t e : extents) {
    if (e <= 0) {
      fail("buffer '" + buffer_name + "' has extent " + std::to_string(e) +
           ": every extent must be > 0 (an empty buffer tests nothing; one that some shapes do not use is "
           "declared with input_if() or output_if())");
    }
    if (size > std::numeric_limits<std::size_t>::max() / info(type).size / static_cast<std::size_t>(e)) {
      fail("buffer '" + buffer_name + "' is too large to address");
    }
    size *= static_cast<std::size_t>(e);
    slot->extents.push_back(static_cast<std::size_t>(e));
  }
  slot->size = size;
  buffers.push_back(std::move(slot));
  return *buffers.back();
}

buffer_slot& declared_case::add_drawn(std::string buffer_name, buffer_role role, dtype type,
                                     std::initializer_list<std::int64_t> extents, const distribution& init) {
  buffer_slot& slot = add_buffer(std::move(buffer_name), role, type, extents);
  const std::string type_name(info(slot.type).name);
  if (init.shape == distribution::kind::uniform) {
    const double largest = largest_finite(slot.type);  // a larger bound would be drawn as inf, or as fp8's NaN
    if (std::fabs(init.a) > largest || std::fabs(init.b) > largest) {
      fail("input '" + slot.name + "': " + init.describe() + " exceeds the range of " + type_name);
    }
  }
  if (init.given_values()) {
    for (const double v : {init.a, init.shape == distribution::kind::choice ? init.b : init.a}) {
      if (!holds_value(slot.type, v)) {
        fail("input '" + slot.name + "': " + init.describe() + " holds a value " + type_name + " cannot hold");
      }
    }
  }
  slot.init = init;
  return slot;
}

buffer_slot& declared_case::add_scratch(std::string buffer_name, dtype type, std::int64_t count) {
  if (count < 0) {
    fail("scratch '" + buffer_name + "' has count " + std::to_string(count) +
         ": a count must be >= 0 (0: no scratch at this shape, a null handle)");
  }
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
  if (!has_output) fail("declares no output: there is nothing to check");
  if (!has_device_reference() && !host_reference) fail("declares no reference: call reference() or host_reference()");
  if (has_device_reference() && host_reference) fail("declares both a device and a host reference: keep one");
  if (!optimized && !optimized_on_each) fail("declares no optimized launch: call optimized()");
  if (oracle && host_reference) {
    fail("declares an oracle and a host reference: the host reference computes in double already; keep one");
  }
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
  if (value != 0 && value != 1) {
    fail("dimension '" + std::string(dimension) + "' is a flag: 0 or 1, not " + std::to_string(value));
  }
  return value == 1;
}

scratch_ref<std::uint8_t> kernel_case::scratch_bytes(std::string buffer_name, std::size_t bytes) {
  if (bytes > std::size_t{INT64_MAX}) fail("scratch '" + buffer_name + "' is too large");
  return scratch<std::uint8_t>(std::move(buffer_name), static_cast<std::int64_t>(bytes));
}

int kernel_case::devices(int count) {
  if (count < 1 || count > 64) fail("devices() needs a count from 1 to 64, got " + std::to_string(count));
  if (declared_.devices != 0) fail("sets devices() twice");
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
  if (!(factor >= 1.0) || !std::isfinite(factor)) fail("allow_speedup_up_to() needs a finite factor >= 1");
  declared_.expectations.max_plausible_speedup = factor;
  declared_.expectations.speedup_limit_declared = true;
}

void kernel_case::flops(double count, dtype arithmetic) {
  if (arithmetic != dtype::f64 && arithmetic != dtype::f32 && arithmetic != dtype::f16 && arithmetic != dtype::bf16) {
    fail("flops() counts arithmetic in f64, f32, f16 or bf16, not " + std::string(info(arithmetic).name));
  }
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
  if (!(max_ratio >= 1.0) || !std::isfinite(max_ratio)) fail("oracle() needs a finite max_ratio >= 1");
  declared_.oracle_ratio = max_ratio;
}

void kernel_case::requires_alignment(std::size_t bytes) {
  if (bytes == 0 || (bytes & (bytes - 1)) != 0 || bytes > 256) fail("requires_alignment() needs a power of two up to 256");
  declared_.requires_alignment = bytes;
}

void kernel_case::expect_kernels(int count) {
  if (count < 0) fail("expect_kernels() needs a count >= 0");
  declared_.census.kernels = count;
}

void kernel_case::expect_registers_at_most(int registers) {
  if (registers <= 0) fail("expect_registers_at_most() needs a count > 0");
  declared_.census.max_registers = registers;
}

void kernel_case::expect_occupancy_at_least(double fraction) {
  if (!(fraction > 0.0 && fraction <= 1.0)) fail("expect_occupancy_at_least() needs a fraction in (0, 1]");
  declared_.census.min_occupancy = fraction;
}

resource_bound& kernel_case::expect_resources(std::string kernels, std::string target) {
  if (kernels.empty()) fail("expect_resources() needs the kernels' names (a part of them)");
  resource_bound b;
  b.kernels = std::move(kernels);
  b.target = std::move(target);
  return *declared_.resource_bounds.emplace_back(std::make_unique<resource_bound>(std::move(b)));
}

double kernel_case::checked_work(double value, const char* what) const {
  if (!std::isfinite(value) || value < 0.0) fail(std::string(what) + "() must be finite and >= 0");
  return value;
}

double kernel_case::checked_calls(double count, const char* what) const {
  if (!std::isfinite(count) || count <= 0.0) fail(std::string(what) + "() needs a finite count of calls > 0");
  return count;
}

void kernel_case::fail(const std::string& what) const { declared_.fail(what); }

}  // namespace kbench
