// bias_audit.hpp: errors inside the tolerance that all lean one way fail, over the whole output and over a
// row; honest leans pass: another rounding (truncation included), a row's sum in another order, subnormals
// flushed to zero, errors of random sign.
#include <kbench/engines/comparison.hpp>
#include <kbench/reports/json_read.hpp>
#include <kbench/reports/json_report.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_bias_audit_test {  // one per file: the unit tests compile in unity batches

namespace tol = kbench::tol;
using kbench::dtype;
using kbench_test::contains;

namespace {

std::string reasons_of(const kbench::comparison& r) {
  std::string all;
  for (const std::string& reason : r.reasons) all += reason + "\n";
  return all;
}

// A deterministic value in [0, 1) for index i and stream s.
double unit_value(std::size_t i, std::uint32_t s) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ s * 0x9E3779B9u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  h *= 3266489917u;
  h ^= h >> 16;
  return h / 4294967296.0;
}

// Softmax rows (`rows` x `cols`) in double: each row sums to 1.
std::vector<double> softmax(std::size_t rows, std::size_t cols) {
  std::vector<double> p(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    double sum = 0.0;
    for (std::size_t c = 0; c < cols; ++c) sum += p[r * cols + c] = std::exp(2.0 * unit_value(r * cols + c, 1));
    for (std::size_t c = 0; c < cols; ++c) p[r * cols + c] /= sum;
  }
  return p;
}

// `expected` scaled by 1 + lean(row), rounded to fp32.
template <class Lean>
std::vector<float> leaned(const std::vector<double>& expected, std::size_t cols, Lean lean) {
  std::vector<float> a(expected.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(expected[i] * (1.0 + lean(i / cols)));
  return a;
}

kbench::comparison compare(const std::vector<float>& actual, const std::vector<double>& expected,
                           std::vector<std::size_t> extents, const kbench::tolerance& t) {
  return kbench::compare({actual.data(), dtype::f32, actual.size(), extents}, {expected.data(), dtype::f64, expected.size(), extents}, t);
}

// allclose{1e-3, 1e-4}: probabilities near 1/1024 are judged almost by atol alone.
const kbench::tolerance loose = kbench::make_tolerance(tol::allclose{1e-3, 1e-4});

}  // namespace

TEST_CASE("a softmax whose rows sum to 1.03 passes every element but fails its sum", "[bias]") {
  const std::vector<double> p = softmax(64, 1024);
  const kbench::comparison r = compare(leaned(p, 1024, [](std::size_t) { return 0.03; }), p, {64, 1024}, loose);
  INFO(reasons_of(r));
  CHECK(r.mismatches == 0);
  CHECK_FALSE(r.passed);
  CHECK_THAT(reasons_of(r), contains("the errors lean one way: over "));
  REQUIRE(r.bias);
  CHECK(r.bias->worst_bias == Approx(0.03).epsilon(1e-3));
  CHECK(r.bias->worst_ratio > 1.0);
}

TEST_CASE("rows leaning by 3% each way cancel in the whole output and fail in a row", "[bias]") {
  const std::vector<double> p = softmax(64, 1024);
  const kbench::comparison r = compare(leaned(p, 1024, [](std::size_t row) { return row % 2 ? 0.03 : -0.03; }), p, {64, 1024}, loose);
  INFO(reasons_of(r));
  CHECK(r.mismatches == 0);
  CHECK_FALSE(r.passed);
  CHECK_THAT(reasons_of(r), contains("over row "));
}

TEST_CASE("a 3-d output names the row by its leading coordinates", "[bias]") {
  const std::vector<double> p = softmax(8 * 8, 1024);
  const kbench::comparison r = compare(leaned(p, 1024, [](std::size_t row) { return row == 13 ? 0.03 : 0.0; }), p, {8, 8, 1024}, loose);
  INFO(reasons_of(r));
  CHECK(r.mismatches == 0);
  CHECK_FALSE(r.passed);
  CHECK_THAT(reasons_of(r), contains("over row (1, 5) they sum to 3"));
}

TEST_CASE("honest leans pass: a sum's order, truncation, random rounding, flushed subnormals", "[bias]") {
  const std::vector<double> p = softmax(64, 4096);
  const kbench::tolerance atol_only = kbench::make_tolerance(tol::allclose{0.0, 1e-4});
  SECTION("each row's sum in another fp32 order: a lean of up to 2 sqrt(L) units of fp32 per row, pure atol") {
    const double unit = std::ldexp(1.0, -23) * std::sqrt(4096.0);
    const kbench::comparison r = compare(leaned(p, 4096, [&](std::size_t row) { return (2.0 * unit_value(row, 7) - 1.0) * 2.0 * unit; }),
                                         p, {64, 4096}, atol_only);
    INFO(reasons_of(r));
    CHECK(r.passed);
    REQUIRE(r.bias);
    CHECK(r.bias->groups == 65);
    CHECK(r.bias->worst_ratio < 1.0);
  }
  SECTION("every element truncated toward zero to fp32") {
    std::vector<float> a(p.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<float>(p[i]);
      if (std::fabs(static_cast<double>(a[i])) > std::fabs(p[i])) a[i] = std::nextafter(a[i], 0.0f);
    }
    const kbench::comparison r = compare(a, p, {64, 4096}, atol_only);
    INFO(reasons_of(r));
    CHECK(r.passed);
  }
  SECTION("errors of random sign up to atol") {
    std::vector<float> a(p.size());
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(p[i] + (2.0 * unit_value(i, 3) - 1.0) * 0.9e-4);
    const kbench::comparison r = compare(a, p, {64, 4096}, atol_only);
    INFO(reasons_of(r));
    CHECK(r.passed);
  }
  SECTION("references below fp32's smallest normal flushed to zero") {
    std::vector<double> tiny(p.size());
    for (std::size_t i = 0; i < tiny.size(); ++i) tiny[i] = p[i] * 1e-36;  // about 1e-39: subnormal in fp32
    const std::vector<float> flushed(tiny.size(), 0.0f);
    const kbench::comparison r = compare(flushed, tiny, {64, 4096}, atol_only);
    INFO(reasons_of(r));
    CHECK(r.passed);
  }
}

TEST_CASE("the lean allowed: the tolerance's relative part, an ulp, and a sum's order", "[bias]") {
  namespace d = kbench::detail;
  const double u16 = std::ldexp(1.0, -10), u32 = std::ldexp(1.0, -23);
  CHECK(d::bias_allowance(kbench::make_tolerance(tol::allclose{1e-3, 1e-5}), dtype::f16, 1) == Approx(1e-3 + u16 + 4 * u32));
  CHECK(d::bias_allowance(kbench::make_tolerance(tol::ulp{2}), dtype::f16, 64) == Approx(3 * u16 + 32 * u32));
  CHECK(d::bias_allowance(kbench::make_tolerance(tol::exact{}), dtype::f32, 1) == Approx(u32 + 4 * u32));
  CHECK(d::bias_allowance(kbench::make_tolerance(tol::cosine{0.99} && tol::relative_l2{0.01}), dtype::bf16, 1) ==
        Approx(0.01 + std::ldexp(1.0, -7) + 4 * u32));
  CHECK(d::audit_row_length(60, {3, 4, 5}) == 5);
  CHECK(d::audit_row_length(60, {60}) == 60);
  CHECK(d::audit_row_length(60, {}) == 60);
}

TEST_CASE("an output of both signs scaled inside atol leans toward the magnitudes; the plain sum cancels", "[bias]") {
  std::vector<double> e(100000);
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = 2.0 * unit_value(i, 9) - 1.0;
  std::vector<float> a(e.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(e[i] * 1.0005);  // at most 5e-4 off
  const kbench::comparison r = compare(a, e, {}, kbench::make_tolerance(tol::allclose{0.0, 1e-3}));
  INFO(reasons_of(r));
  CHECK(r.mismatches == 0);
  CHECK_FALSE(r.passed);
  REQUIRE(r.bias);
  CHECK(r.bias->worst_scale);
  CHECK(r.bias->worst_bias == Approx(5e-4).epsilon(0.01));
  CHECK_THAT(reasons_of(r), contains("over the whole output they scale the reference's magnitudes by 0.05"));
}

TEST_CASE("a row of one element is judged with the whole output only", "[bias]") {
  std::vector<double> e(4096);
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = 0.5 + unit_value(i, 5);
  std::vector<float> a(e.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(e[i] * 1.0015);  // within rtol 1e-3 + atol 1e-3
  const kbench::comparison r = compare(a, e, {4096, 1}, kbench::make_tolerance(tol::allclose{1e-3, 1e-3}));
  INFO(reasons_of(r));
  CHECK(r.mismatches == 0);
  CHECK_FALSE(r.passed);
  CHECK_THAT(reasons_of(r), contains("over the whole output they sum to 0.15"));
}

TEST_CASE("the audit is written to the results and read back", "[bias]") {
  const std::vector<double> p = softmax(4, 256);
  kbench::output_result o{"p", dtype::f32, {4, 256}, compare(leaned(p, 256, [](std::size_t) { return 0.0; }), p, {4, 256}, loose), {}};
  REQUIRE(o.result.bias);
  kbench::output_result back;
  kbench::detail::from_json(kbench::detail::to_json(o), back);
  REQUIRE(back.result.bias);
  CHECK(back.result.bias->groups == o.result.bias->groups);
  CHECK(back.result.bias->worst_where == o.result.bias->worst_where);
  CHECK(back.result.bias->worst_ratio == Approx(o.result.bias->worst_ratio));
}

}  // namespace unit_bias_audit_test
