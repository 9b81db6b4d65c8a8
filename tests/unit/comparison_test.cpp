// comparison.hpp: the tolerance engine's verdicts, metrics and reasons, edge cases first.
#include <kbench/engines/comparison.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_comparison_test {  // one per file: the unit tests compile in unity batches

namespace tol = kbench::tol;
using kbench::dtype;

namespace {

const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

template <class T>
kbench::array_view view(const std::vector<T>& v, dtype t, std::vector<std::size_t> extents = {}) {
  return {v.data(), t, v.size(), std::move(extents)};
}
kbench::array_view f32(const std::vector<float>& v) { return view(v, dtype::f32); }
kbench::array_view f64(const std::vector<double>& v) { return view(v, dtype::f64); }

std::vector<std::uint16_t> fp16(const std::vector<double>& values) {
  std::vector<std::uint16_t> bits;
  for (double v : values) bits.push_back(kbench::double_to_fp16(v));
  return bits;
}

bool any_reason_contains(const kbench::comparison& r, const std::string& text) {
  for (const auto& reason : r.reasons) {
    if (reason.find(text) != std::string::npos) return true;
  }
  return false;
}

kbench::comparison run(const kbench::array_view& a, const kbench::array_view& e, const kbench::tolerance& t) {
  return kbench::compare(a, e, t);
}

}  // namespace

TEST_CASE("identical outputs pass with zero errors", "[comparison]") {
  const std::vector<float> v{1.0f, -2.5f, 3.25f, 0.0f};
  const auto r = run(f32(v), f32(v), kbench::make_tolerance(tol::exact{}));
  CHECK(r.passed);
  CHECK(r.reasons.empty());
  CHECK(r.mismatches == 0);
  CHECK(r.max_abs_error == 0.0);
  CHECK(r.cosine_similarity == Approx(1.0));
  CHECK(r.relative_l2_error == 0.0);
}

TEST_CASE("allclose applies atol + rtol * |expected| and reports the worst element", "[comparison]") {
  const std::vector<float> expected{1.0f, 100.0f, -4.0f, 0.0f};
  const std::vector<float> within{1.0005f, 100.09f, -4.003f, 5e-6f};
  const auto t = kbench::make_tolerance(tol::allclose{1e-3, 1e-5});
  CHECK(run(f32(within), f32(expected), t).passed);

  const std::vector<float> beyond{1.0f, 100.2f, -4.0f, 0.0f};
  const auto r = run(f32(beyond), f32(expected), t);
  CHECK_FALSE(r.passed);
  CHECK(r.mismatches == 1);
  CHECK(r.max_abs_index == 1);
  CHECK(r.max_abs_error == Approx(0.2).epsilon(1e-4));
  REQUIRE(r.first_mismatches.size() == 1);
  CHECK(r.first_mismatches[0].index == 1);
  CHECK(any_reason_contains(r, "1 of 4 elements (25%) mismatch, 0 allowed"));
}

TEST_CASE("NaN never matches unless equal_nan, and a NaN in the reference is named", "[comparison]") {
  const auto strict = kbench::make_tolerance(tol::allclose{1e-3, 1e-3});
  const auto lenient = kbench::make_tolerance(tol::allclose{1e-3, 1e-3} && tol::equal_nan{});

  const auto out_nan = run(f64({1.0, qnan}), f64({1.0, 2.0}), lenient);
  CHECK_FALSE(out_nan.passed);
  CHECK(out_nan.nonfinite_mismatches == 1);
  CHECK(out_nan.nan_in_actual == 1);
  CHECK(any_reason_contains(out_nan, "NaN or Inf where the other side differs (first at [1])"));

  const auto both_nan = run(f64({1.0, qnan}), f64({1.0, qnan}), strict);
  CHECK_FALSE(both_nan.passed);
  CHECK(any_reason_contains(both_nan, "the reference holds 1 NaN (first at [1])"));

  CHECK(run(f64({1.0, qnan}), f64({1.0, qnan}), lenient).passed);
  CHECK_FALSE(run(f64({1.0, 2.0}), f64({1.0, qnan}), lenient).passed);  // a number where NaN is expected
}

TEST_CASE("NaN fails even aggregate-only policies and mismatch allowances", "[comparison]") {
  std::vector<double> expected(100, 1.0), actual(100, 1.0);
  actual[7] = qnan;
  CHECK_FALSE(run(f64(actual), f64(expected), kbench::make_tolerance(tol::cosine{0.5})).passed);
  CHECK_FALSE(run(f64(actual), f64(expected), kbench::make_tolerance(tol::allclose{1e-2, 1e-2} && tol::max_mismatch{0.05})).passed);
  actual[7] = 1.1;  // an ordinary mismatch (5x the rule) is within the allowance
  CHECK(run(f64(actual), f64(expected), kbench::make_tolerance(tol::allclose{1e-2, 1e-2} && tol::max_mismatch{0.05})).passed);
}

TEST_CASE("an infinity matches only the same infinity", "[comparison]") {
  const auto t = kbench::make_tolerance(tol::allclose{0.5, 1.0});
  CHECK(run(f64({inf, -inf}), f64({inf, -inf}), t).passed);
  CHECK_FALSE(run(f64({inf}), f64({-inf}), t).passed);
  CHECK_FALSE(run(f64({1e308}), f64({inf}), t).passed);
  CHECK_FALSE(run(f64({inf}), f64({1e308}), t).passed);
}

TEST_CASE("negative zero equals positive zero under exact and ULP rules", "[comparison]") {
  CHECK(run(f32({-0.0f}), f32({0.0f}), kbench::make_tolerance(tol::exact{})).passed);
  CHECK(run(f32({-0.0f}), f32({0.0f}), kbench::make_tolerance(tol::ulp{0})).passed);
}

TEST_CASE("ULP distances count representable values, through zero and subnormals", "[comparison]") {
  const float tiny = std::numeric_limits<float>::denorm_min();
  CHECK_FALSE(run(f32({tiny}), f32({0.0f}), kbench::make_tolerance(tol::ulp{0})).passed);
  CHECK(run(f32({tiny}), f32({0.0f}), kbench::make_tolerance(tol::ulp{1})).passed);
  CHECK_FALSE(run(f32({-tiny}), f32({tiny}), kbench::make_tolerance(tol::ulp{1})).passed);  // two apart
  CHECK(run(f32({-tiny}), f32({tiny}), kbench::make_tolerance(tol::ulp{2})).passed);
  CHECK(run(f32({tiny}), f32({0.0f}), kbench::make_tolerance(tol::absolute{1e-30})).passed);

  // fp16: one step above 1.0 is one ulp; a host reference in double is rounded to fp16 first.
  const auto one_ulp = fp16({1.0 + std::ldexp(1.0, -10)});
  const auto one = fp16({1.0});
  CHECK(run(view(one_ulp, dtype::f16), view(one, dtype::f16), kbench::make_tolerance(tol::ulp{1})).passed);
  CHECK_FALSE(run(view(one_ulp, dtype::f16), view(one, dtype::f16), kbench::make_tolerance(tol::ulp{0})).passed);
  CHECK(run(view(one, dtype::f16), f64({1.0 + std::ldexp(1.0, -12)}), kbench::make_tolerance(tol::ulp{0})).passed);
}

TEST_CASE("fp16 and bf16 outputs compare against a host reference in double", "[comparison]") {
  const std::vector<double> exact{0.1, 1.0 / 3.0, -7.77, 1000.1};
  const auto rounded = fp16(exact);
  CHECK(run(view(rounded, dtype::f16), f64(exact), kbench::default_tolerance(dtype::f16)).passed);
  std::vector<std::uint16_t> bf;
  for (double v : exact) bf.push_back(kbench::double_to_bf16(v));
  CHECK(run(view(bf, dtype::bf16), f64(exact), kbench::default_tolerance(dtype::bf16)).passed);
  CHECK_FALSE(run(view(bf, dtype::bf16), f64(exact), kbench::default_tolerance(dtype::f16)).passed);
}

TEST_CASE("bad input fails with a reason, never passes", "[comparison]") {
  const auto t = kbench::make_tolerance(tol::exact{});
  const std::vector<float> empty;
  const auto r_empty = run(f32(empty), f32(empty), t);
  CHECK_FALSE(r_empty.passed);
  CHECK(any_reason_contains(r_empty, "empty output"));

  const auto r_size = run(f32({1.0f, 2.0f}), f32({1.0f}), t);
  CHECK_FALSE(r_size.passed);
  CHECK(any_reason_contains(r_size, "size mismatch: output has 2 elements, reference 1"));

  kbench::array_view null_view{nullptr, dtype::f32, 1, {}};
  const std::vector<float> one{1.0f};
  CHECK(any_reason_contains(run(null_view, f32(one), t), "null data"));

  const auto r_type = run(view(fp16({1.0}), dtype::f16), f32(one), t);
  CHECK_FALSE(r_type.passed);
  CHECK(any_reason_contains(r_type, "dtype mismatch"));

  kbench::tolerance unusable;  // no criterion at all, built by hand
  unusable.description = "nothing";
  CHECK(any_reason_contains(run(f32(one), f32(one), unusable), "has no criterion"));
}

TEST_CASE("64-bit integers compare exactly, beyond double precision", "[comparison]") {
  const std::int64_t big = std::int64_t{1} << 53;
  const std::vector<std::int64_t> a{big + 1, -5}, e{big, -5};
  const auto r = run(view(a, dtype::i64), view(e, dtype::i64), kbench::make_tolerance(tol::exact{}));
  CHECK_FALSE(r.passed);
  CHECK(r.mismatches == 1);
  CHECK(r.max_abs_error == 1.0);
  const std::vector<std::uint64_t> ua{~0ull}, ue{~0ull - 1};
  CHECK(run(view(ua, dtype::u64), view(ue, dtype::u64), kbench::make_tolerance(tol::ulp{1})).passed);
  CHECK_FALSE(run(view(ua, dtype::u64), view(ue, dtype::u64), kbench::make_tolerance(tol::exact{})).passed);
}

TEST_CASE("a mismatch allowance counts elements", "[comparison]") {
  std::vector<float> e(100, 1.0f), a(100, 1.0f);
  for (int i = 0; i < 5; ++i) a[i * 20] = 1.01f;  // 5x the rule: inside the allowance's bound (slack_audit_test.cpp)
  const auto five_percent = kbench::make_tolerance(tol::allclose{1e-3, 1e-3} && tol::max_mismatch{0.05});
  const auto r = run(f32(a), f32(e), five_percent);
  CHECK(r.passed);
  CHECK(r.mismatches == 5);
  CHECK(r.allowed_mismatches == 5);
  a[99] = 1.01f;
  CHECK_FALSE(run(f32(a), f32(e), five_percent).passed);
}

TEST_CASE("cosine similarity and relative L2 error", "[comparison]") {
  const auto cosine = kbench::make_tolerance(tol::cosine{0.99});
  CHECK(run(f64({2.0, 4.0, 6.0}), f64({1.0, 2.0, 3.0}), cosine).passed);  // same direction
  const auto orthogonal = run(f64({0.0, 1.0}), f64({1.0, 0.0}), cosine);
  CHECK_FALSE(orthogonal.passed);
  CHECK(orthogonal.cosine_similarity == Approx(0.0));
  CHECK(any_reason_contains(orthogonal, "cosine similarity 0 < 0.99"));
  CHECK(run(f64({0.0, 0.0}), f64({0.0, 0.0}), cosine).passed);       // both zero: identical
  CHECK_FALSE(run(f64({0.0, 0.0}), f64({1.0, 0.0}), cosine).passed); // one zero: no direction

  const auto l2 = kbench::make_tolerance(tol::relative_l2{0.1});
  const auto r = run(f64({3.0, 4.0}), f64({3.0, 4.4}), l2);
  CHECK(r.relative_l2_error == Approx(0.4 / std::sqrt(9.0 + 4.4 * 4.4)));
  CHECK(r.passed);
  CHECK_FALSE(run(f64({3.0, 5.0}), f64({3.0, 4.0}), l2).passed);
  CHECK(run(f64({1.0}), f64({0.0}), l2).relative_l2_error == inf);
}

TEST_CASE("elements still holding the poison are named as never written", "[comparison]") {
  std::vector<float> expected(6, 0.5f), actual(6, 0.5f);
  const std::uint32_t word = kbench::poison_word(dtype::f32);
  std::memcpy(&actual[4], &word, 4);
  std::memcpy(&actual[5], &word, 4);
  const auto r = kbench::compare(view(actual, dtype::f32, {2, 3}), view(expected, dtype::f32, {2, 3}),
                                 kbench::make_tolerance(tol::allclose{0.1, 0.1} && tol::max_mismatch{0.5}));
  CHECK_FALSE(r.passed);  // never-written elements are not covered by a mismatch allowance
  CHECK(r.never_written == 2);
  CHECK(r.first_never_written == 4);
  CHECK(any_reason_contains(r, "2 of 6 elements (33.33%) were never written (first at (1, 1))"));
  REQUIRE(r.first_mismatches.size() == 2);
  CHECK(r.first_mismatches[0].never_written);
  CHECK_FALSE(any_reason_contains(r, "the kernel did not run"));

  // None written, and no error reported: what a launch refused over a limit leaves when its error is lost.
  for (float& a : actual) std::memcpy(&a, &word, 4);
  const auto none = kbench::compare(view(actual, dtype::f32, {2, 3}), view(expected, dtype::f32, {2, 3}),
                                    kbench::make_tolerance(tol::allclose{0.1, 0.1}));
  CHECK(any_reason_contains(none, "6 of 6 elements (100%) were never written (first at (0, 0)): the kernel did not run"));
  CHECK(any_reason_contains(none, "whose error the launcher did not pass on"));
}

TEST_CASE("indices are reported in the output's shape", "[comparison]") {
  CHECK(kbench::format_index(7, {}) == "[7]");
  CHECK(kbench::format_index(7, {10}) == "[7]");
  CHECK(kbench::format_index(7, {2, 4}) == "(1, 3)");
  CHECK(kbench::format_index(23, {2, 3, 4}) == "(1, 2, 3)");
  std::vector<float> e(12, 1.0f), a(12, 1.0f);
  a[10] = 3.0f;
  const auto r = kbench::compare(view(a, dtype::f32, {3, 4}), view(e, dtype::f32, {3, 4}), kbench::make_tolerance(tol::exact{}));
  CHECK(any_reason_contains(r, "worst abs error 2 at (2, 2)"));
}

TEST_CASE("fp8 e4m3 codes compare by ulps through zero", "[comparison][fp8]") {
  const std::vector<std::uint8_t> one{0x38}, next{0x39}, two_up{0x3A}, tiny{0x01}, minus_tiny{0x81};
  CHECK(run(view(next, dtype::f8e4m3), view(one, dtype::f8e4m3), kbench::make_tolerance(tol::ulp{1})).passed);
  CHECK_FALSE(run(view(two_up, dtype::f8e4m3), view(one, dtype::f8e4m3), kbench::make_tolerance(tol::ulp{1})).passed);
  CHECK_FALSE(run(view(minus_tiny, dtype::f8e4m3), view(tiny, dtype::f8e4m3), kbench::make_tolerance(tol::ulp{1})).passed);
  CHECK(run(view(minus_tiny, dtype::f8e4m3), view(tiny, dtype::f8e4m3), kbench::make_tolerance(tol::ulp{2})).passed);
  // One step at 1.0 is 12.5%: an rtol of 10% rejects it, which is why fp8 codes want ulps.
  CHECK_FALSE(run(view(next, dtype::f8e4m3), view(one, dtype::f8e4m3), kbench::make_tolerance(tol::relative{0.1})).passed);
  const std::vector<std::uint8_t> nan{0x7F};
  CHECK_FALSE(run(view(nan, dtype::f8e4m3), view(one, dtype::f8e4m3), kbench::make_tolerance(tol::ulp{200})).passed);
}

TEST_CASE("a dtype the engine does not know fails the comparison; it never passes empty", "[comparison]") {
  const std::vector<float> a(16, 1.0f);
  const auto bogus = static_cast<kbench::dtype>(200);
  CHECK_THROWS_AS(kbench::compare({a.data(), bogus, 16, {}}, {a.data(), bogus, 16, {}}, kbench::make_tolerance(kbench::tol::exact{})),
                  kbench::usage_error);
}

TEST_CASE("tallies merge to the same result in any order", "[comparison][tally]") {
  kbench::element_tally a = kbench::element_tally::none(), b = kbench::element_tally::none();
  a.mismatches = 2, a.first_nonfinite = 40, a.nonfinite = 1, a.max_abs = 3.0, a.max_abs_index = 10, a.max_rel = 0.5,
  a.max_rel_index = 11, a.dot = 1.0;
  b.mismatches = 5, b.first_nonfinite = 7, b.nonfinite = 2, b.max_abs = 3.0, b.max_abs_index = 4, b.max_rel = 0.25,
  b.max_rel_index = 2, b.dot = 2.0;
  kbench::element_tally ab = a, ba = b;
  ab.merge(b);
  ba.merge(a);
  for (const kbench::element_tally& t : {ab, ba}) {
    CHECK(t.mismatches == 7);
    CHECK(t.nonfinite == 3);
    CHECK(t.first_nonfinite == 7);
    CHECK(t.max_abs == 3.0);
    CHECK(t.max_abs_index == 4);  // a tie goes to the smaller index
    CHECK(t.max_rel_index == 11);
    CHECK(t.dot == 3.0);
    CHECK_FALSE(t.clean());
  }
  kbench::element_tally none = kbench::element_tally::none();
  none.merge(kbench::element_tally::none());
  CHECK(none.clean());
  CHECK(none.first_never_written == kbench::no_index);
}

TEST_CASE("precision in units of the dtype: equal, 1 and 2 apart, more, and the worst", "[comparison][precision]") {
  // fp16 values at 1.0: the ulp is 2^-10.
  const std::vector<std::uint16_t> expected{0x3C00, 0x3C00, 0x3C00, 0x3C00, 0x3C00};
  const std::vector<std::uint16_t> actual{0x3C00, 0x3C01, 0x3BFF, 0x3C02, 0x3C07};
  const auto r = kbench::compare({actual.data(), dtype::f16, 5, {}}, {expected.data(), dtype::f16, 5, {}},
                                 kbench::make_tolerance(kbench::tol::allclose{1e-2, 0.0}));
  CHECK(r.passed);
  CHECK(r.ulps_equal == 1);
  CHECK(r.ulps_one == 2);  // one above, one below
  CHECK(r.ulps_two == 1);
  CHECK(r.max_ulps == 7);
  CHECK(r.allowed_at_max_abs == Approx(1e-2));  // at the worst element, expected 1.0
  // Against a value in double, 0 ulps means the correctly rounded one.
  const std::vector<double> exact{1.0 + 0.4 / 1024, 1.0 + 0.6 / 1024};
  const std::vector<std::uint16_t> rounded{0x3C00, 0x3C00};
  const auto e = kbench::compare({rounded.data(), dtype::f16, 2, {}}, {exact.data(), dtype::f64, 2, {}},
                                 kbench::make_tolerance(kbench::tol::ulp{1}));
  CHECK(e.ulps_equal == 1);  // 1 + 0.4 ulp rounds to 1.0
  CHECK(e.ulps_one == 1);    // 1 + 0.6 ulp rounds to 1 + 1 ulp
}

}  // namespace unit_comparison_test
