// slack_audit.hpp: what tol::max_mismatch lets through must stay near (within its bound times the element
// rules) and scattered (no row, column, tile or block of a 1-D output holding more than the allowance spread
// at random would); rounding outliers of a correct kernel pass.
#include <kbench/engines/comparison.hpp>
#include <kbench/reports/json_report.hpp>
#include <kbench/reports/report.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_slack_audit_test {  // one per file: the unit tests compile in unity batches

namespace tol = kbench::tol;
using kbench::dtype;
using kbench_test::contains;

namespace {

kbench::array_view view(const std::vector<float>& v, std::vector<std::size_t> extents) {
  return {v.data(), dtype::f32, v.size(), std::move(extents)};
}

std::string reasons_of(const kbench::comparison& r) {
  std::string all;
  for (const std::string& reason : r.reasons) all += reason + "\n";
  return all;
}

// A deterministic scatter: about `per_mille` of 1000 indices, spread with no structure.
bool scattered(std::size_t i, std::uint32_t per_mille) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return h % 1000 < per_mille;
}

// Expected values of an output of `n` elements: uniform in about [-2, 2], never near zero.
std::vector<float> reference(std::size_t n) {
  std::vector<float> e(n);
  for (std::size_t i = 0; i < n; ++i) e[i] = (scattered(i, 500) ? 1.0f : -1.0f) * (0.5f + static_cast<float>(i % 97) / 64.0f);
  return e;
}

// allclose{1e-3, 1e-3}: the rule's width at |e| is 1e-3 * (1 + |e|).
const kbench::tolerance two_percent = kbench::make_tolerance(tol::allclose{1e-3, 1e-3} && tol::max_mismatch{0.02});

// `e` moved by `multiple` times the rule's width there.
float off_by(float e, double multiple) {
  return static_cast<float>(e + multiple * 1e-3 * (1.0 + std::fabs(e)));
}

// Where the densest cluster of a failed comparison is ("" when it has none).
std::string densest_cluster(const kbench::comparison& r) {
  INFO(reasons_of(r));
  CHECK_FALSE(r.passed);
  return r.slack && !r.slack->clusters.empty() ? r.slack->clusters.front().where : std::string();
}

}  // namespace

TEST_CASE("max_mismatch declares its bound and whether mismatches may cluster", "[slack]") {
  const kbench::tolerance plain = kbench::make_tolerance(tol::exact{} && tol::max_mismatch{0.05});
  CHECK(plain.slack_bound == 10.0);
  CHECK_FALSE(plain.slack_may_cluster);
  CHECK(plain.description == "exact && max_mismatch(5%, each within 10x)");
  const kbench::tolerance wide = kbench::make_tolerance(tol::exact{} && tol::max_mismatch{0.05, 50}.may_cluster());
  CHECK(wide.slack_bound == 50.0);
  CHECK(wide.slack_may_cluster);
  CHECK(wide.description == "exact && max_mismatch(5%, each within 50x, may cluster)");
  const kbench::tolerance any = kbench::make_tolerance(tol::exact{} && tol::max_mismatch{0.05, tol::any_value});
  CHECK(std::isinf(any.slack_bound));
  CHECK(any.description == "exact && max_mismatch(5%, any value)");
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::exact{} && tol::max_mismatch{0.05, 0.5}), contains("bound must be >= 1"));
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::exact{} && tol::max_mismatch{0.05, std::nan("")}),
                    contains("bound must be >= 1"));
}

TEST_CASE("a step of the dtype, and the width of the narrowest element rule", "[slack]") {
  using kbench::detail::ulp_size;
  CHECK(ulp_size(1.0, dtype::f32) == std::ldexp(1.0, -23));
  CHECK(ulp_size(3.0, dtype::f32) == std::ldexp(1.0, -22));
  CHECK(ulp_size(0.0, dtype::f32) == std::ldexp(1.0, -149));  // the subnormals' step
  CHECK(ulp_size(1.0, dtype::f16) == std::ldexp(1.0, -10));
  CHECK(ulp_size(1e-9, dtype::f16) == std::ldexp(1.0, -24));
  CHECK(ulp_size(1.0, dtype::bf16) == std::ldexp(1.0, -7));
  CHECK(ulp_size(1.0, dtype::f8e4m3) == std::ldexp(1.0, -3));
  CHECK(ulp_size(1e6, dtype::i32) == 1.0);

  using kbench::detail::rule_width;
  CHECK(rule_width(kbench::make_tolerance(tol::allclose{1e-2, 1e-3}), 2.0, dtype::f32) == Approx(0.021));
  CHECK(rule_width(kbench::make_tolerance(tol::ulp{4}), 1.0, dtype::f16) == std::ldexp(1.0, -8));
  CHECK(rule_width(kbench::make_tolerance(tol::exact{}), 1.0, dtype::bf16) == std::ldexp(1.0, -7));
  CHECK(rule_width(kbench::make_tolerance(tol::exact{}), 7.0, dtype::i8) == 1.0);
  CHECK(rule_width(kbench::make_tolerance(tol::absolute{0.0}), 1.0, dtype::f32) == std::ldexp(1.0, -23));
  CHECK(rule_width(kbench::make_tolerance(tol::absolute{0.5} && tol::relative{1e-3}), 4.0, dtype::f32) == Approx(4e-3));
}

TEST_CASE("the cluster threshold is a binomial tail", "[slack]") {
  using kbench::detail::binomial_threshold;
  CHECK(binomial_threshold(10, 0.5, 0.001) == 10);  // P(X = 10) = 1/1024; P(X >= 9) = 11/1024
  CHECK(binomial_threshold(10, 0.5, 0.0005) == 11);  // none can
  CHECK(binomial_threshold(1, 0.5, 0.6) == 1);
  // 256 elements at a 2% allowance (5.1 expected): a place takes about a fifth of them to be a cluster.
  const std::size_t t = binomial_threshold(256, 0.02, 1e-6 / 4096);
  CHECK(t > 20);
  CHECK(t < 35);
}

TEST_CASE("rounding outliers scattered inside the allowance pass, audited", "[slack]") {
  const std::vector<std::size_t> extents{64, 256};
  const std::vector<float> e = reference(64 * 256);
  std::vector<float> a = e;
  std::size_t outliers = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (scattered(i, 8)) a[i] = off_by(e[i], 3.0), ++outliers;
  }
  REQUIRE(outliers > 50);
  const kbench::comparison r = kbench::compare(view(a, extents), view(e, extents), two_percent);
  INFO(reasons_of(r));
  CHECK(r.passed);
  REQUIRE(r.slack);
  CHECK(r.slack->let_through == outliers);
  CHECK(r.slack->worst_multiple == Approx(3.0).epsilon(0.01));
  CHECK(r.slack->beyond_bound == 0);
  CHECK(r.slack->clustered_places == 0);
  CHECK(r.slack->false_alarm == 1e-6);
  const std::string text = kbench::format_comparison("y", r, dtype::f32, extents);
  CHECK_THAT(text, contains("slack: " + std::to_string(outliers) + " mismatches let through, the worst 3"));
  CHECK_THAT(text, contains("(bound 10x), 0 beyond it, 0 clustered places"));

  const kbench::comparison clean = kbench::compare(view(e, extents), view(e, extents), two_percent);
  CHECK_FALSE(clean.slack);  // nothing let through: nothing to audit
}

TEST_CASE("junk in 1% of the elements, inside a 2% allowance, is junk inside the slack", "[slack]") {
  const std::vector<std::size_t> extents{64, 256};
  const std::vector<float> e = reference(64 * 256);
  std::vector<float> a = e;
  std::size_t first = 0, junk = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!scattered(i, 10)) continue;
    if (junk++ == 0) first = i;
    a[i] = e[(i * 7 + 3) % e.size()];  // a plausible value from elsewhere
  }
  const kbench::comparison r = kbench::compare(view(a, extents), view(e, extents), two_percent);
  INFO(reasons_of(r));
  CHECK_FALSE(r.passed);
  CHECK(r.mismatches <= r.allowed_mismatches);  // the count alone would let it through
  REQUIRE(r.slack);
  CHECK(r.slack->beyond_bound > junk / 2);
  CHECK(r.slack->first_beyond_bound >= first);
  CHECK_THAT(reasons_of(r), contains(" mismatches inside the 2% allowance are off by more than 10x the element rules: "
                                     "junk inside the slack (first at ("));
  CHECK(r.slack->clustered_places == 0);  // scattered junk: the bound catches it, not the clusters

  const kbench::tolerance unbounded =
      kbench::make_tolerance(tol::allclose{1e-3, 1e-3} && tol::max_mismatch{0.02, tol::any_value});
  CHECK(kbench::compare(view(a, extents), view(e, extents), unbounded).passed);  // declared: any value
}

TEST_CASE("a row written wrong inside the allowance and the bound is a cluster, named", "[slack]") {
  const std::vector<std::size_t> extents{64, 256};
  const std::vector<float> e = reference(64 * 256);
  std::vector<float> a = e;
  for (std::size_t c = 0; c < 256; ++c) a[5 * 256 + c] = off_by(e[5 * 256 + c], 2.0);  // 1.6% of the output
  const kbench::comparison r = kbench::compare(view(a, extents), view(e, extents), two_percent);
  INFO(reasons_of(r));
  CHECK_FALSE(r.passed);
  REQUIRE(r.slack);
  CHECK(r.slack->beyond_bound == 0);
  REQUIRE_FALSE(r.slack->clusters.empty());
  const kbench::mismatch_cluster& c = r.slack->clusters.front();
  CHECK(c.where == "row 5, columns 0..255");
  CHECK(c.mismatches == 256);
  CHECK(c.elements == 256);
  CHECK(c.first_index == 5 * 256);
  CHECK_THAT(reasons_of(r), contains("mismatches inside the 2% allowance cluster in row 5, columns 0..255: 256 of its "
                                     "256 elements (first at (5, 0)); spread at random, the allowance would put "));
  const std::string text = kbench::format_comparison("y", r, dtype::f32, extents);
  CHECK_THAT(text, contains("      cluster: 256 of 256 elements mismatch in row 5, columns 0..255 (first at (5, 0);"));

  const kbench::tolerance anywhere =
      kbench::make_tolerance(tol::allclose{1e-3, 1e-3} && tol::max_mismatch{0.02}.may_cluster());
  const kbench::comparison declared = kbench::compare(view(a, extents), view(e, extents), anywhere);
  CHECK(declared.passed);  // declared: mismatches may gather
  REQUIRE(declared.slack);
  CHECK(declared.slack->false_alarm == 0.0);
}

TEST_CASE("a tile, a column and a run of a 1-D output written wrong are clusters", "[slack]") {
  const std::vector<std::size_t> square{128, 128};
  const std::vector<float> e = reference(128 * 128);
  std::vector<float> tile = e, column = e;
  for (std::size_t r = 16; r < 32; ++r) {
    for (std::size_t c = 32; c < 48; ++c) tile[r * 128 + c] = off_by(e[r * 128 + c], 4.0);
  }
  for (std::size_t r = 0; r < 128; ++r) column[r * 128 + 77] = off_by(e[r * 128 + 77], 4.0);
  CHECK(densest_cluster(kbench::compare(view(tile, square), view(e, square), two_percent)) == "rows 16..31, columns 32..47");
  CHECK(densest_cluster(kbench::compare(view(column, square), view(e, square), two_percent)) == "rows 0..127, column 77");

  const std::vector<float> flat_e = reference(4096);
  std::vector<float> flat = flat_e;
  for (std::size_t i = 1024; i < 1088; ++i) flat[i] = off_by(flat_e[i], 4.0);  // 1.6%
  const kbench::comparison f = kbench::compare(view(flat, {4096}), view(flat_e, {4096}), two_percent);
  CHECK(densest_cluster(f) == "elements 1024..1279");
  CHECK_THAT(reasons_of(f), contains("64 of its 256 elements (first at [1024])"));
}

TEST_CASE("a sum cancelling to near zero is judged at the reference's RMS, junk is not", "[slack]") {
  std::vector<float> e = reference(1000), a = e;
  e[10] = 1e-4f;           // a cancellation: the rule allows ~1e-3 here ...
  a[10] = 1e-4f + 5e-3f;   // ... and the kernel is 5e-3 off: 50x the rule at |e|, 3x it at the RMS (~1.4)
  const kbench::comparison r = kbench::compare(view(a, {1000}), view(e, {1000}), two_percent);
  INFO(reasons_of(r));
  CHECK(r.passed);
  REQUIRE(r.slack);
  CHECK(r.slack->worst_multiple < 3.0);
  a[10] = e[11];  // a value from elsewhere
  CHECK_FALSE(kbench::compare(view(a, {1000}), view(e, {1000}), two_percent).passed);
}

TEST_CASE("under an exact rule, the bound is in steps of the dtype", "[slack]") {
  std::vector<std::int32_t> e(1000), a(1000);
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = a[i] = static_cast<std::int32_t>(i % 200) - 100;
  a[100] += 1;  // a rounding boundary: one code away
  a[700] -= 3;
  const kbench::array_view ev{e.data(), dtype::i32, e.size(), {}}, av{a.data(), dtype::i32, a.size(), {}};
  const kbench::tolerance t = kbench::make_tolerance(tol::exact{} && tol::max_mismatch{0.01});
  CHECK(kbench::compare(av, ev, t).passed);
  a[300] = 12345;
  const kbench::comparison junk = kbench::compare(av, ev, t);
  CHECK_FALSE(junk.passed);
  CHECK_THAT(reasons_of(junk), contains("1 of the 3 mismatches inside the 1% allowance are off by more than 10x the "
                                        "element rules: junk inside the slack (first at [300]: 12345 for 0;"));
}

TEST_CASE("the slack audit is in the JSON document", "[slack]") {
  const std::vector<std::size_t> extents{64, 256};
  const std::vector<float> e = reference(64 * 256);
  std::vector<float> a = e;
  for (std::size_t c = 0; c < 256; ++c) a[5 * 256 + c] = off_by(e[5 * 256 + c], 2.0);
  kbench::seed_result s;
  s.outputs.push_back({"y", dtype::f32, extents, kbench::compare(view(a, extents), view(e, extents), two_percent)});
  const auto out = kbench::detail::to_json(s.outputs.front());
  const auto& slack = out.at("slack");
  CHECK(slack.at("let_through") == 256);
  CHECK(slack.at("bound") == 10.0);
  CHECK(slack.at("beyond_bound") == 0);
  CHECK(slack.at("clusters").at(0).at("where") == "row 5, columns 0..255");
  CHECK(out.at("tolerance").at("slack_bound") == 10.0);
  CHECK(out.at("tolerance").at("slack_may_cluster") == false);
  s.outputs.front().result = kbench::compare(view(e, extents), view(e, extents), two_percent);
  CHECK(kbench::detail::to_json(s.outputs.front()).at("slack").is_null());
}

}  // namespace unit_slack_audit_test
