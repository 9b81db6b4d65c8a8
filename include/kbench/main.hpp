// kbench/main.hpp: a whole kbench program's runner and main() in one translation unit, for projects that
// build without kbench.cmake. Include it in exactly one GPU source of the program. kbench_add_kernel_test
// instead compiles the same parts as separate translation units, once per project: the procedure with
// the GPU compiler (procedure/procedure_impl.hpp, and its device work: procedure/device_work_*.hpp), the rest as
// plain C++ (program_main, command_line_definitions, catch2_adapter, benchmark_adapter and resources_mode,
// in program/), so that they build in parallel.
#pragma once

#include "procedure/device_ceilings_definitions.hpp"
#include "procedure/device_work_compare.hpp"
#include "procedure/device_work_compare_integers.hpp"
#include "procedure/device_work_compare_fp8.hpp"
#include "procedure/device_work_compare_half_floats.hpp"
#include "procedure/device_work_fill.hpp"
#include "procedure/device_work_perturb.hpp"
#include "procedure/host_comparison_definitions.hpp"
#include "procedure/census_definitions.hpp"
#include "procedure/correctness_definitions.hpp"
#include "procedure/procedure_impl.hpp"
#include "procedure/timing_definitions.hpp"
#include "program/benchmark_adapter.hpp"
#include "program/catch2_adapter.hpp"
#include "program/command_line_definitions.hpp"
#include "program/program_main.hpp"
#include "program/resources_mode.hpp"

int main(int argc, char** argv) { return kbench::run_main(argc, argv); }
