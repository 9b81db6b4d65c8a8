"""kbench's pytest plugin: a case function becomes one test per shape.

    # test_rmsnorm.py
    from kbench.pytest_plugin import kbench_test

    def rmsnorm(c): ...
    test_rmsnorm = kbench_test(rmsnorm, shapes=[{"rows": 37, "cols": 1531}, {"rows": 16384, "cols": 8192}])

Each test declares its case at its shape (a broken declaration fails with kbench's message), then runs it;
where this module cannot run cases (no GPU, or a build without the GPU path) it is skipped with the reason.
`pytest --kbench-perf` times the cases too. Loaded with `-p kbench.pytest_plugin` or a conftest's
`pytest_plugins = ["kbench.pytest_plugin"]` (for the option and the marker); kbench_test works without it.
"""
import pytest

import kbench


def pytest_addoption(parser):
    parser.addoption("--kbench-perf", action="store_true", default=False,
                     help="kbench: time each case after checking it (kbench's perf mode)")


def pytest_configure(config):
    config.addinivalue_line("markers", "kbench: a case checked (and timed) by kbench, one test per shape")


def _label(shape):
    return str(kbench.Shape(dict(shape))) or "default"


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
        perf = request.config.getoption("--kbench-perf", default=False)
        record = kbench.run_case(case, "perf" if perf else "correctness")
        kbench.raise_for_verdict(record)

    test.__name__ = f"test_{name or function.__name__}"
    return test
