"""A fused torch op (torch.nn.functional.layer_norm, one kernel) against the same normalization composed of
torch's elementwise and reduction ops in float32: kbench checks that the fusion computes what the composition
does, and times both (docs/python.md).

    PYTHONPATH=<build>/python pytest -p kbench.pytest_plugin examples/python/fused_op_test.py [--kbench-perf]
"""
import kbench
import torch
import torch.nn.functional as F
from kbench.pytest_plugin import kbench_test

EPS = 1e-5


def composed_layer_norm(x, w, b, y):
    x32 = x.float()
    centred = x32 - x32.mean(dim=-1, keepdim=True)
    variance = centred.pow(2).mean(dim=-1, keepdim=True)
    y.copy_((centred * torch.rsqrt(variance + EPS) * w.float() + b.float()).to(y.dtype))


def fused_layer_norm(x, w, b, y):
    y.copy_(F.layer_norm(x, (x.shape[-1],), w, b, EPS))  # torch has no out= for it: the copy is part of its time


def layer_norm(c):
    rows, cols = c.dim("rows"), c.dim("cols")
    x = c.input("x", "fp16", [rows, cols], kbench.normal(0.0, 2.0))
    w = c.input("w", "fp16", [cols], kbench.uniform(0.5, 1.5))
    b = c.input("b", "fp16", [cols], kbench.uniform(-0.5, 0.5))
    y = c.output("y", "fp16", [rows, cols])
    c.reference(lambda: composed_layer_norm(x.tensor, w.tensor, b.tensor, y.tensor))
    c.optimized(lambda: fused_layer_norm(x.tensor, w.tensor, b.tensor, y.tensor))
    # Both in float32 (Welford's mean and variance against two passes), rounded once to fp16: two units in the
    # last place (2^-9 of the value at most), and 1e-5 where w * x_hat + b cancels near zero, since there a
    # float32 difference of a few 1e-7 is many of fp16's tiny units (ulp(2) alone failed 24 of 33.5M
    # elements with inputs from another family on the H200).
    c.tolerance(kbench.tol.allclose(2e-3, 1e-5))
    c.bytes_moved(2.0 * (2.0 * rows * cols + 2.0 * cols))


test_layer_norm = kbench_test(layer_norm, shapes=[{"rows": 37, "cols": 1531}, {"rows": 8192, "cols": 4096}])
