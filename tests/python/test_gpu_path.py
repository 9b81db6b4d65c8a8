"""The GPU build's path (python/src/case_replay.hpp, python_run.hpp, python_sides.hpp): a Python case replayed
onto a real kernel_case, and run by kbench's procedure. On the host: the replay's lines against the Python
declaration's, kernel_case's own messages, and a run without a GPU recorded as skipped. Where a GPU and
torch are: sides called with kbench's stream and memory, a side's exception, a host reference."""
import pytest
from samples.rmsnorm_cases import rmsnorm
from test_declared_verbs import padded_gather

import kbench

GPU_BUILD = pytest.mark.skipif(not kbench.gpu_path_built, reason="kbench: skipped: the host-only build has no replay "
                               "onto kernel_case (KBENCH_GPU_PLATFORM nvidia or amd builds it)")
SHAPES = [{"rows": 37, "cols": 1531}, {"rows": 16384, "cols": 8192}]


def every_verb(c):
    n, eps = c.dim("n"), c.param("eps")
    bias = c.input_if(c.flag("has_bias"), "bias", "fp32", [n])
    x = c.input("x", "bf16", [2, n], kbench.normal(0.0, 1.0 + eps))
    c.edge_values(x, False)
    state = c.inout("state", "fp32", [n], kbench.constant(1.0))
    y = c.output("y", "int32", [n])
    c.scratch("partials", "fp64", 8)
    c.scratch("unused", "uint8", 0)
    c.tolerance(kbench.tol.allclose(1e-2, 1e-3))
    c.tolerance(state, kbench.tol.absolute(0.5) & kbench.tol.max_mismatch(0.01))
    c.host_reference(lambda: None)
    c.optimized(lambda: (bias, x, state, y))
    c.bytes_moved(12.0 * n)
    c.matrix_flops(4.0 * n, "bf16")
    c.tokens(n)
    c.calls_per_layer(2)
    c.calls_per_token(0.5)
    c.require_speedup(1.1)
    c.require_bandwidth(0.5)
    c.allow_speedup_up_to(20)
    c.deterministic()
    c.requires_alignment(16)
    c.expect_kernels(1)
    c.edge_values(True)


@GPU_BUILD
@pytest.mark.parametrize("function, shape, shapes", [
    (rmsnorm, SHAPES[0], SHAPES),
    (every_verb, {"n": 1000, "has_bias": 1, "eps": 1e-5}, None),
    (every_verb, {"n": 1000, "has_bias": 0, "eps": 1e-5}, None),
])
def test_the_replayed_kernel_case_has_the_python_declarations_lines(function, shape, shapes):
    case = kbench.declare(function, shape, shapes)
    assert case._replayed_lines == case.lines()


@GPU_BUILD
def test_the_later_verbs_replay_onto_kernel_case_with_the_digest_the_cpp_declaration_pins():
    # from_index(), leading_dimension(), scratch_bytes() (a count and a query), oracle(), the census's bounds.
    case = kbench.declare(padded_gather, SHAPES[0], SHAPES)
    assert case._replayed_lines == case.lines()
    assert case.digest() == "fnv1a64:72cd87a94c8f48f1"  # tests/unit/declaration_digest_test.cpp


@GPU_BUILD
def test_the_replay_has_the_digest_the_cpp_declaration_pins():
    case = kbench.declare(rmsnorm, SHAPES[0], SHAPES)
    assert case.digest() == "fnv1a64:d4a2276581ab99b8"  # tests/unit/declaration_digest_test.cpp
    assert case._replayed_lines == case.lines()


@GPU_BUILD
@pytest.mark.parametrize("declaration, message", [
    (lambda c: c.input("x", "fp16", []), "buffer 'x' has no extents"),
    (lambda c: c.input("x", "fp16", [1] * 9), "the Python module takes up to 8"),
    (lambda c: c.allow_speedup_up_to(0.5), "allow_speedup_up_to() needs a finite factor >= 1"),
    (lambda c: c.calls_per_layer(0), "calls_per_layer() needs a finite count of calls > 0"),
    (lambda c: (c.output("y", "fp32", [4]), c.edge_values("y", False)), "edge_values(): buffer 'y' is not drawn"),
    (lambda c: c.leading_dimension(c.input("x", "fp32", [4]), 8), "buffer 'x' has one extent: padded rows need two"),
    (lambda c: c.leading_dimension(c.input("x", "fp32", [2, 4]), 3), "leading dimension 3 is shorter than its rows of 4"),
    (lambda c: (c.oracle(print, 2.0), c.oracle(print, 0.5)), "sets oracle() twice"),
    (lambda c: c.expect_registers_at_most(-1), "expect_registers_at_most() needs a count > 0"),
])
def test_kernel_case_checks_what_the_mirror_leaves_out(declaration, message):
    with pytest.raises(kbench.UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        kbench.declare(declaration, {"n": 4})


@GPU_BUILD
def test_without_a_usable_gpu_a_run_is_recorded_as_skipped_with_the_reason():
    reason = kbench.gpu_unavailable_reason()
    if reason is None:
        pytest.skip("kbench: skipped: a GPU is usable here (the tests below run the cases)")
    run = kbench.run(rmsnorm, SHAPES[0], shapes=SHAPES)
    assert [c.verdict for c in run.cases] == ["skipped"]
    assert run.cases[0].message == reason
    assert run.device.usable is False


def gpu_and_torch():
    """Skips (with the reason) unless this build runs cases here and torch sees a GPU."""
    reason = kbench.gpu_unavailable_reason()
    if reason is not None:
        pytest.skip(f"kbench: skipped: {reason}")
    torch = pytest.importorskip("torch", reason="kbench: skipped: the sides here are torch's, and torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("kbench: skipped: torch sees no GPU")
    return torch


def test_a_case_of_torch_sides_runs_every_check_and_passes():
    gpu_and_torch()
    run = kbench.run(rmsnorm, SHAPES[0], shapes=SHAPES)
    declared = run.cases[0]
    assert declared.verdict == "pass", declared.report()
    assert len(declared.checks) == 3 and all(check.passed for check in declared.checks)
    assert len(run.cases) > 1 and all(c.verdict == "pass" for c in run.cases)  # the shapes around it ran too
    assert declared.declaration_digest == kbench.declare(rmsnorm, SHAPES[0], SHAPES).digest()


def test_a_side_runs_on_kbenchs_stream_with_its_memory_for_that_launch_only():
    torch = gpu_and_torch()
    seen = []

    def case(c):
        x = c.input("x", "fp32", [1000])
        y = c.output("y", "fp32", [1000])

        def optimized():
            seen.append((torch.cuda.current_stream().cuda_stream, kbench.current_stream(), x.tensor.data_ptr(),
                         x.tensor is x.tensor, tuple(x.tensor.shape), x.tensor.dtype, x.tensor.device.type))
            y.tensor.copy_(x.tensor)
        c.reference(lambda: y.tensor.copy_(x.tensor))
        c.optimized(optimized)
    record = kbench.run_case(case, {}, options=["--seed-count", "1"])
    assert record.verdict == "pass", record.report()
    torch_stream, kbench_stream, _, same, shape, dtype, device = seen[0]
    assert torch_stream == kbench_stream and same and shape == (1000,) and dtype == torch.float32 and device == "cuda"
    assert len({s[2] for s in seen}) > 1  # each launch its own memory (the alignment checks move it)
    with pytest.raises(kbench.UsageError, match="no launch of kbench's is under way"):
        kbench.current_stream()


def test_a_sides_exception_is_a_kbench_error_naming_the_side_the_case_and_the_message():
    gpu_and_torch()

    def case(c):
        x = c.input("x", "fp32", [64])
        y = c.output("y", "fp32", [64])
        c.reference(lambda: y.tensor.copy_(x.tensor))
        c.optimized(lambda: 1 / 0)
    record = kbench.run_case(case, {}, name="raises")
    assert record.verdict == "error"
    assert "case 'raises' []: its optimized side raised ZeroDivisionError: division by zero" in record.message


def test_a_host_reference_gets_float64_tensors_on_the_host():
    torch = gpu_and_torch()

    def case(c):
        x = c.input("x", "fp32", [256])
        y = c.output("y", "fp32", [256])

        def host():
            assert x.tensor.device.type == "cpu" and x.tensor.dtype == torch.float64
            y.tensor.copy_(2.0 * x.tensor)
        c.host_reference(host)
        c.optimized(lambda: torch.mul(x.tensor, 2.0, out=y.tensor))
    record = kbench.run_case(case, {})
    assert record.verdict == "pass", record.report()


def test_the_later_verbs_run_a_function_of_the_index_a_padded_buffer_a_queried_scratch_and_an_oracle():
    gpu_and_torch()
    queried = []

    def case(c):
        x = c.input("x", "fp32", [4, 100], kbench.from_index("i / 7", lambda i: i / 7))
        c.leading_dimension(x, 128)
        tmp = c.scratch_bytes("tmp", lambda: queried.append(4096) or 4096)
        y = c.output("y", "fp32", [4, 100])

        def optimized():
            assert x.tensor.stride() == (128, 1) and tmp.tensor.numel() == 4096
            assert x.tensor[1, 0].item() == pytest.approx(100 / 7)
            y.tensor.copy_(x.tensor)

        def oracle():
            assert x.tensor.device.type == "cpu" and x.tensor.is_contiguous()  # a host computation's packed rows
            y.tensor.copy_(x.tensor)
        c.reference(lambda: y.tensor.copy_(x.tensor))
        c.optimized(optimized)
        c.oracle(oracle)
    record = kbench.run_case(case, {}, options=["--seed-count", "1"])
    assert record.verdict == "pass", record.report()
    assert queried  # the query ran when the case was opened
