// python/src/python_run.cpp: the GPU build's run of a Python case (python_run.hpp), compiled once by the
// host compiler.
#include "python_run.hpp"
