"""kbench's Python declaration: the same checks and messages as kernel_case's, and the same digest."""
import pytest

import kbench

SHAPES = [{"rows": 37, "cols": 1531}, {"rows": 16384, "cols": 8192}]


def rmsnorm(c):
    rows, cols = c.dim("rows"), c.dim("cols")
    c.input("x", "fp16", [rows, cols], kbench.uniform(-2, 2))
    c.output("y", "fp16", [rows, cols])
    c.reference(lambda: None)
    c.optimized(lambda: None)
    c.bytes_moved(2.0 * 2 * rows * cols)


def test_digest_equals_the_cpp_declarations():
    # tests/unit/declaration_digest_test.cpp pins this digest for the same declaration made in C++
    # (sample_facts: fp16 x uniform(-2, 2), fp16 y at its default tolerance, device sides, the bytes moved).
    case = kbench.declare(rmsnorm, SHAPES[0], SHAPES)
    assert case.digest() == "fnv1a64:d4a2276581ab99b8"
    assert case.lines()[3] == "buffer in x fp16 [37 x 1531] pitch 0 device 0 init uniform(-2, 2)"


def test_every_part_moves_the_digest():
    base = kbench.declare(rmsnorm, SHAPES[0], SHAPES).digest()

    def changed(extra):
        def declaration(c):
            rmsnorm(c)
            extra(c)
        return kbench.declare(declaration, SHAPES[0], SHAPES, name="rmsnorm").digest()

    assert changed(lambda c: c.tolerance(kbench.tol.allclose(2e-3, 1e-5))) != base
    assert changed(lambda c: c.require_speedup(1.2)) != base
    assert changed(lambda c: c.flops(4.0 * 37 * 1531)) != base
    assert kbench.declare(rmsnorm, SHAPES[0], SHAPES[:1]).digest() != base  # a shape dropped


def test_torch_names_for_dtypes():
    def case(c):
        c.input("a", "torch.bfloat16", [4])
        c.input("b", "half", [4])
        c.output("y", kbench.dtype.fp32, [4])
        c.reference(print)
        c.optimized(print)
    lines = kbench.declare(case, {}).lines()
    assert " a bf16 " in lines[3] and " b fp16 " in lines[4] and " y fp32 " in lines[5]


@pytest.mark.parametrize("declaration, message", [
    (lambda c: c.input("x", "fp16", [0]), "buffer 'x' has extent 0: every extent must be > 0"),
    (lambda c: (c.output("y", "fp32", [4]), c.output("y", "fp32", [4])), "declares buffer 'y' twice"),
    (lambda c: c.input("x", "fp16", [4], kbench.uniform(-1e6, 1e6)), "exceeds the range of fp16"),
    (lambda c: c.input("x", "int8", [4], kbench.constant(300)), "holds a value int8 cannot hold"),
    (lambda c: c.input("x", "fp17", [4]), "unknown dtype 'fp17'"),
    (lambda c: c.dim("cols"), "has no such dimension"),
    (lambda c: c.flag("n"), "is a flag: 0 or 1, not 4"),
    (lambda c: c.scratch("s", "uint8", -1), "a count must be >= 0"),
    (lambda c: c.requires_alignment(12), "requires_alignment() needs a power of two up to 256"),
    (lambda c: c.bytes_moved(float("nan")), "bytes_moved() must be finite and >= 0"),
    (lambda c: c.flops(1.0, "int32"), "flops() counts arithmetic in f64, f32, f16 or bf16"),
    (lambda c: c.tolerance(kbench.tol.max_mismatch(0.05)), "has no criterion: add an elementwise rule"),
    (lambda c: c.tolerance(kbench.tol.cosine() & kbench.tol.max_mismatch(0.05)), "max_mismatch needs an elementwise rule"),
    (lambda c: c.optimized(42), "optimized() was given 42, not a callable"),
    (lambda c: (c.reference(print), c.reference(print)), "sets reference() twice"),
    (lambda c: (c.output("y", "fp32", [4]), c.reference(print), c.host_reference(print)),
     "declares both a device and a host reference"),
])
def test_a_bad_declaration_raises_kbench_message(declaration, message):
    with pytest.raises(kbench.UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        kbench.declare(declaration, {"n": 4})


@pytest.mark.parametrize("declaration, message", [
    (lambda c: None, "declares no output: there is nothing to check"),
    (lambda c: c.output("y", "fp32", [4]), "declares no reference"),
    (lambda c: (c.output("y", "fp32", [4]), c.reference(print)), "declares no optimized launch"),
])
def test_an_incomplete_declaration_never_passes(declaration, message):
    with pytest.raises(kbench.UsageError, match=message):
        kbench.declare(declaration, {"n": 4})


def test_bad_policies_and_distributions_raise_where_written():
    with pytest.raises(kbench.UsageError, match="allclose: rtol must be finite and >= 0"):
        kbench.tol.allclose(-1.0, 0.0)
    with pytest.raises(kbench.UsageError, match="bounds must be finite with low < high"):
        kbench.uniform(1.0, 1.0)
    with pytest.raises(kbench.UsageError, match="is a bool"):
        kbench.Shape({"causal": True})


def test_a_composed_policy_lowers_as_in_cpp():
    policy = kbench.tol.allclose(1e-2, 1e-2) & kbench.tol.max_mismatch(0.05)
    lowered = policy.lower()
    assert lowered.description == "allclose(rtol=0.01, atol=0.01) && max_mismatch(5%, each within 10x)"
    assert lowered.max_mismatch_fraction == 0.05


def test_absent_buffers_are_left_out():
    def case(c):
        c.input_if(c.flag("has_bias"), "bias", "fp32", [4])
        c.output("y", "fp32", [4])
        c.reference(print)
        c.optimized(print)
    without = kbench.declare(case, {"has_bias": 0})
    assert not any(line.startswith("buffer in bias") for line in without.lines())
    assert any(line.startswith("buffer in bias") for line in kbench.declare(case, {"has_bias": 1}).lines())


def test_a_handle_has_no_tensor_outside_a_launch():
    handles = {}

    def case(c):
        handles["y"] = c.output("y", "fp32", [4])
        c.reference(print)
        c.optimized(print)
    kbench.declare(case, {})
    with pytest.raises(kbench.UsageError, match="has no tensor here"):
        handles["y"].tensor
    with pytest.raises(kbench.UsageError, match="has no tensor here"):
        handles["y"].__dlpack__()


@pytest.mark.skipif(kbench.gpu_path_built, reason="the host-only build's answer; test_gpu_path.py has the GPU build's")
def test_the_host_only_build_says_it_cannot_run():
    declared = kbench.declare(rmsnorm, SHAPES[0], SHAPES)
    with pytest.raises(kbench.Error, match="cannot run cases: kbench's Python module was built without its GPU path"):
        kbench.run_case(declared)
