// kbench/contract/distribution.hpp: how an input is drawn. The values are generated on the device from the run's
// seed (see random.hpp), those of a function the case writes on the host (index_values.hpp); this header only
// describes them, so it stays HIP-free and light.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "callable.hpp"
#include "error.hpp"

namespace kbench {

struct distribution {
  enum class kind : unsigned char { uniform, normal, arange, constant, choice, from_index };
  // from_index: element i's value, given i and the input's seed.
  using index_function = detail::callable<double(std::size_t index, std::uint64_t seed)>;
  kind shape = kind::uniform;
  double a = -1.0;  // uniform: low;  normal: mean;   arange: start; constant: the value; choice: the value
  double b = 1.0;   // uniform: high; normal: stddev; arange: step;                      choice: the other
  double weight = 0.0;  // choice: the probability of `a`
  std::shared_ptr<const index_function> function;  // from_index (shared: a declaration is copied often)
  std::string name;                                 // from_index: what reports and digests call the function

  [[nodiscard]] std::string describe() const {
    switch (shape) {
      case kind::uniform: return "uniform(" + std::to_string(a) + ", " + std::to_string(b) + ")";
      case kind::normal: return "normal(" + std::to_string(a) + ", " + std::to_string(b) + ")";
      case kind::arange: return "arange(" + std::to_string(a) + ", " + std::to_string(b) + ")";
      case kind::constant: return "constant(" + std::to_string(a) + ")";
      case kind::choice:
        return "choice(" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(weight) + ")";
      case kind::from_index: return "from_index(\"" + name + "\")";
    }
    return "?";
  }
  // Its values are random numbers from a range (uniform, normal): what an edge run may scale, round or
  // replace (decisions/edge_values.hpp).
  [[nodiscard]] bool random_values() const { return shape == kind::uniform || shape == kind::normal; }
  // The values it can draw are given, not a range: ±inf may be among them (for floating-point inputs).
  [[nodiscard]] bool given_values() const { return shape == kind::constant || shape == kind::choice; }
  // Element i's value belongs to position i (a position, an index, a mask by row and column): moved
  // elsewhere it would be a value the case never declared there.
  [[nodiscard]] bool positional() const { return shape == kind::arange || shape == kind::from_index; }
};

// Uniform in [low, high): floats; integer types draw from [low, high] inclusive.
[[nodiscard]] inline distribution uniform(double low, double high) {
  if (!std::isfinite(low) || !std::isfinite(high) || !(low < high)) {
    throw usage_error("uniform(" + std::to_string(low) + ", " + std::to_string(high) +
                      "): bounds must be finite with low < high");
  }
  return {distribution::kind::uniform, low, high, 0.0};
}

// Normal with the given mean and standard deviation; integer types round.
[[nodiscard]] inline distribution normal(double mean, double stddev) {
  if (!std::isfinite(mean) || !std::isfinite(stddev) || !(stddev > 0.0)) {
    throw usage_error("normal(" + std::to_string(mean) + ", " + std::to_string(stddev) +
                      "): mean must be finite and stddev finite and > 0");
  }
  return {distribution::kind::normal, mean, stddev, 0.0};
}

// Element i is start + i * step (positions, indices). Not random: the seed does not change it.
[[nodiscard]] inline distribution arange(double start = 0.0, double step = 1.0) {
  if (!std::isfinite(start) || !std::isfinite(step) || step == 0.0) {
    throw usage_error("arange: start and step must be finite, step non-zero");
  }
  return {distribution::kind::arange, start, step, 0.0};
}

// Every element `value`: a scale, a bias, a mask that masks nothing. ±inf is a value (floating-point inputs).
[[nodiscard]] inline distribution constant(double value) {
  if (std::isnan(value)) throw usage_error("constant(nan): a value must be a number (±inf allowed)");
  return {distribution::kind::constant, value, 0.0, 0.0};
}

// `value` with probability `weight`, else `other`, each element drawn apart: an additive attention mask
// (choice(0, -INFINITY, 0.9): a tenth of the positions masked), a flag (choice(1, 0, 0.5)).
[[nodiscard]] inline distribution choice(double value, double other, double weight) {
  if (std::isnan(value) || std::isnan(other)) {
    throw usage_error("choice(): the values must be numbers (±inf allowed)");
  }
  if (!(weight > 0.0 && weight < 1.0)) {
    throw usage_error("choice(" + std::to_string(value) + ", " + std::to_string(other) + ", " + std::to_string(weight) +
                      "): the weight is the probability of the first value, strictly between 0 and 1 (else constant())");
  }
  return {distribution::kind::choice, value, other, weight};
}

namespace detail {
// from_index()'s checks, once for every kind of function.
[[nodiscard]] inline distribution index_distribution(std::string name, distribution::index_function function) {
  if (name.empty() || name.find_first_of("\n\r\"") != std::string::npos) {
    throw usage_error("from_index(\"" + name + "\"): the function needs a name of one line, without quotes (reports "
                      "and the declaration's digest print it, as they cannot print a function)");
  }
  distribution d{distribution::kind::from_index, 0.0, 0.0, 0.0};
  d.function = std::make_shared<const distribution::index_function>(std::move(function));
  d.name = std::move(name);
  return d;
}
}  // namespace detail

// Element i is `function(i, seed)`, a function of your own of the element's index (row-major over the
// extents, padding left out) and of a seed of the input's own that the run's seed gives (a printed seed
// replays it): positions, indices into a table, a mask by row and column, values of your own hash (a
// function of i alone may leave the seed out). It runs on the host, on every host thread at once and in
// no order, so it must depend on (i, seed) only; each value must be one the input's type holds (as for
// constant(): else a usage error names the input and the element). `name` stands for it in reports and
// the declaration's digest, which cannot read a function: rename it when the function changes.
//   c.input<std::int32_t>("token", {n}, kbench::from_index("i mod vocab", [=](std::size_t i) { return i % vocab; }));
template <class Function>
[[nodiscard]] distribution from_index(std::string name, Function function) {
  constexpr bool of_index_and_seed = std::is_invocable_r_v<double, const Function&, std::size_t, std::uint64_t>;
  static_assert(of_index_and_seed || std::is_invocable_r_v<double, const Function&, std::size_t>,
                "from_index() takes a function of (std::size_t index, std::uint64_t seed), or of the index alone, that "
                "returns a number and changes no state (it is called from several threads at once)");
  if constexpr (of_index_and_seed) {
    return detail::index_distribution(std::move(name), std::move(function));
  } else {
    return detail::index_distribution(std::move(name), [f = std::move(function)](std::size_t i, std::uint64_t) {
      return static_cast<double>(f(i));
    });
  }
}

}  // namespace kbench
