// kbench/procedure/procedure_impl.hpp: the definitions of procedure.hpp, on the GPU platform. Included by
// exactly one translation unit of a program (kbench.cmake generates it; kbench/main.hpp includes it).
#pragma once

#include "../procedure.hpp"
#include "../contract/declaration_digest.hpp"
#include "../contract/kernel_case_impl.hpp"
#include "../contract/registry_impl.hpp"
#include "runner.hpp"

namespace kbench {
namespace detail {

std::vector<declared_buffer> declare_on_host(const case_registration& registration, const kbench::shape& s,
                                             bool every_dimension_used) {
  kernel_case c(registration.name(), s);
  registration.function()(c);
  const declared_case& case_declared = declared(c);
  case_declared.validate();
  if (every_dimension_used) {
    for (const std::string& d : case_declared.unasked_dimensions()) {
      throw usage_error("case '" + registration.name() + "' never asks for dimension '" + d + "' of shape {" +
                        s.to_string() + "}");
    }
  }
  return case_declared.declared_buffers();
}

std::vector<resource_bound> declared_resource_bounds(const case_registration& registration, const kbench::shape& s) {
  kernel_case c(registration.name(), s);
  registration.function()(c);
  std::vector<resource_bound> bounds;
  for (const auto& b : declared(c).resource_bounds) bounds.push_back(*b);
  return bounds;
}

int declared_device_count(const case_registration& registration, const kbench::shape& s) {
  kernel_case c(registration.name(), s);
  registration.function()(c);
  return declared(c).device_count();
}

declared_shape_facts declared_facts(const case_registration& registration, const kbench::shape& s) {
  kernel_case c(registration.name(), s);
  registration.function()(c);
  const declared_case& case_declared = declared(c);
  return {s, case_declared.elements(), case_declared.flags};
}

// The declared case as data for its canonical text: each side's kind of launch, each buffer with its
// distribution (when drawn) and the tolerance it is compared with (when compared).
inline declaration_facts facts_of(const declared_case& d, const case_registration& registration) {
  auto side = [](bool each, bool single) { return each ? "device, a stream per device" : single ? "device" : "none"; };
  declaration_facts f;
  f.name = d.name;
  f.shape = d.shape;
  f.registered_shapes = registration.shapes();
  f.reference = d.host_reference ? "host" : side(bool(d.device_reference_on_each), bool(d.device_reference));
  f.optimized = side(bool(d.optimized_on_each), bool(d.optimized));
  const std::vector<declared_buffer> layouts = d.declared_buffers();
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const buffer_slot* b = d.buffers[i].get();
    buffer_facts& facts = f.buffers.emplace_back();
    facts.layout = layouts[i];
    if (drawn(b->role)) facts.init = b->init;
    facts.edge_values = b->edge_values;
    if (compared(b->role)) facts.compared = d.tolerance_of(*b);
  }
  f.devices = d.device_count();
  f.requires_peer_access = d.requires_peer_access;
  f.work = d.work;
  f.expectations = d.expectations;
  f.census = d.census;
  for (const auto& b : d.resource_bounds) f.resource_bounds.push_back(*b);
  f.deterministic = d.deterministic;
  f.oracle = bool(d.oracle);
  f.oracle_ratio = d.oracle_ratio;
  f.requires_alignment = d.requires_alignment;
  f.edge_values = d.edge_values;
  return f;
}

std::vector<std::string> declaration_lines(const case_registration& registration, const kbench::shape& s) {
  kernel_case c(registration.name(), s);
  registration.function()(c);
  return declaration_lines(facts_of(declared(c), registration));
}

std::string gpu_compiler() {
  std::string c;
#if defined(__clang__)
  c = "clang " __clang_version__;
#elif defined(__GNUC__)
  c = "gcc " __VERSION__;
#endif
#if defined(__CUDACC_VER_MAJOR__)
  c = fmt::format("nvcc {}.{}.{}, host {}", __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__, c);
#endif
  return c;
}

bool gpu_code_optimized() {
#if defined(__OPTIMIZE__)
  return true;
#else
  return false;
#endif
}

const gpu_info& open_gpu(int device) { return gpu(device); }

// A launch's own error (a bad argument) is cleared by reading it; an error that stays after that, when the
// device is waited for, is the context's.
std::string device_fault(const std::vector<int>& ordinals) {
  int current = 0;
  const bool known = hipGetDevice(&current) == hipSuccess;
  std::string fault;
  for (const int d : ordinals) {
    hipError_t e = hipSetDevice(d);
    if (e == hipSuccess) {
      (void)hipGetLastError();
      e = hipDeviceSynchronize();
    }
    if (e != hipSuccess) {
      fault = fmt::format("device {}: {} ({})", d, hipGetErrorName(e), hipGetErrorString(e));
      break;
    }
  }
  if (known) (void)hipSetDevice(current);
  return fault;
}

const device_ceilings& device_ceilings_once() { return measured_ceilings(); }

case_run::case_run(const case_registration& registration, const kbench::shape& s, const run_options& options)
    : instance_(std::make_unique<case_instance>(registration, s, &options)) {}

std::vector<int> case_run::devices() const { return instance_->devices().ordinals(); }
bool case_run::devices_shared() const { return instance_->devices().shared(); }
bool case_run::peer_access() const { return instance_->devices().peer_access(); }

case_run::~case_run() = default;

case_census case_run::census(const run_options& options, const gpu_info& g) { return instance_->census(options, g); }

// procedure.hpp's bools say whether this is a case's first seed (which also proves the test can fail), and
// whether issue 23's additions run at any size.
seed_result case_run::check(std::uint64_t seed, bool probe_teeth, bool additions_at_any_size) {
  return instance_->check(seed, probe_teeth ? instance_->first_seed(additions_at_any_size) : correctness_checks::later_seed());
}

perf_outcome case_run::perf(const run_options& options, const gpu_info& g, const std::vector<std::uint64_t>& seeds) {
  return run_perf_procedure(*instance_, options, g, seeds);
}

}  // namespace detail

seed_result check_case(const case_registration& registration, const kbench::shape& s, std::uint64_t seed,
                       const run_options* options) {
  detail::case_instance instance(registration, s, options);
  return instance.check(seed, instance.first_seed());
}

perf_outcome measure_case(const case_registration& registration, const kbench::shape& s, const run_options& options,
                          std::uint64_t seed) {
  const gpu_info& g = gpu(options.device);
  if (!g.usable) throw error(g.reason);
  detail::case_instance instance(registration, s, &options);
  return detail::run_perf_procedure(instance, options, g, {seed});
}

const case_registration& find_case(const std::string& name) {
  for (const case_registration& reg : registered_cases()) {
    if (reg.name() == name) return reg;
  }
  throw usage_error("no case named '" + name + "' is registered");
}

}  // namespace kbench
