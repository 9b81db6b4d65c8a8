// python/src/case_replay.hip: the GPU build's replay of a Python case onto kernel_case (case_replay.hpp),
// compiled once by the GPU compiler.
#include "case_replay.hpp"
