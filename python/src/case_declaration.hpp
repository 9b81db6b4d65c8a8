// python/src/case_declaration.hpp: a case declared from Python, at one shape, as plain data. A Python case
// function speaks to this class as a C++ case function speaks to kernel_case (contract/kernel_case.hpp), with
// the element type a runtime dtype instead of a template parameter; what it collects becomes the same
// declaration_facts the C++ path makes (procedure_impl.hpp's facts_of), so the canonical text and the digest
// are contract/declaration_digest.hpp's, line for line. HIP-free and free of pybind11: the binding
// (bind_declaration.hpp) holds the Python callables; this holds what kbench can read of them.
//
// It also records each verb as it was called (the names asked for, the buffers with their extents as given,
// the sides, the numbers), which the GPU build replays onto a real kernel_case (case_replay.hpp), whose own
// checks are then the authoritative ones. The host-only build, which has no kernel_case (kernel_case_impl.hpp
// needs the GPU platform's headers), mirrors those checks here, message for message; the GPU build leaves
// the mirror out (mirrors_kernel_case_checks) and keeps only what kernel_case cannot check (docs/python.md).
//
// The verbs that check their arguments are defined in case_declaration_impl.hpp, which the binding's one
// translation unit includes (module.cpp): the replay and the run read a declaration, they declare none.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kbench/contract/callable.hpp>
#include <kbench/contract/declaration.hpp>
#include <kbench/contract/declaration_rules.hpp>
#include <kbench/contract/declaration_digest.hpp>
#include <kbench/contract/distribution.hpp>
#include <kbench/contract/dtype.hpp>
#include <kbench/contract/error.hpp>
#include <kbench/contract/shape.hpp>
#include <kbench/contract/tolerance.hpp>

namespace kbench::python {

namespace rules = kbench::detail::declaration_rules;

// How a side runs, as the digest names it: a device launch on kbench's stream, or a host function.
enum class side_kind { none, device, host };

// Whether this build checks a declaration's arguments itself: the host-only build does, with
// kernel_case's messages; the GPU build (KBENCH_PYTHON_GPU_PATH) replays the declaration onto kernel_case,
// whose checks are the real ones.
#if defined(KBENCH_PYTHON_GPU_PATH)
inline constexpr bool mirrors_kernel_case_checks = false;
#else
inline constexpr bool mirrors_kernel_case_checks = true;
#endif

// The verbs of a declaration as they were called, in order, for the replay onto kernel_case.
enum class asked_kind { dim, flag, param };
struct asked_name {
  asked_kind kind;
  std::string name;
};
enum class side_verb { reference, host_reference, optimized, oracle };
enum class number_verb {
  bytes_moved, flops, matrix_flops, tokens, calls_per_layer, calls_per_token, require_speedup, require_bandwidth,
  allow_speedup_up_to, deterministic, requires_alignment, expect_kernels, expect_registers_at_most,
  expect_occupancy_at_least, edge_values
};
struct numbered_verb {
  number_verb verb;
  double value = 0.0;
  dtype arithmetic = dtype::f32;  // flops(), matrix_flops()
};

// One buffer as the case declared it: its layout, what is drawn into it and its own tolerance.
struct declared_python_buffer {
  declared_buffer layout;
  std::vector<std::int64_t> given_extents;  // as the case gave them (a scratch: its count), for the replay
  std::optional<distribution> init;  // inputs and in-place buffers
  std::optional<tolerance> own_tolerance;
  bool edge_values = true;
  std::optional<bool> edge_values_given;  // edge_values(buffer, yes) was called
  bool absent = false;  // declared for a shape that does not use it: a name taken, nothing else kept
  std::vector<std::int64_t> leading_dimensions;  // leading_dimension() as called, in order, for the replay
  kbench::detail::callable<std::size_t()> bytes_query;  // scratch_bytes(name, query): sized on the GPU
};

namespace detail {
// kernel_case's default distribution, by the runtime dtype (buffer_handle.hpp's default_distribution<T>).
[[nodiscard]] inline distribution default_distribution(dtype t) {
  if (info(t).is_float) return uniform(-1.0, 1.0);
  return info(t).is_signed ? uniform(-100.0, 100.0) : uniform(0.0, 100.0);
}
}  // namespace detail

class case_declaration {
 public:
  // The case `name` at shape `s`, one of `registered` (every shape the test declares: the digest names them).
  case_declaration(std::string name, kbench::shape s, std::vector<kbench::shape> registered)
      : name_(std::move(name)), shape_(std::move(s)), registered_(std::move(registered)) {}

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const kbench::shape& shape() const { return shape_; }
  [[nodiscard]] const std::vector<kbench::shape>& registered_shapes() const { return registered_; }
  [[nodiscard]] std::int64_t dim(std::string_view dimension) {
    asked_.push_back({asked_kind::dim, std::string(dimension)});
    return shape_[dimension];
  }
  [[nodiscard]] double param(std::string_view parameter) {
    asked_.push_back({asked_kind::param, std::string(parameter)});
    return shape_.parameter_value(parameter);
  }
  [[nodiscard]] bool flag(std::string_view dimension) {
    const std::int64_t value = shape_[dimension];
    asked_.push_back({asked_kind::flag, std::string(dimension)});
    mirror(rules::flag(dimension, value));
    return value == 1;
  }

  const declared_python_buffer& input(std::string buffer_name, dtype type, const std::vector<std::int64_t>& extents,
                                      const std::optional<distribution>& init) {
    return add_drawn(std::move(buffer_name), buffer_role::input, type, extents, init);
  }
  const declared_python_buffer& inout(std::string buffer_name, dtype type, const std::vector<std::int64_t>& extents,
                                      const std::optional<distribution>& init) {
    return add_drawn(std::move(buffer_name), buffer_role::inout, type, extents, init);
  }
  const declared_python_buffer& output(std::string buffer_name, dtype type, const std::vector<std::int64_t>& extents) {
    return add_buffer(std::move(buffer_name), buffer_role::output, type, extents);
  }
  // A buffer that this shape does not use (kernel_case's input_if(), output_if() where `present` is false).
  const declared_python_buffer& absent(std::string buffer_name, buffer_role role, dtype type) {
    declared_python_buffer& b = new_buffer(std::move(buffer_name), role, type);
    b.absent = true;
    return b;
  }
  // `count` elements of scratch; 0 declares none at this shape.
  const declared_python_buffer& scratch(std::string buffer_name, dtype type, std::int64_t count) {
    mirror(rules::scratch_count(buffer_name, count));
    if (count <= 0) {
      declared_python_buffer& b = new_buffer(std::move(buffer_name), buffer_role::scratch, type);
      b.absent = true;
      b.given_extents = {count};
      return b;
    }
    return add_buffer(std::move(buffer_name), buffer_role::scratch, type, {count});
  }
  // `bytes` of uint8 scratch (0: none at this shape), or as many as `query` answers when the case is opened on
  // its GPU (kernel_case::scratch_bytes()'s two forms).
  const declared_python_buffer& scratch_bytes(std::string buffer_name, std::uint64_t bytes);
  const declared_python_buffer& scratch_bytes(std::string buffer_name, kbench::detail::callable<std::size_t()> query);
  // Padded rows (kernel_case::leading_dimension()): the buffer's rows lie `leading_dimension` elements apart.
  void leading_dimension(const std::string& buffer_name, std::int64_t leading_dimension);

  // The case's tolerance, or one output's (an output or in-place buffer of this case, by name). That the
  // buffer is compared is checked here in every build: kernel_case's tolerance() takes only an output's
  // handle, so C++ cannot get it wrong at run time.
  void tolerance(const kbench::tolerance& t) { case_tolerance_ = t; }
  void tolerance(const std::string& buffer_name, const kbench::tolerance& t) {
    declared_python_buffer& b = buffer_named(buffer_name);
    if (!b.absent && !compared(b.layout.role)) fail("tolerance(): buffer '" + buffer_name + "' is not compared (not an output)");
    b.own_tolerance = t;
  }
  void edge_values(bool yes) {
    edge_values_ = yes;
    numbers_.push_back({number_verb::edge_values, yes ? 1.0 : 0.0});
  }
  void edge_values(const std::string& buffer_name, bool yes) {
    declared_python_buffer& b = buffer_named(buffer_name);
    if (!b.absent && !drawn(b.layout.role)) mirror(rules::edge_values_of_output(buffer_name));
    b.edge_values = yes;
    b.edge_values_given = yes;
  }

  // Each side once: a device launch (reference or optimized) or a host reference.
  void reference(side_kind kind) {
    sides_.push_back(kind == side_kind::host ? side_verb::host_reference : side_verb::reference);
    set_side(reference_, kind, kind == side_kind::host ? "host_reference" : "reference");
  }
  void optimized() {
    sides_.push_back(side_verb::optimized);
    set_side(optimized_, side_kind::device, "optimized");
  }
  // A host function in double that both sides are held against (kernel_case::oracle()): a side too, in sides().
  void oracle(double max_ratio);
  [[nodiscard]] double oracle_ratio() const { return oracle_ratio_; }

  // The work model and the requirements: kernel_case's verbs, with its checks.
  void bytes_moved(double bytes) { work_.bytes = checked_work(number_verb::bytes_moved, bytes, "bytes_moved"); }
  void flops(double count, dtype arithmetic, bool matrix_units) {
    numbers_.push_back({matrix_units ? number_verb::matrix_flops : number_verb::flops, count, arithmetic});
    mirror(rules::flop_type(arithmetic));
    mirror(rules::work(count, "flops"));
    work_.flops = count;
    work_.flop_type = arithmetic;
    work_.matrix_units = matrix_units;
  }
  void tokens(double count) { work_.tokens = checked_work(number_verb::tokens, count, "tokens"); }
  void calls_per_layer(double count) { work_.calls_per_layer = checked_calls(number_verb::calls_per_layer, count, "calls_per_layer"); }
  void calls_per_token(double count) { work_.calls_per_token = checked_calls(number_verb::calls_per_token, count, "calls_per_token"); }
  void require_speedup(double at_least) {
    expectations_.required_speedup = checked_work(number_verb::require_speedup, at_least, "require_speedup");
  }
  void require_bandwidth(double fraction) {
    expectations_.required_bandwidth = checked_work(number_verb::require_bandwidth, fraction, "require_bandwidth");
  }
  void allow_speedup_up_to(double factor) {
    numbers_.push_back({number_verb::allow_speedup_up_to, factor});
    mirror(rules::speedup_limit(factor));
    expectations_.max_plausible_speedup = factor;
    expectations_.speedup_limit_declared = true;
  }
  void deterministic(bool yes) {
    numbers_.push_back({number_verb::deterministic, yes ? 1.0 : 0.0});
    deterministic_ = yes;
  }
  void requires_alignment(std::size_t bytes) {
    numbers_.push_back({number_verb::requires_alignment, static_cast<double>(bytes)});
    mirror(rules::alignment(bytes));
    requires_alignment_ = bytes;
  }
  void expect_kernels(int count) {
    numbers_.push_back({number_verb::expect_kernels, static_cast<double>(count)});
    mirror(rules::expected_kernels(count));
    census_.kernels = count;
  }
  void expect_registers_at_most(int registers);
  void expect_occupancy_at_least(double fraction);

  [[nodiscard]] const std::vector<declared_python_buffer>& buffers() const { return buffers_; }
  // What the replay onto kernel_case reads: the verbs in the order they were called.
  [[nodiscard]] const std::vector<asked_name>& asked() const { return asked_; }
  [[nodiscard]] const std::vector<side_verb>& sides() const { return sides_; }
  [[nodiscard]] const std::vector<numbered_verb>& numbers() const { return numbers_; }
  [[nodiscard]] const std::optional<kbench::tolerance>& case_tolerance() const { return case_tolerance_; }

  // Throws usage_error unless the declaration is complete (declared_case::validate's rules).
  void validate() const {
    bool has_output = false;
    for (const auto& b : buffers_) has_output = has_output || (!b.absent && compared(b.layout.role));
    if (!has_output) fail(rules::no_output);
    if (reference_ == side_kind::none) fail(rules::no_reference);
    if (optimized_ == side_kind::none) fail(rules::no_optimized);
    if (oracle_ && reference_ == side_kind::host) fail(rules::oracle_and_host_reference);
  }

  // The declaration as the digest reads it: facts_of()'s rules (procedure_impl.hpp).
  [[nodiscard]] kbench::detail::declaration_facts facts() const;
  [[nodiscard]] std::vector<std::string> lines() const { return kbench::detail::declaration_lines(facts()); }
  [[nodiscard]] std::string digest() const { return kbench::detail::digest_of_lines(lines()); }

  // An output's tolerance: its own, else the case's, else its dtype's default.
  [[nodiscard]] kbench::tolerance tolerance_of(const declared_python_buffer& out) const {
    if (out.own_tolerance) return *out.own_tolerance;
    if (case_tolerance_) return *case_tolerance_;
    return default_tolerance(out.layout.type);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw usage_error("case '" + name_ + "' [" + shape_.to_string() + "] " + what);
  }

 private:
  // A rule kernel_case's verbs enforce (contract/declaration_rules.hpp; `problem` empty where it holds): failed
  // here only where this build has no kernel_case to replay the declaration onto.
  void mirror(const std::string& problem) const {
    if (mirrors_kernel_case_checks && !problem.empty()) fail(problem);
  }

  declared_python_buffer& new_buffer(std::string buffer_name, buffer_role role, dtype type) {
    for (const declared_python_buffer& b : buffers_) {
      if (b.layout.name == buffer_name) mirror(rules::buffer_twice(buffer_name));
    }
    declared_python_buffer& b = buffers_.emplace_back();
    b.layout.name = std::move(buffer_name);
    b.layout.role = role;
    b.layout.type = type;
    return b;
  }

  declared_python_buffer& add_buffer(std::string buffer_name, buffer_role role, dtype type,
                                     const std::vector<std::int64_t>& extents);
  declared_python_buffer& add_drawn(std::string buffer_name, buffer_role role, dtype type,
                                    const std::vector<std::int64_t>& extents, const std::optional<distribution>& init);
  void check_drawn(const declared_python_buffer& b, const distribution& init) const;

  declared_python_buffer& buffer_named(const std::string& buffer_name) {
    for (declared_python_buffer& b : buffers_) {
      if (b.layout.name == buffer_name) return b;
    }
    fail("has no buffer '" + buffer_name + "'");
  }

  // kernel_case's set_once(): each side once; a device and a host reference are one too many.
  void set_side(side_kind& side, side_kind kind, const char* what) {
    if (side == kind) mirror(rules::twice(what));
    if (side != side_kind::none && side != kind) mirror(rules::both_references);
    side = kind;
  }

  double checked_work(number_verb verb, double value, const char* what) {
    numbers_.push_back({verb, value});
    mirror(rules::work(value, what));
    return value;
  }
  double checked_calls(number_verb verb, double count, const char* what) {
    numbers_.push_back({verb, count});
    mirror(rules::calls(count, what));
    return count;
  }

  std::string name_;
  kbench::shape shape_;
  std::vector<kbench::shape> registered_;
  std::vector<declared_python_buffer> buffers_;  // in declaration order, absent ones among them
  std::vector<asked_name> asked_;
  std::vector<side_verb> sides_;
  std::vector<numbered_verb> numbers_;
  side_kind reference_ = side_kind::none;
  side_kind optimized_ = side_kind::none;
  std::optional<kbench::tolerance> case_tolerance_;
  work_model work_;
  perf_expectations expectations_;
  census_expectations census_;
  bool deterministic_ = false;
  bool oracle_ = false;
  double oracle_ratio_ = 2.0;
  std::size_t requires_alignment_ = 1;
  bool edge_values_ = true;
};

}  // namespace kbench::python
