// kbench/compare.hpp: what a kernel test file includes. Declares the reference-vs-optimized contract
// (kernel_case), its tolerance policies, input distributions and registration; the runner that checks
// and times the cases is compiled once per program (kbench/main.hpp), which keeps test files light.
#pragma once

#include "contract/distribution.hpp"
#include "contract/dtype.hpp"
#include "contract/error.hpp"
#include "contract/hip_check.hpp"
#include "contract/kernel_case.hpp"
#include "contract/platform.hpp"
#include "contract/registry.hpp"
#include "contract/shape.hpp"
#include "contract/tolerance.hpp"
