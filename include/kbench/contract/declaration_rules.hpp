// kbench/contract/declaration_rules.hpp: what the verbs of a case declaration refuse, one function a rule, each
// returning the problem in words (empty: none). kernel_case's verbs fail with them (kernel_case_impl.hpp,
// kernel_case.hpp), and the Python module's declaration states the same ones from here in a build that has no
// kernel_case to replay it onto (python/src/case_declaration.hpp): one text of each rule, whoever checks it.
// HIP-free.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "distribution.hpp"
#include "dtype.hpp"

namespace kbench {
namespace detail {
namespace declaration_rules {

// A buffer's extents (a list of int64): at least one, each > 0, their product addressable in bytes of `type`.
// `size`: that product where the rules hold.
template <class Extents>
[[nodiscard]] std::string extents(const std::string& buffer, dtype type, const Extents& given, std::size_t& size) {
  if (given.size() == 0) return "buffer '" + buffer + "' has no extents";
  size = 1;
  for (const std::int64_t e : given) {
    if (e <= 0) {
      return "buffer '" + buffer + "' has extent " + std::to_string(e) +
             ": every extent must be > 0 (an empty buffer tests nothing; one that some shapes do not use is "
             "declared with input_if() or output_if())";
    }
    if (size > std::numeric_limits<std::size_t>::max() / info(type).size / static_cast<std::size_t>(e)) {
      return "buffer '" + buffer + "' is too large to address";
    }
    size *= static_cast<std::size_t>(e);
  }
  return {};
}

// A drawn input's distribution: bounds within the range of its type (a larger bound would be drawn as inf, or
// as fp8's NaN), given values its type holds.
[[nodiscard]] inline std::string drawn_values(const std::string& input, dtype type, const distribution& init) {
  const std::string type_name(info(type).name);
  if (init.shape == distribution::kind::uniform) {
    const double largest = largest_finite(type);
    if (std::fabs(init.a) > largest || std::fabs(init.b) > largest) {
      return "input '" + input + "': " + init.describe() + " exceeds the range of " + type_name;
    }
  }
  if (init.given_values()) {
    for (const double v : {init.a, init.shape == distribution::kind::choice ? init.b : init.a}) {
      if (!holds_value(type, v)) return "input '" + input + "': " + init.describe() + " holds a value " + type_name + " cannot hold";
    }
  }
  return {};
}

[[nodiscard]] inline std::string scratch_count(const std::string& scratch, std::int64_t count) {
  if (count >= 0) return {};
  return "scratch '" + scratch + "' has count " + std::to_string(count) +
         ": a count must be >= 0 (0: no scratch at this shape, a null handle)";
}

[[nodiscard]] inline std::string scratch_bytes(const std::string& scratch, std::uint64_t bytes) {
  return bytes > std::uint64_t{INT64_MAX} ? "scratch '" + scratch + "' is too large" : std::string();
}

[[nodiscard]] inline std::string flag(std::string_view dimension, std::int64_t value) {
  if (value == 0 || value == 1) return {};
  return "dimension '" + std::string(dimension) + "' is a flag: 0 or 1, not " + std::to_string(value);
}

// Padded rows of a buffer of `extents` (`size` elements): two extents at least, a leading dimension no shorter
// than a row, the whole addressable with its padding.
[[nodiscard]] inline std::string leading_dimension(const std::string& buffer, dtype type, const std::vector<std::size_t>& extents,
                                                   std::size_t size, std::int64_t leading) {
  if (extents.size() < 2 || extents.back() == 0) return "buffer '" + buffer + "' has one extent: padded rows need two or more";
  const std::size_t row = extents.back();
  if (leading < static_cast<std::int64_t>(row)) {
    return "buffer '" + buffer + "': leading dimension " + std::to_string(leading) + " is shorter than its rows of " +
           std::to_string(row);
  }
  if (size / row > std::numeric_limits<std::size_t>::max() / info(type).size / static_cast<std::size_t>(leading)) {
    return "buffer '" + buffer + "' is too large to address with its padding";
  }
  return {};
}

[[nodiscard]] inline std::string speedup_limit(double factor) {
  return !(factor >= 1.0) || !std::isfinite(factor) ? "allow_speedup_up_to() needs a finite factor >= 1" : std::string();
}

[[nodiscard]] inline std::string flop_type(dtype arithmetic) {
  if (arithmetic == dtype::f64 || arithmetic == dtype::f32 || arithmetic == dtype::f16 || arithmetic == dtype::bf16) return {};
  return "flops() counts arithmetic in f64, f32, f16 or bf16, not " + std::string(info(arithmetic).name);
}

// A work figure (bytes_moved, flops, tokens...): finite and >= 0.
[[nodiscard]] inline std::string work(double value, const char* what) {
  return !std::isfinite(value) || value < 0.0 ? std::string(what) + "() must be finite and >= 0" : std::string();
}

// Calls per layer or per token: finite and > 0.
[[nodiscard]] inline std::string calls(double count, const char* what) {
  return !std::isfinite(count) || count <= 0.0 ? std::string(what) + "() needs a finite count of calls > 0" : std::string();
}

[[nodiscard]] inline std::string oracle_ratio(double max_ratio) {
  return !(max_ratio >= 1.0) || !std::isfinite(max_ratio) ? "oracle() needs a finite max_ratio >= 1" : std::string();
}

[[nodiscard]] inline std::string alignment(std::size_t bytes) {
  return bytes == 0 || (bytes & (bytes - 1)) != 0 || bytes > 256 ? "requires_alignment() needs a power of two up to 256"
                                                                  : std::string();
}

[[nodiscard]] inline std::string expected_kernels(int count) {
  return count < 0 ? "expect_kernels() needs a count >= 0" : std::string();
}

[[nodiscard]] inline std::string registers_at_most(int registers) {
  return registers <= 0 ? "expect_registers_at_most() needs a count > 0" : std::string();
}

[[nodiscard]] inline std::string occupancy_at_least(double fraction) {
  return !(fraction > 0.0 && fraction <= 1.0) ? "expect_occupancy_at_least() needs a fraction in (0, 1]" : std::string();
}

[[nodiscard]] inline std::string edge_values_of_output(const std::string& buffer) {
  return "edge_values(): buffer '" + buffer + "' is not drawn (not an input)";
}

// What a whole declaration must hold: an output, one reference, an optimized launch; no oracle beside a host
// reference.
inline constexpr const char* no_output = "declares no output: there is nothing to check";
inline constexpr const char* no_reference = "declares no reference: call reference() or host_reference()";
inline constexpr const char* both_references = "declares both a device and a host reference: keep one";
inline constexpr const char* no_optimized = "declares no optimized launch: call optimized()";
inline constexpr const char* oracle_and_host_reference =
    "declares an oracle and a host reference: the host reference computes in double already; keep one";

// A verb that may be called once.
[[nodiscard]] inline std::string twice(const char* verb) { return std::string("sets ") + verb + "() twice"; }
[[nodiscard]] inline std::string buffer_twice(const std::string& buffer) { return "declares buffer '" + buffer + "' twice"; }
[[nodiscard]] inline std::string empty_function(const char* verb) { return std::string(verb) + "() was given an empty function"; }

}  // namespace declaration_rules
}  // namespace detail
}  // namespace kbench
