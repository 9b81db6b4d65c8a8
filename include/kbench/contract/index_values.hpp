// kbench/contract/index_values.hpp: the values of a from_index() input (distribution.hpp), evaluated on the
// host, every one checked against the input's type and stored as that type, ready to be copied to the
// device (procedure/random_kernels.hpp does, for every draw). The function is the case's own host code,
// which no kernel can call. HIP-free; included by the procedure, not by test files.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../detail/parallel.hpp"
#include "distribution.hpp"
#include "dtype.hpp"
#include "error.hpp"

namespace kbench {
namespace detail {

// Elements 0 .. count-1 of `d` (a from_index distribution) with `seed`, stored as type t at `out` (count
// elements), in pieces spread over every host thread. A value t cannot hold is a usage_error naming the
// function, the first such element and its value: never a value stored as another (inf, saturated, cut).
inline void evaluate_from_index(const distribution& d, dtype t, std::size_t count, std::uint64_t seed, void* out) {
  if (d.shape != distribution::kind::from_index || !d.function) {
    throw usage_error("evaluate_from_index() was given " + d.describe() + ", not a function of the index");
  }
  constexpr std::size_t piece = std::size_t{1} << 16;
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  const std::size_t pieces = (count + piece - 1) / piece;
  std::vector<std::size_t> first_refused(pieces, none);  // per piece, so that the error names the first of all
  std::vector<double> refused_value(pieces, 0.0);
  const distribution::index_function& function = *d.function;
  visit_dtype(t, [&](auto type) {
    constexpr dtype D = decltype(type)::value;
    parallel_for(pieces, [&](std::size_t p) {
      for (std::size_t i = p * piece, end = std::min(count, i + piece); i < end; ++i) {
        const double v = function(i, seed);
        if (!holds_value(D, v)) {
          first_refused[p] = i, refused_value[p] = v;
          return;
        }
        const storage_t<D> bits = encode<D>(v);
        std::memcpy(static_cast<unsigned char*>(out) + i * sizeof bits, &bits, sizeof bits);
      }
    });
  });
  const auto refused = std::min_element(first_refused.begin(), first_refused.end());
  if (refused == first_refused.end() || *refused == none) return;
  char value[32];
  std::snprintf(value, sizeof value, "%g", refused_value[static_cast<std::size_t>(refused - first_refused.begin())]);
  const std::string type_name(info(t).name);
  throw usage_error(d.describe() + " gives element " + std::to_string(*refused) + " the value " + value + ", which " +
                    type_name + " cannot hold (a number within its range; ±inf only in fp64, fp32, fp16 and bf16; "
                    "integers whole)");
}

}  // namespace detail
}  // namespace kbench
