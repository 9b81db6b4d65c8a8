// kbench/compare.hpp: what a kernel test file includes. Declares the reference-vs-optimized contract
// (kernel_case), its tolerance policies, input distributions and registration; the runner that checks
// and times the cases is compiled once per program (kbench/main.hpp), which keeps test files light.
#pragma once

#include "distribution.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "hip_check.hpp"
#include "kernel_case.hpp"
#include "platform.hpp"
#include "registry.hpp"
#include "shape.hpp"
#include "tolerance.hpp"
