"""A test file as users write it: a case function and its shapes, one test each (run by test_plugin.py)."""
import kbench
from kbench.pytest_plugin import kbench_test


def rmsnorm(c):
    rows, cols = c.dim("rows"), c.dim("cols")
    x = c.input("x", "fp16", [rows, cols], kbench.uniform(-2, 2))
    y = c.output("y", "fp16", [rows, cols])
    c.reference(lambda: y.tensor.copy_(x.tensor))
    c.optimized(lambda: y.tensor.copy_(x.tensor))
    c.bytes_moved(2.0 * 2 * rows * cols)


def zeros(c):
    rows, cols = c.dim("rows"), c.dim("cols")
    x = c.input("x", "fp16", [rows, cols], kbench.uniform(-2, 2))
    y = c.output("y", "fp16", [rows, cols])
    c.reference(lambda: y.tensor.copy_(x.tensor))
    c.optimized(lambda: y.tensor.zero_())  # wrong: a test that must fail, with kbench's reason


def broken(c):
    c.input("x", "fp16", [c.dim("n")])  # no output, no sides: never a pass


test_rmsnorm = kbench_test(rmsnorm, shapes=[{"rows": 37, "cols": 1531}, {"rows": 16384, "cols": 8192},
                                            {"rows": 1, "cols": 7}])
test_zeros = kbench_test(zeros, shapes=[{"rows": 37, "cols": 1531}])
test_broken = kbench_test(broken, shapes=[{"n": 4}])
