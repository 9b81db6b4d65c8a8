// kbench/contract/distribution.hpp: how an input is drawn. The values are generated on the device from the run's
// seed (see random.hpp); this header only describes them, so it stays HIP-free and light.
#pragma once

#include <cmath>
#include <string>

#include "error.hpp"

namespace kbench {

struct distribution {
  enum class kind : unsigned char { uniform, normal, arange };
  kind shape = kind::uniform;
  double a = -1.0;  // uniform: low;  normal: mean;   arange: start
  double b = 1.0;   // uniform: high; normal: stddev; arange: step

  [[nodiscard]] std::string describe() const {
    switch (shape) {
      case kind::uniform: return "uniform(" + std::to_string(a) + ", " + std::to_string(b) + ")";
      case kind::normal: return "normal(" + std::to_string(a) + ", " + std::to_string(b) + ")";
      case kind::arange: return "arange(" + std::to_string(a) + ", " + std::to_string(b) + ")";
    }
    return "?";
  }
};

// Uniform in [low, high): floats; integer types draw from [low, high] inclusive.
[[nodiscard]] inline distribution uniform(double low, double high) {
  if (!std::isfinite(low) || !std::isfinite(high) || !(low < high)) {
    throw usage_error("uniform(" + std::to_string(low) + ", " + std::to_string(high) +
                      "): bounds must be finite with low < high");
  }
  return {distribution::kind::uniform, low, high};
}

// Normal with the given mean and standard deviation; integer types round.
[[nodiscard]] inline distribution normal(double mean, double stddev) {
  if (!std::isfinite(mean) || !std::isfinite(stddev) || !(stddev > 0.0)) {
    throw usage_error("normal(" + std::to_string(mean) + ", " + std::to_string(stddev) +
                      "): mean must be finite and stddev finite and > 0");
  }
  return {distribution::kind::normal, mean, stddev};
}

// Element i is start + i * step (positions, indices). Not random: the seed does not change it.
[[nodiscard]] inline distribution arange(double start = 0.0, double step = 1.0) {
  if (!std::isfinite(start) || !std::isfinite(step) || step == 0.0) {
    throw usage_error("arange: start and step must be finite, step non-zero");
  }
  return {distribution::kind::arange, start, step};
}

}  // namespace kbench
