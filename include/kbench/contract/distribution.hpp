// kbench/contract/distribution.hpp: how an input is drawn. The values are generated on the device from the run's
// seed (see random.hpp); this header only describes them, so it stays HIP-free and light.
#pragma once

#include <cmath>
#include <string>

#include "error.hpp"

namespace kbench {

struct distribution {
  enum class kind : unsigned char { uniform, normal, arange, constant, choice };
  kind shape = kind::uniform;
  double a = -1.0;  // uniform: low;  normal: mean;   arange: start; constant: the value; choice: the value
  double b = 1.0;   // uniform: high; normal: stddev; arange: step;                      choice: the other
  double weight = 0.0;  // choice: the probability of `a`

  [[nodiscard]] std::string describe() const {
    switch (shape) {
      case kind::uniform: return "uniform(" + std::to_string(a) + ", " + std::to_string(b) + ")";
      case kind::normal: return "normal(" + std::to_string(a) + ", " + std::to_string(b) + ")";
      case kind::arange: return "arange(" + std::to_string(a) + ", " + std::to_string(b) + ")";
      case kind::constant: return "constant(" + std::to_string(a) + ")";
      case kind::choice:
        return "choice(" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(weight) + ")";
    }
    return "?";
  }
  // The values it can draw are given, not a range: ±inf may be among them (for floating-point inputs).
  [[nodiscard]] bool given_values() const { return shape == kind::constant || shape == kind::choice; }
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

}  // namespace kbench
