// sweep.hpp and registry.hpp: shapes chosen at run time, axes on a registration, plain names.
#include <kbench/contract/registry.hpp>
#include <kbench/contract/registry_impl.hpp>  // once per program: no kbench library links into the unit tests
#include <kbench/decisions/baseline.hpp>
#include <kbench/decisions/nearby_shapes.hpp>
#include <kbench/decisions/sweep.hpp>
#include <kbench/reports/json_report.hpp>
#include <kbench/reports/results_document.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "../catch.hpp"
#include "shape_labels.hpp"

namespace unit_sweep_test {  // one per file: the unit tests compile in unity batches

using kbench_test::contains;
using kbench_test::labels;
using kbench_test::no_case;

namespace {

std::string error_of(const std::string& axis) {
  try {
    (void)kbench::parse_axis(axis);
  } catch (const kbench::usage_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("axes: geometric and arithmetic ranges, and lists", "[sweep]") {
  CHECK(kbench::parse_axis("cols=1024:65536:x2").values ==
        std::vector<std::int64_t>{1024, 2048, 4096, 8192, 16384, 32768, 65536});
  CHECK(kbench::parse_axis("cols=1000:5000:x3").values == std::vector<std::int64_t>{1000, 3000});
  CHECK(kbench::parse_axis("n=1:10:+4").values == std::vector<std::int64_t>{1, 5, 9});
  CHECK(kbench::parse_axis("n=7").values == std::vector<std::int64_t>{7});
  CHECK(kbench::parse_axis("n=1531,4096").values == std::vector<std::int64_t>{1531, 4096});
  CHECK(kbench::parse_axis("n=9223372036854775807:9223372036854775807:x2").values.size() == 1);  // no overflow
  CHECK_THAT(error_of("n=8:4:x2"), contains("ends before it starts"));
  CHECK_THAT(error_of("n=1:4:x1"), contains("factor must be 2 or more"));
  CHECK_THAT(error_of("n=1:4:*2"), contains("start:stop:xFACTOR or start:stop:+STEP"));
  CHECK_THAT(error_of("n=1:4"), contains("start:stop:xFACTOR"));
  CHECK_THAT(error_of("n=-3"), contains("is not a size"));
  CHECK_THAT(error_of("=3"), contains("is not name=value"));
  CHECK_THAT(error_of("n=1:1000000:+1"), contains("more than 4096 sizes"));
}

TEST_CASE("shapes: commas or slashes between dimensions; a name twice is an error", "[sweep]") {
  CHECK(kbench::parse_shape("rows=4096,cols=8192").to_string() == "rows=4096/cols=8192");
  CHECK(kbench::parse_shape("rows=4096/cols=8192").to_string() == "rows=4096/cols=8192");
  CHECK_THROWS_AS(kbench::parse_shape("rows=1,rows=2"), kbench::usage_error);
  CHECK_THROWS_AS(kbench::parse_shape("rows=1,,cols=2"), kbench::usage_error);
  CHECK_THROWS_AS(kbench::parse_shape("rows=1x"), kbench::usage_error);
}

TEST_CASE("the shapes a case runs at: requested ones of its own dimensions, then the axes", "[sweep]") {
  const std::vector<kbench::shape> registered{{{"rows", 37}, {"cols", 1531}}, {{"rows", 16384}, {"cols", 8192}}};
  kbench::shape_request none;
  CHECK(labels(kbench::shapes_to_run(registered, none)) == labels(registered));
  kbench::shape_request sweep;
  sweep.axes.push_back(kbench::parse_axis("cols=1024,2048"));
  CHECK(labels(kbench::shapes_to_run(registered, sweep)) ==
        std::vector<std::string>{"rows=37/cols=1024", "rows=37/cols=2048", "rows=16384/cols=1024", "rows=16384/cols=2048"});
  kbench::shape_request given;
  given.shapes = {kbench::parse_shape("cols=5,rows=3"), kbench::parse_shape("n=5")};
  CHECK(labels(kbench::shapes_to_run(registered, given)) == std::vector<std::string>{"cols=5/rows=3"});  // n: not this case's
  given.axes.push_back(kbench::parse_axis("rows=3,3"));
  CHECK(labels(kbench::shapes_to_run(registered, given)) == std::vector<std::string>{"cols=5/rows=3"});  // no repeats
  kbench::shape_request other;
  other.shapes = {kbench::parse_shape("n=5")};
  CHECK(kbench::shapes_to_run(registered, other).empty());
}

TEST_CASE("a registration's axes give every combination, after its own shapes", "[sweep]") {
  kbench::case_registration reg("rmsnorm<kbench::bf16_t>", no_case, __FILE__, __LINE__);
  reg.shape({{"rows", 37}, {"cols", 1531}}).axis("rows", {1, 2}).axis("cols", {10, 20, 30});
  CHECK(labels(reg.shapes()) == std::vector<std::string>{"rows=37/cols=1531", "rows=1/cols=10", "rows=1/cols=20",
                                                        "rows=1/cols=30", "rows=2/cols=10", "rows=2/cols=20",
                                                        "rows=2/cols=30"});
  CHECK_THROWS_AS(reg.axis("rows", {3}), kbench::usage_error);
  CHECK_THROWS_AS(reg.axis("k", {}), kbench::usage_error);
  reg.name("rmsnorm_bf16");
  CHECK(reg.name() == "rmsnorm_bf16");
  CHECK_THROWS_AS(reg.name("rms norm"), kbench::usage_error);
  CHECK_THROWS_AS(reg.name("a<b>"), kbench::usage_error);
  CHECK_THROWS_AS(reg.name(""), kbench::usage_error);
}

TEST_CASE("parameters: numbers of a shape that are no sizes, in labels, options, neighbours and documents", "[sweep][parameters]") {
  const kbench::shape s = kbench::shape{{"rows", 37}, {"cols", 1531}}.with("eps", 1e-5).with("scale", 0.125);
  CHECK(s.to_string() == "rows=37/cols=1531/eps=1e-05/scale=0.125");
  CHECK(s.parameter_value("scale") == 0.125);
  CHECK_THROWS_WITH((void)s.parameter_value("alpha"), contains("asks for parameter 'alpha', but shape {rows=37/cols=1531/eps=1e-05/"
                                                               "scale=0.125} has no such parameter"));
  CHECK_THROWS_WITH((void)s.with("rows", 2.0), contains("shape names 'rows' twice"));
  CHECK_THROWS_WITH((void)s.with("nan", std::nan("")), contains("must be finite"));
  CHECK(kbench::detail::exact_decimal(0.1) == "0.1");
  CHECK(kbench::detail::exact_decimal(1.0 / 3.0) == "0.3333333333333333");
  CHECK(kbench::detail::exact_decimal(-2.0) == "-2");
  // Given on the registration, to the shape before; not without one.
  kbench::case_registration reg("rmsnorm", no_case, __FILE__, __LINE__);
  CHECK_THROWS_WITH(reg.with("eps", 1e-5), contains("gives the shape before it a parameter, and there is none"));
  reg.shape({{"rows", 37}, {"cols", 1531}}).with("eps", 1e-5).shape({{"rows", 2}, {"cols", 8}}).with("eps", 1e-6);
  CHECK(labels(reg.shapes()) == std::vector<std::string>{"rows=37/cols=1531/eps=1e-05", "rows=2/cols=8/eps=1e-06"});
  // At run time: a value that is no whole number is a parameter; a whole one is one where the case's shapes say.
  CHECK(kbench::parse_shape("rows=4,cols=8,eps=1e-5").parameters().size() == 1);
  kbench::shape_request given;
  given.shapes = {kbench::parse_shape("rows=4,cols=8,eps=1"), kbench::parse_shape("rows=4,cols=8")};
  given.axes.push_back(kbench::parse_axis("cols=16,32"));
  CHECK(labels(kbench::shapes_to_run(reg.shapes(), given)) == std::vector<std::string>{"rows=4/cols=16/eps=1", "rows=4/cols=32/eps=1"});
  kbench::shape_request wrong;
  wrong.shapes = {kbench::parse_shape("rows=4,cols=8.5,eps=1")};
  CHECK_THROWS_WITH(kbench::shapes_to_run(reg.shapes(), wrong), contains("'cols' is a size (a whole number > 0)"));
  // The shapes around a declared one keep its parameters, and the option that reproduces one gives them.
  const std::vector<kbench::shape> around = kbench::shapes_around(reg.shapes()[1], {}, {});
  REQUIRE(around.size() == 4);
  CHECK(around[0].to_string() == "rows=1/cols=8/eps=1e-06");
  CHECK(kbench::shape_option(around[0]) == "--shape rows=1,cols=8,eps=1e-06");
  CHECK(kbench::parse_shape("rows=1,cols=8,eps=1e-06").to_string() == around[0].to_string());
  // In the results document: a key of their own, and the label read back names the same run.
  kbench::run_record run;
  kbench::case_record& c = run.cases.emplace_back();
  c.case_name = "rmsnorm";
  c.shape = s;
  run.cases.emplace_back().case_name = "plain";
  const nlohmann::ordered_json document = kbench::results_document(run);
  CHECK(document["cases"][0]["shape"] == nlohmann::ordered_json({{"rows", 37}, {"cols", 1531}}));
  CHECK(document["cases"][0]["parameters"] == nlohmann::ordered_json({{"eps", 1e-5}, {"scale", 0.125}}));
  CHECK_FALSE(document["cases"][1].contains("parameters"));
  const kbench::case_record back = kbench::read_results(document).cases[0];
  CHECK(kbench::case_label(back.case_name, back.shape) == "rmsnorm/rows=37/cols=1531/eps=1e-05/scale=0.125");
  CHECK(kbench::detail::match_key(back) == "rmsnorm\ncols=1531\neps=1e-05\nrows=37\nscale=0.125");
}

}  // namespace unit_sweep_test
