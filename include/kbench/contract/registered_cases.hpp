// kbench/contract/registered_cases.hpp: every case registered in this program, in registration order.
// Apart from registry.hpp, which test files include: they register, and only the program's own
// translation units read the list (and compile <deque>). HIP-free.
#pragma once

#include <deque>

#include "registry.hpp"

namespace kbench {

// A deque keeps references stable: each KBENCH_REGISTER line holds one to its registration.
inline std::deque<case_registration>& registered_cases() {
  static std::deque<case_registration> cases;
  return cases;
}

}  // namespace kbench
