// Hostile declarations: each is a usage error with one line that says what is wrong, found on the host
// before any GPU work (this runs without a GPU; `<program> list` performs the same checks).
#include <kbench/compare.hpp>
#include <kbench/contract/kernel_case_impl.hpp>  // once per program: this one links no kbench library
#include <kbench/contract/registry_impl.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "catch.hpp"
#include "support/catch2_runner.hpp"

namespace tol = kbench::tol;
using kbench_test::contains;

namespace {

void noop(hipStream_t) {}

// Declares a case at `s` and validates it, as kbench does before allocating anything.
template <class Declare>
void declare(Declare&& body, kbench::shape s = {{"n", 64}}) {
  kbench::kernel_case c("hostile", std::move(s));
  body(c);
  kbench::detail::declared(c).validate();
}

}  // namespace

TEST_CASE("a complete declaration is accepted", "[declaration]") {
  CHECK_NOTHROW(declare([](kbench::kernel_case& c) {
    auto x = c.input<float>("x", {c.dim("n")});
    auto y = c.output<float>("y", {c.dim("n")});
    (void)x, (void)y;
    c.reference(noop);
    c.optimized(noop);
  }));
}

TEST_CASE("zero-length, negative and missing sizes", "[declaration]") {
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.output<float>("y", {0}); }),
                    contains("buffer 'y' has extent 0: every extent must be > 0"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<float>("x", {4, -2}); }),
                    contains("buffer 'x' has extent -2"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<float>("x", {}); }), contains("has no extents"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.dim("rows"); }),
                    contains("asks for dimension 'rows', but shape {n=64} has no such dimension"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<double>("x", {1ll << 40, 1ll << 40}); }),
                    contains("too large to address"));
}

TEST_CASE("missing or doubled parts of the contract", "[declaration]") {
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.input<float>("x", {8});
                      c.reference(noop);
                      c.optimized(noop);
                    }),
                    contains("declares no output"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.output<float>("y", {8});
                      c.optimized(noop);
                    }),
                    contains("declares no reference"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.output<float>("y", {8});
                      c.reference(noop);
                    }),
                    contains("declares no optimized launch"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.output<float>("y", {8});
                      c.reference(noop);
                      c.host_reference([] {});
                      c.optimized(noop);
                    }),
                    contains("both a device and a host reference"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      c.reference(noop);
                      c.reference(noop);
                    }),
                    contains("sets reference() twice"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.optimized(kbench::launch_function{}); }),
                    contains("optimized() was given an empty function"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.input<float>("x", {8});
                      (void)c.output<float>("x", {8});
                    }),
                    contains("declares buffer 'x' twice"));
}

TEST_CASE("cases that span devices: counts, per-device buffers and launches", "[declaration][devices]") {
  auto each = [](const kbench::device_streams&) {};
  // A complete one: a buffer per device, named by its device, and launches of one stream per device.
  kbench::kernel_case c("spanning", {});
  CHECK(c.devices(4) == 4);
  CHECK(kbench::detail::declared(c).device_count() == 4);
  auto x = c.input_on_each<float>("x", {8});
  auto y = c.output_on_each<float>("y", {8});
  CHECK(x.count() == 4);
  CHECK(y[3].slot()->name == "y[device 3]");
  CHECK(y[3].slot()->device_index == 3);
  CHECK_THROWS_WITH((void)y[4], contains("device 4 asked for, but the buffer has 4"));
  c.reference(each);
  c.optimized(each);
  CHECK_NOTHROW(kbench::detail::declared(c).validate());
  CHECK(kbench::detail::declared(c).declared_buffers()[5].device == 1);  // y[device 1]
  CHECK(kbench::detail::declared(kbench::kernel_case("plain", {})).device_count() == 1);

  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.devices(0); }), contains("devices() needs a count from 1 to 64, got 0"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.devices(65); }), contains("got 65"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.devices(2), c.devices(2); }), contains("sets devices() twice"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.output_on_each<float>("y", {8}); }),
                    contains("buffer 'y' is declared on each device, but the case declares no devices(n)"));
  // One launch per side, of one stream or of one per device.
  CHECK_THROWS_WITH(declare([&](kbench::kernel_case& c) {
                      (void)c.output<float>("y", {8});
                      c.reference(noop);
                      c.reference(each);
                    }),
                    contains("sets reference() twice"));
  CHECK_THROWS_WITH(declare([&](kbench::kernel_case& c) {
                      (void)c.output<float>("y", {8});
                      c.reference(noop);
                      c.optimized(each);
                      c.optimized(noop);
                    }),
                    contains("sets optimized() twice"));
  CHECK_THROWS_WITH(declare([&](kbench::kernel_case& c) {
                      (void)c.output<float>("y", {8});
                      c.reference(each);
                      c.host_reference([] {});
                      c.optimized(each);
                    }),
                    contains("declares both a device and a host reference"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.link_bytes(-1); }), contains("link_bytes() must be finite"));
  // Calls per layer or per token: a count > 0, fractions allowed (a kernel called every other layer).
  for (const double bad : {0.0, -2.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    CHECK_THROWS_WITH(declare([=](kbench::kernel_case& c) { c.calls_per_layer(bad); }),
                      contains("calls_per_layer() needs a finite count of calls > 0"));
    CHECK_THROWS_WITH(declare([=](kbench::kernel_case& c) { c.calls_per_token(bad); }),
                      contains("calls_per_token() needs a finite count of calls > 0"));
  }
}

TEST_CASE("bad tolerances, distributions and work models", "[declaration]") {
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.tolerance(tol::allclose{-1e-3, 1e-5}); }),
                    contains("allclose: rtol must be finite and >= 0"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.tolerance(tol::absolute{std::nan("")}); }),
                    contains("absolute: atol must be finite"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.tolerance(tol::equal_nan{}); }), contains("has no criterion"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<float>("x", {8}, kbench::uniform(1, 1)); }),
                    contains("bounds must be finite with low < high"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<float>("x", {8}, kbench::normal(0, -1)); }),
                    contains("stddev finite and > 0"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<kbench::fp16_t>("x", {8}, kbench::uniform(0, 1e6)); }),
                    contains("exceeds the range of fp16"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.bytes_moved(-1); }), contains("bytes_moved() must be finite and >= 0"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.allow_speedup_up_to(0.5); }), contains("allow_speedup_up_to()"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { c.flops(1, kbench::dtype::i8); }),
                    contains("flops() counts arithmetic in f64, f32, f16 or bf16, not int8"));
}

TEST_CASE("given values: a constant or a choice of two, each one the input's type can hold", "[declaration]") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH((void)kbench::constant(std::nan("")), contains("a value must be a number"));
  CHECK_THROWS_WITH((void)kbench::choice(0, inf, 1.0), contains("strictly between 0 and 1"));
  CHECK_THROWS_WITH((void)kbench::choice(0, std::nan(""), 0.5), contains("the values must be numbers"));
  // An additive mask: 0 or -inf in fp16; no -inf in fp8 e4m3 nor in an integer type, no 1e6 in fp16.
  kbench::kernel_case fine("given", {{"n", 8}});
  CHECK_NOTHROW((void)fine.input<kbench::fp16_t>("mask", {8}, kbench::choice(0, -inf, 0.9)));
  CHECK_THROWS_WITH(declare([&](kbench::kernel_case& c) { (void)c.input<kbench::fp8_e4m3>("m", {8}, kbench::choice(0, -inf, 0.9)); }),
                    contains("holds a value fp8_e4m3 cannot hold"));
  CHECK_THROWS_WITH(declare([&](kbench::kernel_case& c) { (void)c.input<std::int32_t>("m", {8}, kbench::choice(0, -inf, 0.9)); }),
                    contains("holds a value int32 cannot hold"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<kbench::fp16_t>("s", {8}, kbench::constant(1e6)); }),
                    contains("constant(1000000.000000) holds a value fp16 cannot hold"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<std::uint8_t>("f", {8}, kbench::choice(1, -1, 0.5)); }),
                    contains("holds a value uint8 cannot hold"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<std::int8_t>("f", {8}, kbench::constant(0.5)); }),
                    contains("holds a value int8 cannot hold"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<float>("big", {8}, kbench::constant(1e39)); }),
                    contains("holds a value fp32 cannot hold"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input<kbench::bf16_t>("big", {8}, kbench::uniform(0, 3.4e38)); }),
                    contains("exceeds the range of bf16"));
  CHECK_NOTHROW((void)fine.input<std::uint8_t>("flag", {8}, kbench::choice(1, 0, 0.5)));
  CHECK_NOTHROW((void)fine.input<float>("scale", {8}, kbench::constant(-INFINITY)));
}

TEST_CASE("a function of the index: any type, known by its name, its values checked when drawn", "[declaration]") {
  kbench::kernel_case c("positions", {{"rows", 4}, {"cols", 6}});
  const auto rows = c.dim("rows"), cols = c.dim("cols");
  auto pos = c.input<std::int32_t>("pos", {rows, cols}, kbench::from_index("column", [=](std::size_t i) { return i % cols; }));
  auto big = c.input<kbench::fp16_t>("big", {rows}, kbench::from_index("1e6", [](std::size_t) { return 1e6; }));
  c.leading_dimension(pos, cols + 2);
  (void)big;
  const auto& buffers = kbench::detail::declared(c).buffers;
  REQUIRE(buffers.size() == 2);
  CHECK(buffers[0]->init.describe() == "from_index(\"column\")");
  CHECK((*buffers[0]->init.function)(8, 0) == 2.0);
  // A value its type cannot hold is found when drawn (the values may depend on the seed): declaring it is fine.
  CHECK(buffers[1]->init.shape == kbench::distribution::kind::from_index);
  CHECK_THROWS_WITH((void)kbench::from_index("", [](std::size_t) { return 0.0; }), contains("needs a name of one line"));
}

TEST_CASE("inputs and outputs that only some shapes use: absent, a null handle, never a buffer", "[declaration][absent]") {
  auto with_bias = [](kbench::kernel_case& c) {
    const auto cols = c.dim("cols");
    auto x = c.input<float>("x", {cols});
    auto bias = c.input_if<float>(c.flag("has_bias"), "bias", {cols}, kbench::uniform(-1, 1));
    auto lse = c.output_if<float>(c.flag("has_bias"), "lse", {1});
    auto y = c.output<float>("y", {cols});
    c.reference([=](hipStream_t) { (void)x, (void)bias, (void)lse, (void)y; });
    c.optimized(noop);
    return std::make_pair(bias, lse);
  };
  kbench::kernel_case absent("bias", {{"cols", 8}, {"has_bias", 0}});
  const auto [no_bias, no_lse] = with_bias(absent);
  CHECK_FALSE(no_bias.present());
  CHECK_FALSE(no_lse.present());
  CHECK(no_bias.get() == nullptr);  // outside any launch too: there is no memory to bind, ever
  CHECK(static_cast<float*>(no_lse) == nullptr);
  CHECK(no_bias.size() == 0);
  CHECK(no_bias.host().size() == 0);
  CHECK(no_lse.host().data() == nullptr);
  // Not among the case's buffers: nothing allocates, draws, compares, times, lists or digests it.
  const kbench::detail::declared_case& d = kbench::detail::declared(absent);
  CHECK_NOTHROW(d.validate());
  REQUIRE(d.buffers.size() == 2);
  CHECK(d.buffers[0]->name == "x");
  CHECK(d.buffers[1]->name == "y");
  CHECK(d.declared_buffers().size() == 2);
  kbench::kernel_case present("bias", {{"cols", 8}, {"has_bias", 1}});
  const auto [bias, lse] = with_bias(present);
  CHECK(bias.present());
  CHECK(lse.present());
  CHECK(kbench::detail::declared(present).buffers.size() == 4);
  CHECK_THROWS_WITH((void)bias.get(), contains("buffer 'bias' has no device memory here"));
}

TEST_CASE("a parameter: a number of the shape that is no size, read by name", "[declaration][parameters]") {
  kbench::kernel_case c("eps", kbench::shape{{"rows", 4}}.with("eps", 1e-5));
  CHECK(c.param("eps") == 1e-5);
  CHECK(c.dim("rows") == 4);
  CHECK(kbench::detail::declared(c).unasked_dimensions().empty());
  CHECK_THROWS_WITH((void)c.param("scale"), contains("asks for parameter 'scale', but shape {rows=4/eps=1e-05} has no such "
                                                     "parameter (give it on the registration: .shape({...}).with(\"scale\", value)"));
  kbench::kernel_case unread("eps", kbench::shape{{"rows", 4}}.with("eps", 1e-5));
  (void)unread.dim("rows");
  CHECK(kbench::detail::declared(unread).unasked_dimensions() == std::vector<std::string>{"eps"});  // a typo at run time
}

TEST_CASE("a flag is a dimension of 0 or 1; any other value names it", "[declaration][absent]") {
  kbench::kernel_case off("flags", {{"has_bias", 0}, {"causal", 1}, {"mode", 2}});
  CHECK_FALSE(off.flag("has_bias"));
  CHECK(off.flag("causal"));
  CHECK_THROWS_WITH((void)off.flag("mode"), contains("case 'flags' [has_bias=0/causal=1/mode=2] dimension 'mode' is a flag: 0 or 1, not 2"));
  CHECK_THROWS_WITH((void)off.flag("rows"), contains("asks for dimension 'rows'"));
  // Read as a flag, a dimension counts as asked for (a shape given at run time may not have unasked ones).
  CHECK(kbench::detail::declared(off).unasked_dimensions().empty());
}

TEST_CASE("an absent buffer: its name taken, its extents unread; an extent of 0 points to input_if", "[declaration][absent]") {
  CHECK_NOTHROW(declare([](kbench::kernel_case& c) {
    (void)c.input_if<float>(false, "bias", {0, -1}, kbench::uniform(5, 6));  // nothing of it is read
    auto y = c.output<float>("y", {8});
    c.leading_dimension(c.input_if<float>(false, "padded", {8}), 4);  // no rows to pad
    (void)y;
    c.reference(noop);
    c.optimized(noop);
  }));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.input_if<float>(false, "x", {8});
                      (void)c.input<float>("x", {8});
                    }),
                    contains("declares buffer 'x' twice"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.input<float>("x", {8});
                      (void)c.output_if<float>(false, "x", {8});
                    }),
                    contains("declares buffer 'x' twice"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.input_if<float>(true, "bias", {0}); }),
                    contains("buffer 'bias' has extent 0: every extent must be > 0 (an empty buffer tests nothing; one that "
                             "some shapes do not use is declared with input_if() or output_if())"));
  // Every output absent: nothing to check.
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.input<float>("x", {8});
                      (void)c.output_if<float>(false, "y", {8});
                      c.reference(noop);
                      c.optimized(noop);
                    }),
                    contains("declares no output"));
}

TEST_CASE("handles give memory only inside a launch", "[declaration]") {
  kbench::kernel_case c("hostile", {{"n", 64}});
  auto x = c.input<float>("x", {64});
  auto y = c.output<float>("y", {64});
  CHECK_THROWS_WITH((void)static_cast<const float*>(x), contains("buffer 'x' has no device memory here"));
  CHECK_THROWS_WITH((void)y.host(), contains("buffer 'y' has no host values here"));
}

TEST_CASE("scratch memory: sized, named once, never an output, memory only inside a launch", "[declaration][scratch]") {
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) { (void)c.scratch<float>("s", -1); }),
                    contains("scratch 's' has count -1: a count must be >= 0"));
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.input<float>("x", {4});
                      (void)c.scratch<float>("x", 4);
                    }),
                    contains("declares buffer 'x' twice"));
  // Scratch is not compared: a case whose only writable buffer is scratch has nothing to check.
  CHECK_THROWS_WITH(declare([](kbench::kernel_case& c) {
                      (void)c.input<float>("x", {4});
                      (void)c.scratch<float>("s", 4);
                      c.reference(noop);
                      c.optimized(noop);
                    }),
                    contains("declares no output"));
  kbench::kernel_case c("scratch", {{"n", 64}});
  auto none = c.scratch_bytes("temporary storage", 0);
  auto some = c.scratch_bytes("more", 1000);
  CHECK(none.bytes() == 0);
  CHECK(some.bytes() == 1000);
  CHECK_THROWS_WITH((void)static_cast<void*>(some), contains("buffer 'more' has no device memory here"));
  // A size a library asks the GPU for: not asked at declaration (a machine without a GPU declares too).
  bool asked = false;
  auto queried = c.scratch_bytes("queried", [&asked] {
    asked = true;
    return std::size_t{4096};
  });
  CHECK_FALSE(asked);
  CHECK(queried.bytes() == 1);
  const auto buffers = kbench::detail::declared(c).declared_buffers();
  REQUIRE(buffers.size() == 2);  // 0 bytes declare none
  CHECK(buffers[0].role == kbench::buffer_role::scratch);
  CHECK(std::string(kbench::role_name(buffers[0].role)) == "scratch");
  CHECK_FALSE(buffers[0].sized_when_opened);
  CHECK(buffers[1].sized_when_opened);
}

TEST_CASE("scratch of 0 at a shape: a null handle, nothing declared", "[declaration][scratch]") {
  // A workspace only some shapes use: elsewhere its count is 0, its handle null (as input_if's absent
  // buffers), and it is not among the buffers that kbench allocates, poisons, guards or lists.
  kbench::kernel_case c("scratch", {{"n", 64}});
  auto x = c.input<float>("x", {64});
  auto y = c.output<float>("y", {64});
  auto none = c.scratch<float>("partials", 0);
  auto none_bytes = c.scratch_bytes("temporary storage", 0);
  c.reference([=](hipStream_t) { (void)x, (void)y, (void)none; });
  c.optimized(noop);
  CHECK_NOTHROW(kbench::detail::declared(c).validate());
  CHECK_FALSE(none.present());
  CHECK(none.get() == nullptr);
  CHECK(static_cast<void*>(none_bytes) == nullptr);
  CHECK(none.size() == 0);
  CHECK(none.bytes() == 0);
  CHECK(none_bytes.bytes() == 0);
  CHECK(kbench::detail::declared(c).declared_buffers().size() == 2);
  // Its name stays taken at that shape, as an absent input's does.
  CHECK_THROWS_WITH((void)c.output<float>("partials", {4}), contains("declares buffer 'partials' twice"));
}

int main(int argc, char** argv) { return kbench_test::run_catch2(argc, argv); }
