// kbench/detail/entropy.hpp: 64 bits from the host's entropy (std::random_device), for what nothing in a
// run may predict or repeat: fresh seeds, the keys of sealed memory and of fingerprints, the draws of the
// launches checked. HIP-free.
#pragma once

#include <cstdint>
#include <random>

namespace kbench {
namespace detail {

[[nodiscard]] inline std::uint64_t entropy_word() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

}  // namespace detail
}  // namespace kbench
