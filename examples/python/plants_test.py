"""Planted bugs as Python sides, each of which kbench must catch with the right reason: the ones of the
mutation suite (tests/harness/mutation_test.hip) that a side written in torch can plant. A control, the same
case done right, must pass, so that a catch means the plant and not the harness.

    PYTHONPATH=<build>/python pytest examples/python/plants_test.py
"""
import kbench
import pytest
import torch

EPS = 1e-6
ODD = {"rows": 37, "cols": 1531}  # the mutation suite's odd shape: 56647 elements, rows of 1531


def torch_rmsnorm(x, w, y):
    x32 = x.float()
    y.copy_((x32 * torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + EPS) * w.float()).to(y.dtype))


def correct(x, w, y):
    torch_rmsnorm(x, w, y)


def skip_last_row(x, w, y):
    torch_rmsnorm(x[:-1], w, y[:-1])


def write_nothing(x, w, y):
    pass


def write_zeros(x, w, y):
    y.zero_()


def write_input(x, w, y):
    y.copy_(x)


def case_with(optimized):
    def rmsnorm(c):
        rows, cols = c.dim("rows"), c.dim("cols")
        x = c.input("x", "fp16", [rows, cols], kbench.uniform(-2, 2))
        w = c.input("w", "fp16", [cols], kbench.uniform(0.5, 1.5))
        y = c.output("y", "fp16", [rows, cols])
        c.reference(lambda: torch_rmsnorm(x.tensor, w.tensor, y.tensor))
        c.optimized(lambda: optimized(x.tensor, w.tensor, y.tensor))
        c.tolerance(kbench.tol.ulp(1))
        c.bytes_moved(2.0 * (2.0 * rows * cols + cols))
    rmsnorm.__name__ = f"rmsnorm_{optimized.__name__}"
    return rmsnorm


def checked(optimized):
    reason = kbench.gpu_unavailable_reason()
    if reason is not None:
        pytest.skip(f"kbench: skipped: {reason}")
    return kbench.run_case(case_with(optimized), ODD, options=["--quick"])


def test_the_control_passes():
    record = checked(correct)
    assert record.verdict == "pass", record.report()


@pytest.mark.parametrize("plant, reason", [
    (skip_last_row, "1531 of 56647 elements (2.703%) were never written (first at (36, 0))"),
    (write_nothing, "56647 of 56647 elements (100%) were never written"),
    (write_zeros, "mismatch, 0 allowed"),
    (write_input, "mismatch, 0 allowed"),
])
def test_each_plant_is_caught_with_its_reason(plant, reason):
    record = checked(plant)
    assert record.verdict == "fail", record.report()
    assert any(reason in line for line in record.failure_reasons()), record.report()
