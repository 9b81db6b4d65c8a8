"""The verbs of kernel_case bound after the first ones: from_index() inputs, leading_dimension(), scratch_bytes()
(a count, or a query), oracle(), expect_registers_at_most(), expect_occupancy_at_least(); and the verbs the
module refuses, saying why. Each: its declaration, its errors (kernel_case's messages) and its digest line. The
GPU build's replay of them onto kernel_case: test_gpu_path.py."""
import pytest

import kbench

SHAPES = [{"rows": 37, "cols": 1531}, {"rows": 16384, "cols": 8192}]


def padded_gather(c):
    """Every verb of this file at once; tests/unit/declaration_digest_test.cpp builds the same declaration's
    facts as the C++ path makes them and pins the same digest."""
    rows, cols = c.dim("rows"), c.dim("cols")
    x = c.input("x", "fp16", [rows, cols], kbench.uniform(-2, 2))
    c.leading_dimension(x, 1536)
    c.input("token", "int32", [rows], kbench.from_index("i mod 7", lambda i: i % 7))
    c.scratch_bytes("workspace", lambda: 4096)
    c.scratch_bytes("partials", 256)
    c.output("y", "fp16", [rows, cols])
    c.reference(lambda: None)
    c.optimized(lambda: None)
    c.oracle(lambda: None, 3.0)
    c.bytes_moved(2.0 * 2 * rows * cols)
    c.expect_registers_at_most(64)
    c.expect_occupancy_at_least(0.5)


def declared(extra, shape=None):
    """A small case, plus what `extra` declares."""
    def case(c):
        n = c.dim("n")
        c.output("y", "fp32", [n])
        c.reference(print)
        c.optimized(print)
        extra(c)
    return kbench.declare(case, shape or {"n": 4}, name="small")


def test_the_digest_equals_the_cpp_declarations():
    case = kbench.declare(padded_gather, SHAPES[0], SHAPES)
    assert case.digest() == "fnv1a64:72cd87a94c8f48f1"
    lines = case.lines()
    assert lines[3] == "buffer in x fp16 [37 x 1531] pitch 1536 device 0 init uniform(-2, 2)"
    assert lines[4] == 'buffer in token int32 [37] pitch 0 device 0 init from_index("i mod 7")'
    assert lines[5] == "buffer scratch workspace uint8 [sized on the GPU] pitch 0 device 0"
    assert lines[6] == "buffer scratch partials uint8 [256] pitch 0 device 0"
    assert "census kernels=-1 max_registers=64 min_occupancy=0.5" in lines
    assert "oracle yes, ratio 3" in lines


def test_from_index_is_known_by_its_name_and_takes_the_seed_or_not():
    def with_init(init):
        return declared(lambda c: c.input("x", "int32", [8], init))

    by_index = with_init(kbench.from_index("row", lambda i: i // 2))
    other_code = with_init(kbench.from_index("row", lambda i, seed: seed % 3))
    renamed = with_init(kbench.from_index("row v2", lambda i: i // 2))
    assert by_index.digest() == other_code.digest() != renamed.digest()
    assert kbench.from_index("row", lambda i: i).describe() == 'from_index("row")'


@pytest.mark.parametrize("make, message", [
    (lambda: kbench.from_index("a\nb", lambda i: i), r'from_index\("a\nb"\): the function needs a name of one line'),
    (lambda: kbench.from_index("", lambda i: i), "the function needs a name of one line"),
    (lambda: kbench.from_index("row", 42), r'from_index\("row"\) was given 42, not a callable'),
])
def test_a_bad_from_index_raises_where_written(make, message):
    with pytest.raises(kbench.UsageError, match=message):
        make()


def test_a_padded_buffer_has_its_pitch_and_unpadded_none():
    def pitch_line(leading):
        case = declared(lambda c: c.leading_dimension(c.input("x", "fp32", [3, 5]), leading))
        return next(line for line in case.lines() if line.startswith("buffer in x"))
    assert " pitch 8 " in pitch_line(8)
    assert " pitch 0 " in pitch_line(5)  # a pitch equal to the row is no padding (declared_buffers())
    absent = declared(lambda c: c.leading_dimension(c.input_if(False, "x", "fp32", [3]), 1))
    assert not any(line.startswith("buffer in x") for line in absent.lines())  # nothing to pad at this shape


def test_scratch_bytes_of_zero_is_none_and_equals_scratch_of_uint8():
    none = declared(lambda c: c.scratch_bytes("s", 0))
    assert not any(line.startswith("buffer scratch") for line in none.lines())
    assert declared(lambda c: c.scratch_bytes("s", 64)).digest() == declared(lambda c: c.scratch("s", "uint8", 64)).digest()


# kernel_case's messages, word for word (kernel_case.hpp, kernel_case_impl.hpp), with the case's prefix.
@pytest.mark.parametrize("extra, message", [
    (lambda c: c.leading_dimension(c.input("x", "fp32", [4]), 8), "buffer 'x' has one extent: padded rows need two or more"),
    (lambda c: c.leading_dimension(c.input("x", "fp32", [2, 4]), 3),
     "buffer 'x': leading dimension 3 is shorter than its rows of 4"),
    (lambda c: c.leading_dimension(c.input("x", "fp32", [2**40, 4]), 2**40),
     "buffer 'x' is too large to address with its padding"),
    (lambda c: c.leading_dimension("nothing", 8), "has no buffer 'nothing'"),
    (lambda c: c.scratch_bytes("s", 2**63), "scratch 's' is too large"),
    (lambda c: c.scratch_bytes("s", -1), r"scratch_bytes\('s'\) was given -1: give the bytes"),
    (lambda c: c.scratch_bytes("s", "many"), r"scratch_bytes\('s'\) was given 'many'"),
    (lambda c: (c.scratch_bytes("s", 8), c.scratch_bytes("s", lambda: 8)), "declares buffer 's' twice"),
    (lambda c: c.oracle(print, 0.5), r"oracle\(\) needs a finite max_ratio >= 1"),
    (lambda c: c.oracle(print, float("inf")), r"oracle\(\) needs a finite max_ratio >= 1"),
    (lambda c: (c.oracle(print), c.oracle(print)), r"sets oracle\(\) twice"),
    (lambda c: c.oracle(7), r"oracle\(\) was given 7, not a callable"),
    (lambda c: c.expect_registers_at_most(0), r"expect_registers_at_most\(\) needs a count > 0"),
    (lambda c: c.expect_occupancy_at_least(0.0), r"expect_occupancy_at_least\(\) needs a fraction in \(0, 1\]"),
    (lambda c: c.expect_occupancy_at_least(1.5), r"expect_occupancy_at_least\(\) needs a fraction in \(0, 1\]"),
])
def test_a_bad_verb_raises_kernel_cases_message(extra, message):
    with pytest.raises(kbench.UsageError, match=r"case 'small' \[n=4\] .*" + message):
        declared(extra)


def test_an_oracle_beside_a_host_reference_is_refused():
    def case(c):
        c.output("y", "fp32", [4])
        c.host_reference(print)
        c.optimized(print)
        c.oracle(print)
    with pytest.raises(kbench.UsageError, match="declares an oracle and a host reference: the host reference computes in "
                       "double already; keep one"):
        kbench.declare(case, {})


@pytest.mark.parametrize("extra, verb", [
    (lambda c: c.devices(2), r"devices\(\)"),
    (lambda c: c.input_on_each("x", "fp32", [4]), r"input_on_each\(\)"),
    (lambda c: c.output_on_each("y2", "fp32", [4]), r"output_on_each\(\)"),
    (lambda c: c.inout_on_each("z", "fp32", [4], init=kbench.constant(1)), r"inout_on_each\(\)"),
])
def test_a_case_spanning_devices_is_refused_saying_why(extra, verb):
    with pytest.raises(kbench.UsageError, match=verb + ": a case that spans devices is not built in the Python module"):
        declared(extra)


def test_expect_resources_is_refused_saying_why():
    with pytest.raises(kbench.UsageError, match=r"expect_resources\(\) is not built in the Python module: its bounds "
                       r"are checked by `<program> resources`"):
        declared(lambda c: c.expect_resources("triton_", "sm_90"))


def test_kbench_evaluates_a_from_index_function_on_its_host_threads():
    # index_values.hpp's evaluation, as a run makes it: the GIL released, pieces of 65536 elements spread over
    # the host threads, each call taking the GIL.
    def value(i, seed):
        return (3 * i + seed) % 11
    count = 1 << 17
    values = kbench._kbench._evaluate_from_index(kbench.from_index("mod 11", value), kbench.dtype.int32, count, 5)
    assert values == [float((3 * i + 5) % 11) for i in range(count)]
    of_index = kbench.from_index("half", lambda i: i / 2)
    assert kbench._kbench._evaluate_from_index(of_index, kbench.dtype.fp32, 4, 99) == [0.0, 0.5, 1.0, 1.5]


@pytest.mark.parametrize("function, dtype, error, message", [
    (lambda i: 1 / (i - 3), "fp32", kbench.Error,
     r'from_index\("f"\) at element 3 raised ZeroDivisionError: division by zero'),
    (lambda i: 300, "int8", kbench.UsageError, r'from_index\("f"\) gives element 0 the value 300, which int8 cannot hold'),
    (lambda i: "x", "fp32", kbench.UsageError, r"from_index\(\"f\"\) gives element 0 'x', not a number"),
])
def test_a_from_index_function_that_fails_names_itself_and_the_element(function, dtype, error, message):
    with pytest.raises(error, match=message):
        kbench._kbench._evaluate_from_index(kbench.from_index("f", function), getattr(kbench.dtype, dtype), 8, 0)
