"""kbench's pytest plugin: a case function becomes one test per shape.

    # test_rmsnorm.py
    from kbench.pytest_plugin import kbench_test

    def rmsnorm(c): ...
    test_rmsnorm = kbench_test(rmsnorm, shapes=[{"rows": 37, "cols": 1531}, {"rows": 16384, "cols": 8192}])

Each test declares its case at its shape (a broken declaration fails with kbench's message), then runs it
with kbench's procedure: its correctness run (every seed, then the shapes around it), and with
`--kbench-perf` (or the marker `@pytest.mark.kbench_perf` on the test) its timing too. A case that fails
fails the test with kbench's reasons; where this module cannot run cases (no GPU, or a build without the GPU
path) each test is skipped with the reason. `--kbench-option=--timing=batch` passes an option of a kbench
program on. Loaded with `-p kbench.pytest_plugin` or a conftest's `pytest_plugins = ["kbench.pytest_plugin"]`
(for the options and the markers); kbench_test works without it.
"""
import pytest

import kbench


def pytest_addoption(parser):
    parser.addoption("--kbench-perf", action="store_true", default=False,
                     help="kbench: time each case after checking it (kbench's perf mode)")
    parser.addoption("--kbench-option", action="append", default=[],
                     help="kbench: an option of a kbench program, as --kbench-option=--timing=batch (repeatable)")


def pytest_configure(config):
    config.addinivalue_line("markers", "kbench: a case checked (and timed) by kbench, one test per shape")
    config.addinivalue_line("markers", "kbench_perf: time this kbench case too, as --kbench-perf does")


def _label(shape):
    return str(kbench.Shape(dict(shape))) or "default"


def _options(config):
    return list(config.getoption("--kbench-option", default=[]) or [])


def _run_and_judge(case, request):
    perf = request.config.getoption("--kbench-perf", default=False) or \
        request.node.get_closest_marker("kbench_perf") is not None
    run = kbench.run(case, mode="perf" if perf else "correctness", options=_options(request.config))
    declared = run.cases[0]
    if declared.verdict == "skipped":
        pytest.skip(f"kbench: skipped {declared.label}: {declared.message}")
    for record in run.cases:  # the declared shape, then the shapes around it
        kbench.raise_for_verdict(record)
    print(declared.report())


def kbench_test(function, shapes, name=None):
    """A pytest test of `function` (a kbench case function), parametrized over `shapes`, one test each."""
    shapes = [dict(s) for s in shapes]
    if not shapes:
        raise kbench.UsageError(f"kbench_test({function.__name__}): no shapes: a case runs at one shape or more")

    @pytest.mark.kbench
    @pytest.mark.parametrize("kbench_shape", shapes, ids=[_label(s) for s in shapes])
    def test(kbench_shape, request):
        case = kbench.declare(function, kbench_shape, shapes, name=name)
        reason = kbench.gpu_unavailable_reason()
        if reason is not None:
            pytest.skip(f"kbench: skipped {case.name} [{case.shape}]: {reason}")
        _run_and_judge(case, request)

    test.__name__ = f"test_{name or function.__name__}"
    return test
