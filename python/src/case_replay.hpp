// python/src/case_replay.hpp: a Python case replayed onto a real kernel_case, verb by verb, as the case
// called them: the names it asked for, each buffer through kernel_case's templated verb for its element
// type (visit_dtype), its tolerances, its sides (each a launch that calls back into Python), its work model
// and requirements. kernel_case's own checks run on every one, with kernel_case's messages: in the GPU
// build they are the authoritative ones. Compiled by the GPU compiler (kernel_case.hpp needs the platform's
// headers), once, in case_replay.hip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <kbench/contract/kernel_case.hpp>

#include "gpu_path.hpp"

namespace kbench::python {
namespace detail {

// A tolerance lowered already (tolerance_policy.hpp), as the policy kernel_case::tolerance() takes.
struct lowered_tolerance : kbench::tol::policy {
  kbench::tolerance lowered;
  void apply(kbench::tolerance& t) const { t = lowered; }
};

// kernel_case's verbs take extents as an initializer_list, whose length is fixed where it is written: a
// list of each length up to `max_rank`, chosen by the extents given.
inline constexpr std::size_t max_rank = 8;
template <class Verb, std::size_t... I>
auto with_extent_list(const std::vector<std::int64_t>& e, Verb& verb, std::index_sequence<I...>) {
  return verb({e[I]...});
}
template <class Verb, std::size_t Rank = 0>
auto with_extents(const std::vector<std::int64_t>& e, Verb& verb) {
  if constexpr (Rank < max_rank) {
    if (e.size() != Rank) return with_extents<Verb, Rank + 1>(e, verb);
  } else if (e.size() != Rank) {
    throw usage_error("a buffer has " + std::to_string(e.size()) + " extents: the Python module takes up to " +
                      std::to_string(max_rank));
  }
  return with_extent_list(e, verb, std::make_index_sequence<Rank>{});
}

// A buffer's slot as the handle kernel_case::leading_dimension() takes.
struct slot_handle {
  kbench::detail::buffer_slot* held;
  [[nodiscard]] kbench::detail::buffer_slot* slot() const { return held; }
};

// One buffer through the verb its declaration used, for its element type T; its slot in `c`.
template <class T>
kbench::detail::buffer_slot* declare_buffer(kernel_case& c, const declared_python_buffer& b) {
  const std::string& name = b.layout.name;
  const std::vector<std::int64_t>& extents = b.given_extents;
  const buffer_role role = b.layout.role;
  if (b.bytes_query) return c.scratch_bytes(name, b.bytes_query).slot();
  if (role == buffer_role::scratch) return c.scratch<T>(name, extents.empty() ? 0 : extents.front()).slot();
  if (b.absent) {
    return role == buffer_role::input ? c.input_if<T>(false, name, {1}).slot() : c.output_if<T>(false, name, {1}).slot();
  }
  auto verb = [&](std::initializer_list<std::int64_t> list) -> kbench::detail::buffer_slot* {
    if (role == buffer_role::input) {
      auto ref = c.input<T>(name, list, *b.init);
      if (b.edge_values_given) c.edge_values(ref, *b.edge_values_given);
      return ref.slot();
    }
    auto ref = role == buffer_role::inout ? c.inout<T>(name, list, *b.init) : c.output<T>(name, list);
    if (b.own_tolerance) c.tolerance(ref, lowered_tolerance{{}, *b.own_tolerance});
    if (b.edge_values_given) c.edge_values(ref, *b.edge_values_given);
    return ref.slot();
  };
  return with_extents(extents, verb);
}
// The buffer, then its leading dimensions as the case gave them.
template <class T>
kbench::detail::buffer_slot* replay_buffer(kernel_case& c, const declared_python_buffer& b) {
  kbench::detail::buffer_slot* slot = declare_buffer<T>(c, b);
  for (const std::int64_t leading : b.leading_dimensions) c.leading_dimension(slot_handle{slot}, leading);
  return slot;
}

// The launch a side gets: the current device, and kbench's stream, passed on to Python as numbers.
inline launch_context device_launch(hipStream_t stream) {
  launch_context launch;
  launch.stream = reinterpret_cast<std::uintptr_t>(stream);
  KBENCH_HIP_CHECK(hipGetDevice(&launch.device));
#if defined(KBENCH_PLATFORM_NVIDIA)
  launch.dlpack_device = dlpack_cuda;
#else
  launch.dlpack_device = dlpack_rocm;
#endif
  return launch;
}

// Each side, in the order the case set it: kernel_case's set_once() and validate() see every call.
inline void replay_sides(kernel_case& c, const std::shared_ptr<python_declaration>& p) {
  const std::vector<side_verb>& sides = p->declaration().sides();
  for (std::size_t i = 0; i < sides.size(); ++i) {
    if (sides[i] == side_verb::host_reference || sides[i] == side_verb::oracle) {
      host_function compute = [p, i] { p->call(i, launch_context{}); };  // host tensors of double
      if (sides[i] == side_verb::oracle) {
        c.oracle(std::move(compute), p->declaration().oracle_ratio());
      } else {
        c.host_reference(std::move(compute));
      }
      continue;
    }
    launch_function launch = [p, i](hipStream_t s) { p->call(i, device_launch(s)); };
    if (sides[i] == side_verb::reference) {
      c.reference(std::move(launch));
    } else {
      c.optimized(std::move(launch));
    }
  }
}

inline void replay_number(kernel_case& c, const numbered_verb& n) {
  switch (n.verb) {
    case number_verb::bytes_moved: return c.bytes_moved(n.value);
    case number_verb::flops: return c.flops(n.value, n.arithmetic);
    case number_verb::matrix_flops: return c.matrix_flops(n.value, n.arithmetic);
    case number_verb::tokens: return c.tokens(n.value);
    case number_verb::calls_per_layer: return c.calls_per_layer(n.value);
    case number_verb::calls_per_token: return c.calls_per_token(n.value);
    case number_verb::require_speedup: return c.require_speedup(n.value);
    case number_verb::require_bandwidth: return c.require_bandwidth(n.value);
    case number_verb::allow_speedup_up_to: return c.allow_speedup_up_to(n.value);
    case number_verb::deterministic: return c.deterministic(n.value != 0.0);
    case number_verb::requires_alignment: return c.requires_alignment(static_cast<std::size_t>(n.value));
    case number_verb::expect_kernels: return c.expect_kernels(static_cast<int>(n.value));
    case number_verb::expect_registers_at_most: return c.expect_registers_at_most(static_cast<int>(n.value));
    case number_verb::expect_occupancy_at_least: return c.expect_occupancy_at_least(n.value);
    case number_verb::edge_values: return c.edge_values(n.value != 0.0);
  }
}

}  // namespace detail

void replay_python_case(kernel_case& c) {
  const std::shared_ptr<python_declaration> p = python_case_named(c.name()).declare(c.shape());
  const case_declaration& d = p->declaration();
  for (const asked_name& a : d.asked()) {
    if (a.kind == asked_kind::dim) (void)c.dim(a.name);
    if (a.kind == asked_kind::flag) (void)c.flag(a.name);
    if (a.kind == asked_kind::param) (void)c.param(a.name);
  }
  for (std::size_t i = 0; i < d.buffers().size(); ++i) {
    const declared_python_buffer& b = d.buffers()[i];
    p->bind(i, visit_dtype(b.layout.type, [&](auto type) {
      return detail::replay_buffer<element_t<decltype(type)::value>>(c, b);
    }));
  }
  if (d.case_tolerance()) c.tolerance(detail::lowered_tolerance{{}, *d.case_tolerance()});
  detail::replay_sides(c, p);
  for (const numbered_verb& n : d.numbers()) detail::replay_number(c, n);
}

}  // namespace kbench::python
