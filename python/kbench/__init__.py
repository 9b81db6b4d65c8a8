"""kbench from Python: cases declared in Python, checked and timed by kbench's engine (docs/python.md).

    def rmsnorm(c):
        rows, cols = c.dim("rows"), c.dim("cols")
        x = c.input("x", "fp16", [rows, cols], kbench.uniform(-2, 2))
        y = c.output("y", "fp16", [rows, cols])
        c.reference(lambda: torch_rmsnorm(x.tensor, out=y.tensor))
        c.optimized(lambda: triton_rmsnorm(x.tensor, y.tensor))
        c.bytes_moved(2.0 * 2 * rows * cols)

    case = kbench.declare(rmsnorm, {"rows": 37, "cols": 1531})
    case.digest()   # the same digest a C++ declaration of the same case has

This build declares, validates and digests cases and reads results; running sides on the GPU is not built
yet, and says so (kbench.run_case).
"""
from ._kbench import (Buffer, Case, CaseRecord, Check, Comparison, Device, Distribution, Error, Finding, Output,
                      Run, SampleStats, Shape, SourcedFinding, Timing, UsageError, arange, choice, constant, dtype,
                      gpu_path_built, normal, tol, uniform, version)
from ._kbench import read_results_text as _read_results_text

__all__ = ["Buffer", "Case", "CaseFailed", "CaseRecord", "Check", "Comparison", "Device", "Distribution", "Error",
           "Finding", "Output", "Run", "SampleStats", "Shape", "SourcedFinding", "Timing", "UsageError", "arange",
           "choice", "constant", "declare", "dtype", "gpu_unavailable_reason", "normal", "raise_for_verdict",
           "read_results", "run_case", "tol", "uniform", "version"]


class CaseFailed(AssertionError):
    """A case that did not pass: its reasons, one a line, and its console report."""

    def __init__(self, record):
        self.record = record
        reasons = record.failure_reasons() or [f"verdict {record.verdict}"]
        super().__init__(f"{record.label}: " + "; ".join(reasons) + "\n" + record.report())


def declare(function, shape, shapes=None, name=None):
    """Runs the case function once at `shape` (a dict: int sizes, float parameters) and validates what it
    declared: a broken declaration raises kbench.UsageError with kbench's message. `shapes` are all the shapes
    the test declares (the digest names them; default: this one)."""
    case = Case(name or function.__name__, dict(shape), [dict(s) for s in (shapes or [shape])])
    function(case)
    case.validate()
    return case


def gpu_unavailable_reason():
    """Why this module cannot run a case here, or None where it can."""
    if not gpu_path_built:
        return ("kbench's Python module was built without its GPU path (not built yet): cases are declared, "
                "validated and digested on the host only")
    return None


def run_case(case, mode="correctness"):
    """Checks (and, with mode "perf", times) a declared case on the GPU. Not built yet: raises, never passes."""
    raise Error(f"kbench.run_case({case.name!r}, {mode!r}): running a case from Python is not built yet "
                "(docs/python.md says what is missing)")


def read_results(path):
    """A "kbench-results/1" document (a program's --json) as a kbench.Run, by kbench's own reader."""
    with open(path, encoding="utf-8") as handle:
        return _read_results_text(handle.read())


def raise_for_verdict(record):
    """Raises CaseFailed with the case's reasons unless it passed (a skip is not a failure)."""
    if record.verdict not in ("pass", "skipped"):
        raise CaseFailed(record)
