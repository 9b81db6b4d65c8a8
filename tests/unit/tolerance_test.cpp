// tolerance.hpp: policies, their composition, validation and the per-dtype defaults.
#include <kbench/contract/tolerance.hpp>

#include <cmath>
#include <limits>

#include "../catch.hpp"

namespace unit_tolerance_test {  // one per file: the unit tests compile in unity batches

namespace tol = kbench::tol;
using kbench::element_rule;

TEST_CASE("a policy lowers to rules and a description", "[tolerance]") {
  const kbench::tolerance t = kbench::make_tolerance(tol::allclose{1e-3, 1e-5});
  REQUIRE(t.element_rules.size() == 1);
  CHECK(t.element_rules[0].rule == element_rule::kind::within);
  CHECK(t.element_rules[0].rtol == 1e-3);
  CHECK(t.element_rules[0].atol == 1e-5);
  CHECK(t.description == "allclose(rtol=0.001, atol=1e-05)");
  CHECK_FALSE(t.equal_nan);
}

TEST_CASE("policies compose with &&", "[tolerance]") {
  const auto policy = tol::allclose{1e-2, 1e-2} && tol::max_mismatch{0.05} && tol::cosine{0.99} && tol::equal_nan{};
  const kbench::tolerance t = kbench::make_tolerance(policy);
  CHECK(t.element_rules.size() == 1);
  CHECK(t.max_mismatch_fraction == 0.05);
  REQUIRE(t.min_cosine);
  CHECK(*t.min_cosine == 0.99);
  CHECK(t.equal_nan);
  CHECK(t.description == "allclose(rtol=0.01, atol=0.01) && max_mismatch(5%, each within 10x) && cosine(>=0.99) && equal_nan");

  const kbench::tolerance both = kbench::make_tolerance(tol::absolute{1e-3} && tol::ulp{4} && tol::relative_l2{1e-2});
  CHECK(both.element_rules.size() == 2);
  CHECK(both.element_rules[1].max_ulps == 4);
  CHECK(both.max_relative_l2 == 1e-2);
  CHECK(both.description == "absolute(atol=0.001) && ulp(<=4) && relative_l2(<=0.01)");
}

TEST_CASE("unusable tolerances are usage errors with one clear line", "[tolerance]") {
  using kbench_test::contains;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::allclose{1e-3, -1.0}), contains("allclose: atol must be finite and >= 0, got -1"));
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::absolute{nan}), contains("absolute: atol must be finite"));
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::relative{std::numeric_limits<double>::infinity()}),
                    contains("relative: rtol must be finite"));
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::cosine{1.5}), contains("cosine: min_similarity must be in [-1, 1]"));
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::relative_l2{-0.1}), contains("relative_l2"));
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::exact{} && tol::max_mismatch{1.0}), contains("fraction must be in [0, 1)"));
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::max_mismatch{0.1} && tol::cosine{}),
                    contains("max_mismatch needs an elementwise rule"));
  CHECK_THROWS_WITH(kbench::make_tolerance(tol::equal_nan{}), contains("has no criterion"));
  CHECK_THROWS_AS(kbench::make_tolerance(tol::allclose{-1.0, 0.0}), kbench::usage_error);
}

TEST_CASE("defaults follow torch.testing per dtype; integers are exact", "[tolerance]") {
  using kbench::dtype;
  auto rule = [](dtype t) { return kbench::default_tolerance(t).element_rules.at(0); };
  CHECK(rule(dtype::f32).rtol == 1.3e-6);
  CHECK(rule(dtype::f32).atol == 1e-5);
  CHECK(rule(dtype::f16).rtol == 1e-3);
  CHECK(rule(dtype::f16).atol == 1e-5);
  CHECK(rule(dtype::bf16).rtol == 1.6e-2);
  CHECK(rule(dtype::f64).rtol == 1e-7);
  for (dtype t : {dtype::i8, dtype::u8, dtype::i32, dtype::i64, dtype::u64}) {
    CHECK(rule(t).rule == element_rule::kind::exact);
  }
}

}  // namespace unit_tolerance_test
