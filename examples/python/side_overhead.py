#!/usr/bin/env python3
"""What a Python side costs against a C++ one (for docs/measured.md): the same Triton kernel
(examples/09_triton/add_relu_kernel.py) as the optimized side of example_09_triton, compiled ahead of time and
launched from C++, and of a Python case, launched by Triton's own launcher from Python; each timed by kbench
in cold and in batch mode. Prints both medians, and how each mode was timed (batch mode says when a side
could not be captured in a graph).

    PYTHONPATH=<build>/python python3 examples/python/side_overhead.py --build <build> [--n 1000003]
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile

import kbench
import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL_FILE = os.path.join(HERE, "..", "09_triton", "add_relu_kernel.py")
BLOCK = 1024  # as examples/CMakeLists.txt compiles it for the C++ side


def add_relu_kernel():
    spec = importlib.util.spec_from_file_location("add_relu_kernel", KERNEL_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.add_relu_kernel


def add_relu_case(kernel):
    def add_relu(c):
        n = c.dim("n")
        x = c.input("x", "fp32", [n])
        bias = c.input("bias", "fp32", [n])
        y = c.output("y", "fp32", [n])
        c.reference(lambda: torch.add(x.tensor, bias.tensor, out=y.tensor).clamp_min_(0.0))
        c.optimized(lambda: kernel[(triton.cdiv(n, BLOCK),)](x.tensor, bias.tensor, y.tensor, n, BLOCK=BLOCK, num_warps=4))
        c.tolerance(kbench.tol.exact())  # one rounding (x + bias), then a max: the same on both sides
        c.bytes_moved(3.0 * 4 * n)
        c.flops(2.0 * n)
    return add_relu


def python_side(n, mode):
    record = kbench.run_case(add_relu_case(add_relu_kernel()), {"n": n}, mode="perf", options=["--timing", mode])
    return record


def cpp_side(build, n, mode):
    program = os.path.join(build, "examples", "example_09_triton")
    if not os.path.exists(program):
        return None, f"{program} is not built (its build found no python3 that imports triton)"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run.json")
        done = subprocess.run([program, "perf", "--timing", mode, "--shape", f"n={n}", "--json", path],
                              capture_output=True, text=True, check=False)
        if not os.path.exists(path):
            return None, f"{program} wrote no results (exit {done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}"
        return kbench.read_results(path).cases[0], None


def median_us(record):
    if record is None or record.timing is None:
        return None
    return record.timing.optimized.median * 1e6


def describe(label, record, why):
    if record is None:
        return f"  {label}: not measured: {why}"
    lines = [f"  {label}: {record.verdict}, {record.timing.method if record.timing else record.message}"]
    if record.timing:
        lines += [f"    {f.kind}: {f.text}" for f in record.timing.findings if f.kind == "note"]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="the NVIDIA or AMD build folder (its examples/ and python/)")
    parser.add_argument("--n", type=int, default=1000003, help="elements (example_09_triton's larger shape)")
    args = parser.parse_args()
    reason = kbench.gpu_unavailable_reason()
    if reason is not None:
        print(f"kbench: skipped: {reason}")
        return 77
    rows = []
    for mode in ("cold", "batch"):
        cpp, why = cpp_side(args.build, args.n, mode)
        python = python_side(args.n, mode)
        rows.append((mode, median_us(cpp), median_us(python)))
        print(f"{mode}:\n{describe('C++ side', cpp, why)}\n{describe('Python side', python, '')}")
    print(f"\nadd_relu, n={args.n}: the optimized side's median, in microseconds")
    print(f"{'mode':6} {'C++ side':>10} {'Python side':>12} {'difference':>11}")
    for mode, cpp, python in rows:
        show = lambda v: f"{v:10.2f}" if v is not None else f"{'-':>10}"
        difference = f"{python - cpp:+11.2f}" if cpp is not None and python is not None else f"{'-':>11}"
        print(f"{mode:6} {show(cpp)} {show(python):>12} {difference}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
