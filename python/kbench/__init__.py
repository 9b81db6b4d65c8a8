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

    record = kbench.run_case(rmsnorm, {"rows": 37, "cols": 1531})            # checked on the GPU
    record = kbench.run_case(case, mode="perf", options=["--timing", "batch"])  # and timed

The GPU build (kbench.gpu_path_built) runs cases with kbench's procedure, each side called back into Python
with torch's stream set to kbench's; the host-only build declares, validates, digests and reads results, and
kbench.run_case says it cannot run.
"""
import inspect

from . import _kbench
from ._kbench import (Buffer, Case, CaseRecord, Check, Comparison, Device, Distribution, Error, Finding, Output,
                      Run, SampleStats, Shape, SourcedFinding, Timing, UsageError, arange, choice, constant, dtype,
                      gpu_path_built, normal, tol, uniform, version)
from ._kbench import read_results_text as _read_results_text

__all__ = ["Buffer", "Case", "CaseFailed", "CaseRecord", "Check", "Comparison", "Device", "Distribution", "Error",
           "Finding", "Output", "Run", "SampleStats", "Shape", "SourcedFinding", "Timing", "UsageError", "arange",
           "choice", "constant", "current_stream", "declare", "dtype", "from_index", "gpu_unavailable_reason", "normal",
           "raise_for_verdict",
           "read_results", "run", "run_case", "tol", "uniform", "version"]


class CaseFailed(AssertionError):
    """A case that did not pass: its reasons, one a line, and its console report."""

    def __init__(self, record):
        self.record = record
        reasons = record.failure_reasons() or [f"verdict {record.verdict}"]
        super().__init__(f"{record.label}: " + "; ".join(reasons) + "\n" + record.report())


def _takes_seed(function):
    """Whether a from_index() function takes (index, seed), not the index alone: two positional parameters or
    more (or *args), or a signature Python cannot read."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in parameters)


def from_index(name, function):
    """An input's values by a function of your own: element i is function(i, seed), or function(i), a number
    the input's type holds (row-major over the extents, padding left out; the seed is the input's own, from
    the run's). `name` stands for it in reports and the digest, which cannot read a function: rename it when
    the function changes. kbench evaluates it on the host, on every host thread, each call taking the GIL: a
    function of (i, seed) only, and slow for large inputs (a distribution kbench draws on the GPU is not)."""
    if not callable(function):
        return _kbench.from_index(name, function, True)  # kbench's message
    return _kbench.from_index(name, function, _takes_seed(function))


def _collect(function, shape, shapes, name):
    """The kbench.Case that `function` fills at `shape`, not yet validated."""
    case = Case(name or function.__name__, dict(shape), [dict(s) for s in (shapes or [shape])])
    function(case)
    return case


def _collector(function, shapes, name):
    """What the GPU build calls for each kernel_case kbench makes of the case: the function run at a shape."""
    return lambda shape: _collect(function, shape, shapes, name)


def _shape_list(shape, shapes):
    return [dict(s) for s in (shapes or [shape])]


def declare(function, shape, shapes=None, name=None):
    """Runs the case function once at `shape` (a dict: int sizes, float parameters) and validates what it
    declared: a broken declaration raises kbench.UsageError with kbench's message. `shapes` are all the shapes
    the test declares (the digest names them; default: this one). In the GPU build the declaration is also
    replayed onto a real kernel_case, whose checks are the authoritative ones."""
    case = _collect(function, shape, shapes, name)
    if gpu_path_built:
        case._replayed_lines = _kbench.replayed_lines(_collector(function, shapes, name), case.name, dict(shape),
                                                      _shape_list(shape, shapes))
    else:
        case.validate()
    case._function, case._shape, case._shapes = function, dict(shape), _shape_list(shape, shapes)
    return case


def gpu_unavailable_reason(device=0):
    """Why this module cannot run a case here, or None where it can."""
    if not gpu_path_built:
        return ("kbench's Python module was built without its GPU path (configure with KBENCH_GPU_PLATFORM nvidia "
                "or amd): cases are declared, validated and digested on the host only")
    return _kbench.device_unusable_reason(device) or None


def current_stream():
    """The stream (a hipStream_t as an int) of the launch kbench is running: for sides that launch through
    something other than torch (torch's current stream is set to it already)."""
    return _kbench.current_stream()


def _what_runs(case, shape, shapes, name):
    """A declared kbench.Case, or a case function with its shape."""
    if isinstance(case, Case):
        if not hasattr(case, "_function"):
            raise UsageError("kbench.run_case: this Case was not made by kbench.declare(); give the case function")
        return case._function, dict(shape or case._shape), case._shapes, case.name
    if shape is None:
        raise UsageError(f"kbench.run_case({getattr(case, '__name__', case)!r}): give the shape to run it at")
    return case, dict(shape), _shape_list(shape, shapes), name or case.__name__


def run(case, shape=None, mode="correctness", options=(), shapes=None, name=None):
    """Runs a case as a kbench program runs it, in this process: `mode` "correctness" (every seed, then the
    shapes around the declared one) or "perf" (check, time, check again); `options` a kbench program's
    (["--timing", "batch"], ["--seed", "0x2a"]). `case` is a kbench.declare()d Case, or a case function with
    its `shape`. Returns the kbench.Run: every case record, the declared shape's first; its to_json() is the
    document a kbench program writes."""
    function, shape, shapes, name = _what_runs(case, shape, shapes, name)
    if not gpu_path_built:
        raise Error(f"kbench.run_case({name!r}, {mode!r}): this build of kbench's Python module cannot run cases: "
                    + gpu_unavailable_reason())
    return _kbench.run(_collector(function, shapes, name), name, shape, shapes, [mode, *options])


def run_case(case, shape=None, mode="correctness", options=(), shapes=None, name=None):
    """The record of the declared shape of kbench.run(): its verdict, checks, timing and census. The shapes
    around it are records of their own in kbench.run()'s result."""
    return run(case, shape, mode, options, shapes, name).cases[0]


def read_results(path):
    """A "kbench-results/1" document (a program's --json) as a kbench.Run, by kbench's own reader."""
    with open(path, encoding="utf-8") as handle:
        return _read_results_text(handle.read())


def raise_for_verdict(record):
    """Raises CaseFailed with the case's reasons unless it passed (a skip, or a shape left out, is not a
    failure)."""
    if record.verdict not in ("pass", "skipped", "filtered"):
        raise CaseFailed(record)
