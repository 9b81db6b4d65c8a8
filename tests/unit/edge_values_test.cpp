// edge_values.hpp: which runs at the edges of the inputs' values a first seed adds, their factors, grids
// and special values, and the tolerance they are judged with; and where a case opts out.
#include <kbench/decisions/edge_values.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_edge_values_test {  // one per file: the unit tests compile in unity batches

using kbench::dtype;
using kbench::edge_kind;
using kbench_test::contains;

namespace {

kbench::detail::buffer_slot drawn_slot(std::string name, dtype type, kbench::distribution init,
                                       kbench::buffer_role role = kbench::buffer_role::input) {
  kbench::detail::buffer_slot slot;
  slot.name = std::move(name);
  slot.role = role;
  slot.type = type;
  slot.init = init;
  return slot;
}

std::vector<edge_kind> kinds(const std::vector<kbench::edge_run>& runs) {
  std::vector<edge_kind> k;
  for (const kbench::edge_run& r : runs) k.push_back(r.kind);
  return k;
}

}  // namespace

TEST_CASE("the larger factor: a power of two to about 256, at least 16, within a sixteenth of the range", "[edges]") {
  CHECK(kbench::larger_scale(dtype::f16, 2.0) == 128.0);   // rmsnorm's x, uniform(-2, 2): up to 256
  CHECK(kbench::larger_scale(dtype::f16, 1.0) == 256.0);
  CHECK(kbench::larger_scale(dtype::f32, 24.0) == 16.0);   // normal(0, 8): at least 16x, to normal(0, 128)
  CHECK(kbench::larger_scale(dtype::f16, 112.0) == 16.0);  // softmax's normal(100, 4): 1792, within 4094
  CHECK(kbench::larger_scale(dtype::f16, 1000.0) == 4.0);  // 4000 <= 65504 / 16
  CHECK(kbench::larger_scale(dtype::f16, 3000.0) == 1.0);  // no room: none
  CHECK(kbench::larger_scale(dtype::f8e4m3, 1.0) == 16.0); // 16 <= 448 / 16
  CHECK(kbench::larger_scale(dtype::f8e4m3, 28.0) == 1.0);
  CHECK(kbench::larger_scale(dtype::bf16, 1e-3) == 131072.0);  // to 131
  CHECK(kbench::larger_scale(dtype::f32, 0.0) == 1.0);
}

TEST_CASE("the smaller factor: 2^-10, kept at 16 smallest normals or more", "[edges]") {
  CHECK(kbench::smaller_scale(dtype::f16, 2.0) == std::exp2(-10.0));  // up to 2^-9: squares far below fp16's normals
  CHECK(kbench::smaller_scale(dtype::f32, 1.0) == std::exp2(-10.0));
  CHECK(kbench::smaller_scale(dtype::f16, 0.01) == 0.125);        // 0.00125 >= 2^-10
  CHECK(kbench::smaller_scale(dtype::f8e4m3, 1.0) == 0.25);       // e4m3's normals start at 2^-6
  CHECK(kbench::smaller_scale(dtype::f8e4m3, 0.3) == 1.0);        // no room: none
  CHECK(kbench::smaller_scale(dtype::f16, 1e-4) == 1.0);
}

TEST_CASE("the grid of ties and the special values of each type", "[edges]") {
  CHECK(kbench::tie_grid(kbench::uniform(-2, 2)) == 0.5);
  CHECK(kbench::tie_grid(kbench::uniform(0.5, 1.5)) == 0.125);
  CHECK(kbench::tie_grid(kbench::normal(0, 8)) == 4.0);
  CHECK(kbench::tie_grid(kbench::normal(100, 3)) == 1.0);
  const kbench::special_set half = kbench::special_values(dtype::f16);
  CHECK(half.values[0] == 0.0);
  CHECK_FALSE(std::signbit(half.values[0]));
  CHECK(std::signbit(half.values[1]));
  CHECK(half.values[2] == std::exp2(-24.0));
  CHECK(half.values[3] == -(std::exp2(-14.0) - std::exp2(-24.0)));
  CHECK(kbench::special_values(dtype::f32).values[2] == std::numeric_limits<float>::denorm_min());
  CHECK(kbench::special_values(dtype::bf16).values[2] == std::exp2(-133.0));
  CHECK(kbench::special_values(dtype::f8e4m3).values[2] == std::exp2(-9.0));
  CHECK(kbench::special_values(dtype::f8e4m3).values[3] == -7.0 * std::exp2(-9.0));
  CHECK(kbench::special_values(dtype::f64).values[2] == std::numeric_limits<double>::denorm_min());
}

TEST_CASE("the runs: each random float input larger and smaller, then specials and ties over all", "[edges]") {
  using role = kbench::buffer_role;
  const auto x = drawn_slot("x", dtype::f16, kbench::uniform(-2, 2));
  auto w = drawn_slot("w", dtype::f16, kbench::uniform(0.5, 1.5));
  const auto residual = drawn_slot("residual", dtype::bf16, kbench::normal(0, 1), role::inout);
  const auto positions = drawn_slot("positions", dtype::i32, kbench::uniform(0, 4095));
  const auto mask = drawn_slot("mask", dtype::f16, kbench::choice(0, -INFINITY, 0.9));
  const auto table = drawn_slot("angle", dtype::f32, kbench::arange(0, 0.5));
  const std::vector<const kbench::detail::buffer_slot*> slots{&x, &w, &residual, &positions, &mask, &table};
  const std::vector<kbench::edge_run> runs = kbench::edge_runs(slots, true);
  CHECK(kinds(runs) == std::vector<edge_kind>{edge_kind::larger, edge_kind::smaller, edge_kind::larger, edge_kind::smaller,
                                              edge_kind::larger, edge_kind::smaller, edge_kind::specials, edge_kind::ties});
  REQUIRE(runs.size() == 8);
  CHECK(runs[0].input == &x);
  CHECK(runs[0].scale == 128.0);
  CHECK(runs[0].edge_of(x).scale == 128.0);
  CHECK(runs[0].edge_of(w).none());  // one input at a time
  CHECK(runs[0].edge_of(positions).none());
  CHECK(runs[4].input == &residual);
  CHECK(runs[0].words() == "with input 'x' at 128x its declared scale (uniform(-256, 256))");
  CHECK(runs[1].words() == "with input 'x' at 2^-10x its declared scale (uniform(-0.00195312, 0.00195312))");
  CHECK(runs[5].words() == "with input 'residual' at 2^-10x its declared scale (normal(0, 0.000976562))");
  // Specials and ties change every candidate and nothing else: integers, given values and positions stay.
  CHECK(runs[6].edge_of(x).specials);
  CHECK(runs[6].edge_of(residual).specials);
  CHECK(runs[6].edge_of(mask).none());
  CHECK(runs[6].edge_of(table).none());
  CHECK(runs[7].edge_of(w).grid == 0.125);
  CHECK(runs[7].edge_of(positions).none());
  CHECK(kbench::edge_for(nullptr, x).none());
  CHECK(contains("exact ties").match(runs[7].words()));
  // Opted out: the input (kernel_case::edge_values(w, false)) or the whole case.
  w.edge_values = false;
  CHECK(kbench::edge_runs(slots, true).size() == 6);
  CHECK(kbench::edge_runs(slots, false).empty());
  CHECK(kbench::edge_runs({&positions, &mask, &table}, true).empty());  // no candidate: no specials or ties either
}

TEST_CASE("spike sizes: about 2^10 and 2^20 times the magnitude, powers of two, within a sixteenth of the range", "[edges]") {
  CHECK(kbench::spike_sizes(dtype::f32, 2.0) == std::vector<double>{2048.0, 2097152.0});
  CHECK(kbench::spike_sizes(dtype::f16, 2.0) == std::vector<double>{2048.0});  // fp16's room ends at 2048 (4094)
  CHECK(kbench::spike_sizes(dtype::f16, 100.0) == std::vector<double>{2048.0});  // 20x: still a spike
  CHECK(kbench::spike_sizes(dtype::f16, 200.0).empty());                       // 10x: no room
  CHECK(kbench::spike_sizes(dtype::f8e4m3, 1.0) == std::vector<double>{16.0});
  CHECK(kbench::spike_sizes(dtype::f8e4m3, 2.0).empty());
  CHECK(kbench::spike_sizes(dtype::bf16, 0.75) == std::vector<double>{1024.0, 1048576.0});
  CHECK(kbench::spike_sizes(dtype::f32, 0.0).empty());
}

TEST_CASE("spike runs: each candidate input alone, at 8 positions drawn from the seed, then another family", "[edges]") {
  using role = kbench::buffer_role;
  auto x = drawn_slot("x", dtype::f32, kbench::uniform(-2, 2));
  x.size = 1000;
  auto w = drawn_slot("w", dtype::f16, kbench::uniform(0.5, 1.5));
  w.size = 5;  // fewer elements than spikes: each of them at most
  auto logits = drawn_slot("logits", dtype::bf16, kbench::uniform(-3, -1), role::inout);
  logits.size = 64;
  auto positions = drawn_slot("positions", dtype::i32, kbench::uniform(0, 4095));
  positions.size = 64;
  const std::vector<const kbench::detail::buffer_slot*> slots{&x, &w, &logits, &positions};
  const std::vector<kbench::edge_run> runs = kbench::spike_runs(slots, true, 0x5EED);
  CHECK(kinds(runs) == std::vector<edge_kind>{edge_kind::spikes, edge_kind::spikes, edge_kind::spikes, edge_kind::spikes,
                                              edge_kind::spikes, edge_kind::family});
  REQUIRE(runs.size() == 6);
  CHECK(runs[0].input == &x);
  CHECK(runs[1].input == &x);
  CHECK(runs[1].scale == 2097152.0);
  CHECK(runs[2].input == &w);
  const kbench::value_edge on_x = runs[0].edge_of(x);
  CHECK(on_x.spike == 2048.0);
  CHECK(on_x.spike_sign == 0);  // declared on both sides of 0: either sign
  REQUIRE(on_x.spikes == kbench::spike_count);
  std::vector<std::uint64_t> at(on_x.spike_at, on_x.spike_at + on_x.spikes);
  for (const std::uint64_t i : at) CHECK(i < x.size);
  std::sort(at.begin(), at.end());
  CHECK(std::unique(at.begin(), at.end()) - at.begin() >= 6);  // drawn, not a pattern: few collide in 1000
  CHECK(runs[0].edge_of(w).none());  // one input at a time
  CHECK(runs[2].edge_of(w).spikes == 5);
  CHECK(runs[2].edge_of(w).spike_sign == 1);  // declared positive: spikes stay positive
  CHECK(runs[4].edge_of(logits).spike_sign == -1);
  // Another seed, other positions; the same seed, the same.
  CHECK(kbench::spike_runs(slots, true, 0x5EED)[0].edge_of(x).spike_at[0] == on_x.spike_at[0]);
  const kbench::value_edge elsewhere = kbench::spike_runs(slots, true, 0x5EEE)[0].edge_of(x);
  CHECK(!std::equal(on_x.spike_at, on_x.spike_at + 8, elsewhere.spike_at));
  CHECK(runs[0].words() == "with 8 elements of input 'x' set to +-2048 (declared uniform(-2, 2))");
  CHECK(contains("another family").match(runs[5].words()));
  CHECK(runs[5].edge_of(x).other_family);
  CHECK(runs[5].edge_of(positions).none());
  CHECK_FALSE(runs[0].rescales());
  CHECK(runs[5].rescales());
  CHECK(kbench::spike_runs(slots, false, 1).empty());
  CHECK(kbench::spike_runs({&positions}, true, 1).empty());
}

TEST_CASE("the tolerance at an edge: absolute parts scaled as the reference's outputs, floored", "[edges]") {
  const kbench::tolerance t = kbench::make_tolerance(kbench::tol::allclose{1e-3, 1e-5} && kbench::tol::ulp{4});
  const kbench::tolerance larger = kbench::edge_tolerance(t, 256.0, dtype::f16);
  CHECK(larger.element_rules[0].atol == 256.0 * 1e-5);
  CHECK(larger.element_rules[0].rtol == 1e-3);
  CHECK(larger.element_rules[1].max_ulps == 4);
  CHECK(contains("absolute parts x256").match(larger.description));
  // Scaled down, never below two of fp16's smallest subnormals: a rounding there moves a value by one.
  CHECK(kbench::edge_tolerance(t, 1e-6, dtype::f16).element_rules[0].atol == 2.0 * std::exp2(-24.0));
  CHECK(kbench::edge_tolerance(t, 1.0, dtype::f16).description == t.description);
  CHECK(kbench::edge_tolerance(t, std::nan(""), dtype::f16).element_rules[0].atol == 1e-5);  // no ratio: as declared
  const kbench::tolerance exact = kbench::make_tolerance(kbench::tol::exact{});
  CHECK(kbench::edge_tolerance(exact, 16.0, dtype::i32).element_rules[0].rule == kbench::element_rule::kind::exact);
  const kbench::tolerance relative = kbench::make_tolerance(kbench::tol::relative{1e-5});
  CHECK(kbench::edge_tolerance(relative, 16.0, dtype::f32).element_rules[0].atol == 0.0);  // no absolute part made up
}

}  // namespace unit_edge_values_test
