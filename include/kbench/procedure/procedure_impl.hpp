// kbench/procedure/procedure_impl.hpp: the definitions of procedure.hpp, on the GPU platform, but for the device's
// probe and ceilings (device_ceilings_definitions.hpp) and the stages the opened case runs (runner.hpp names
// their units). Included by exactly one translation unit of a program (kbench.cmake generates it;
// kbench/main.hpp includes it).
#pragma once

#include "../procedure.hpp"
#include "../contract/declaration_digest.hpp"
#include "../contract/kernel_case_impl.hpp"
#include "../contract/registry_impl.hpp"
#include "perf_procedure.hpp"
#include "runner.hpp"

namespace kbench {
namespace detail {

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

// The case function runs here once for every host-side question about the case at this shape.
host_declaration declare_on_host(const case_registration& registration, const kbench::shape& s) {
  kernel_case c(registration.name(), s);
  registration.function()(c);
  const declared_case& d = declared(c);
  d.validate();
  host_declaration h;
  h.buffers = d.declared_buffers();
  for (const auto& b : d.resource_bounds) h.resource_bounds.push_back(*b);
  h.device_count = d.device_count();
  h.facts = {s, d.elements(), d.flags};
  h.lines = declaration_lines(facts_of(d, registration));
  h.unasked_dimensions = d.unasked_dimensions();
  return h;
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

opened_case::opened_case(const case_registration& registration, const kbench::shape& s, const run_options& options)
    : instance_(std::make_unique<case_on_devices>(registration, s, &options)) {}

std::vector<int> opened_case::devices() const { return instance_->devices().ordinals(); }
bool opened_case::devices_shared() const { return instance_->devices().shared(); }
bool opened_case::peer_access() const { return instance_->devices().peer_access(); }

opened_case::~opened_case() = default;

case_census opened_case::census(const run_options& options, const gpu_info& g, const built_listing& built) {
  return instance_->census(options, g, &built);
}

// procedure.hpp's bools say whether this is a case's first seed (which also proves the test can fail), and
// whether the extended checks run at any size.
seed_result opened_case::check(std::uint64_t seed, bool first_seed, bool extended_at_any_size) {
  return instance_->check(seed, first_seed ? instance_->first_seed(extended_at_any_size) : correctness_checks::later_seed());
}

perf_outcome opened_case::perf(const run_options& options, const gpu_info& g, const std::vector<std::uint64_t>& seeds,
                            const built_listing& built) {
  return run_perf_procedure(*instance_, options, g, seeds, &built);
}

}  // namespace detail

seed_result check_case(const case_registration& registration, const kbench::shape& s, std::uint64_t seed,
                       const run_options* options) {
  detail::case_on_devices instance(registration, s, options);
  return instance.check(seed, instance.first_seed());
}

perf_outcome measure_case(const case_registration& registration, const kbench::shape& s, const run_options& options,
                          std::uint64_t seed) {
  const gpu_info& g = detail::open_gpu(options.device);
  if (!g.usable) throw error(g.reason);
  detail::case_on_devices instance(registration, s, &options);
  return detail::run_perf_procedure(instance, options, g, {seed}, nullptr);
}

const case_registration& find_case(const std::string& name) {
  for (const case_registration& reg : registered_cases()) {
    if (reg.name() == name) return reg;
  }
  throw usage_error("no case named '" + name + "' is registered");
}

}  // namespace kbench
