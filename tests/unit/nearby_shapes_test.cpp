// nearby_shapes.hpp and dimension_rule.hpp: which shapes around the declared ones a correctness run checks,
// the rules a case declares on its dimensions, --quick, and where both show in the results document.
#include <kbench/contract/dimension_rule.hpp>
#include <kbench/contract/registry.hpp>
#include <kbench/decisions/nearby_shapes.hpp>
#include <kbench/decisions/sweep.hpp>
#include <kbench/program/options.hpp>
#include <kbench/reports/json_report.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "../catch.hpp"
#include "shape_labels.hpp"

namespace unit_nearby_shapes_test {  // one per file: the unit tests compile in unity batches

using kbench_test::contains;
using kbench_test::labels;
using kbench_test::no_case;

namespace {

kbench::shape rows_cols(std::int64_t rows, std::int64_t cols) { return kbench::shape{{"rows", rows}, {"cols", cols}}; }

// rmsnorm's declared shapes with the elements of its buffers (x, w, y): a small one and a large one.
std::vector<kbench::declared_shape_facts> rmsnorm_shapes() {
  return {{rows_cols(37, 1531), 2.0 * 37 * 1531 + 1531, {}}, {rows_cols(16384, 8192), 2.0 * 16384 * 8192 + 8192, {}}};
}

kbench::run_options parse(std::vector<std::string> args) {
  std::vector<const char*> argv{"kbench_program"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return kbench::parse_options(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("a dimension rule allows sizes above 0 that meet every bound, and says which", "[nearby]") {
  const kbench::dimension_rule rule = kbench::multiple_of(8).at_least(64).at_most(4096);
  CHECK(rule.allows(64));
  CHECK(rule.allows(4096));
  CHECK_FALSE(rule.allows(56));    // below 64
  CHECK_FALSE(rule.allows(4104));  // above 4096
  CHECK_FALSE(rule.allows(1530));  // no multiple of 8
  CHECK(rule.describe() == "a multiple of 8, at least 64, at most 4096");
  CHECK(kbench::dimension_rule().describe() == "any size");
  CHECK_FALSE(kbench::dimension_rule().allows(0));  // an extent of 0 is no buffer, whatever the rule
  CHECK(kbench::at_most(3).allows(1));
}

TEST_CASE("a rule no size can meet is a usage error that names it", "[nearby]") {
  CHECK_THROWS_WITH(kbench::multiple_of(0), contains("multiple_of(0) must be above 0"));
  CHECK_THROWS_WITH(kbench::multiple_of(-8), contains("multiple_of(-8) must be above 0"));
  CHECK_THROWS_WITH(kbench::at_least(100).at_most(50), contains("at_least(100) is above its at_most(50)"));
  CHECK_THROWS_WITH(kbench::at_most(50).at_least(100), contains("at_least(100) is above its at_most(50)"));
  kbench::case_registration reg("planted", &no_case, __FILE__, __LINE__);
  reg.dimension("cols", kbench::multiple_of(8));
  CHECK_THROWS_WITH(reg.dimension("cols", kbench::at_least(8)), contains("case 'planted' has a rule on dimension 'cols' twice"));
  CHECK(reg.dimension_rules().size() == 1);
  CHECK(reg.runs_nearby_shapes());  // by default
  CHECK_FALSE(reg.nearby_shapes(false).runs_nearby_shapes());
}

TEST_CASE("a rule that a shape breaks, or that names no dimension of the case, is a usage error", "[nearby]") {
  const std::vector<kbench::shape> shapes{rows_cols(37, 1531), rows_cols(16384, 8192)};
  CHECK_NOTHROW(kbench::check_dimension_rules("rmsnorm", shapes, {{"rows", kbench::at_least(1)}}));
  CHECK_THROWS_WITH(kbench::check_dimension_rules("rmsnorm", shapes, {{"cols", kbench::multiple_of(8)}}),
                    contains("case 'rmsnorm': shape rows=37/cols=1531 breaks its rule on dimension 'cols' (a multiple of 8)"));
  CHECK_THROWS_WITH(kbench::check_dimension_rules("rmsnorm", shapes, {{"rows", kbench::at_most(4096)}}),
                    contains("shape rows=16384/cols=8192 breaks its rule on dimension 'rows' (at most 4096)"));
  CHECK_THROWS_WITH(kbench::check_dimension_rules("rmsnorm", shapes, {{"colz", kbench::multiple_of(2)}}),
                    contains("case 'rmsnorm' has a rule on dimension 'colz', which none of its shapes has"));
  // A shape given at run time that a rule rules out is left out of that case's run (program.hpp's run_shapes).
  const kbench::dimension_rules eights{{"cols", kbench::multiple_of(8)}};
  CHECK(kbench::broken_rule(eights, rows_cols(8, 12)) == &eights.front());
  CHECK(kbench::broken_rule(eights, rows_cols(8, 16)) == nullptr);
  CHECK(kbench::broken_rule(eights, kbench::shape{{"n", 12}}) == nullptr);  // a shape without the dimension
}

TEST_CASE("each dimension one less and one more: a multiple of 8 gets neighbours that are not", "[nearby]") {
  CHECK(labels(kbench::shapes_around(rows_cols(37, 1531), {}, {})) ==
        std::vector<std::string>{"rows=36/cols=1531", "rows=38/cols=1531", "rows=37/cols=1530", "rows=37/cols=1532"});
  for (const kbench::shape& s : kbench::shapes_around(rows_cols(4096, 8192), {}, {})) {
    CHECK((s["rows"] % 8 != 0 || s["cols"] % 8 != 0));  // every neighbour breaks 8-wide accesses somewhere
  }
  // A size of 1 has no smaller neighbour: sizes are above 0.
  CHECK(labels(kbench::shapes_around(kbench::shape{{"n", 1}}, {}, {})) == std::vector<std::string>{"n=2"});
}

TEST_CASE("neighbours keep to the case's rules: a step of its multiple, within its bounds; flags stay", "[nearby]") {
  const kbench::dimension_rules rules{{"cols", kbench::multiple_of(8).at_most(8192)}, {"rows", kbench::at_least(37)}};
  CHECK(labels(kbench::shapes_around(rows_cols(37, 8192), rules, {})) ==
        std::vector<std::string>{"rows=38/cols=8192", "rows=37/cols=8184"});
  for (const kbench::shape& s : kbench::shapes_around(rows_cols(100, 4096), rules, {})) {
    CHECK(s["cols"] % 8 == 0);
    CHECK(s["rows"] >= 37);
  }
  // Head dims of pairs: 2 apart, neither a multiple of 16 (which a 16-byte path of fp16 pairs needs).
  const kbench::shape rope{{"tokens", 37}, {"head_dim", 80}, {"neox", 1}};
  CHECK(labels(kbench::shapes_around(rope, {{"head_dim", kbench::multiple_of(2)}}, {"neox"})) ==
        std::vector<std::string>{"tokens=36/head_dim=80/neox=1", "tokens=38/head_dim=80/neox=1",
                                 "tokens=37/head_dim=78/neox=1", "tokens=37/head_dim=82/neox=1"});
  // A rule that leaves one size only: no neighbour along it.
  CHECK(labels(kbench::shapes_around(kbench::shape{{"n", 64}}, {{"n", kbench::at_least(64).at_most(64)}}, {})).empty());
}

TEST_CASE("only cheap declared shapes get neighbours, and the smallest always", "[nearby]") {
  const std::vector<kbench::declared_shape_facts> rmsnorm = rmsnorm_shapes();
  CHECK(kbench::gets_nearby_shapes(rmsnorm, 0));
  CHECK_FALSE(kbench::gets_nearby_shapes(rmsnorm, 1));  // 268 million elements: a neighbour costs what it does
  CHECK(kbench::nearby_shapes(rmsnorm, 1, {}).empty());
  CHECK(kbench::nearby_shapes(rmsnorm, 0, {}).size() == 4);
  // A case whose every shape is large still gets the neighbours of its smallest.
  const std::vector<kbench::declared_shape_facts> large{{kbench::shape{{"n", 268435456}}, 268435457.0, {}},
                                                         {kbench::shape{{"n", 100000007}}, 100000008.0, {}}};
  CHECK(labels(kbench::nearby_shapes(large, 1, {})) == std::vector<std::string>{"n=100000006", "n=100000008"});
  CHECK(kbench::nearby_shapes(large, 0, {}).empty());
}

TEST_CASE("a neighbour that is declared, or an earlier shape's neighbour, runs once", "[nearby]") {
  const std::vector<kbench::declared_shape_facts> close{
      {rows_cols(8, 100), 800.0, {}}, {rows_cols(9, 100), 900.0, {}}, {rows_cols(10, 100), 1000.0, {}}};
  CHECK(labels(kbench::nearby_shapes(close, 0, {})) ==
        std::vector<std::string>{"rows=7/cols=100", "rows=8/cols=99", "rows=8/cols=101"});
  // rows=8 and rows=10 are declared; rows=9/cols=99 and 101 are new.
  CHECK(labels(kbench::nearby_shapes(close, 1, {})) == std::vector<std::string>{"rows=9/cols=99", "rows=9/cols=101"});
  CHECK(labels(kbench::nearby_shapes(close, 2, {})) ==
        std::vector<std::string>{"rows=11/cols=100", "rows=10/cols=99", "rows=10/cols=101"});
}

TEST_CASE("the option a failing neighbour prints runs that shape alone", "[nearby]") {
  const kbench::shape near = rows_cols(37, 1530);
  const std::string option = kbench::shape_option(near);
  CHECK(option == "--shape rows=37,cols=1530");
  CHECK(kbench::parse_shape(option.substr(std::string("--shape ").size())).to_string() == near.to_string());
  // That run's own shapes are exactly what it asks for: no neighbours of the neighbour.
  kbench::shape_request request;
  request.shapes.push_back(near);
  CHECK(labels(kbench::shapes_to_run({rows_cols(37, 1531)}, request)) == std::vector<std::string>{"rows=37/cols=1530"});
}

TEST_CASE("a quick run (--quick, KBENCH_QUICK) skips the extended checks", "[nearby]") {
  CHECK_FALSE(parse({"correctness"}).quick);
  CHECK(parse({"correctness", "--quick"}).quick);
  ::setenv("KBENCH_QUICK", "1", 1);
  const bool from_environment = parse({"correctness"}).quick;
  ::unsetenv("KBENCH_QUICK");
  CHECK(from_environment);
}

TEST_CASE("the results document says which declared shape a neighbour is near, and whether the run was quick", "[nearby]") {
  kbench::run_record run;
  run.quick = true;
  kbench::case_record& declared = run.cases.emplace_back();
  declared.case_name = "rmsnorm";
  declared.shape = rows_cols(37, 1531);
  kbench::case_record& near = run.cases.emplace_back();
  near.case_name = "rmsnorm";
  near.shape = rows_cols(37, 1530);
  near.near_shape = declared.shape;
  const nlohmann::ordered_json document = kbench::results_document(run);
  CHECK(document["options"]["quick"] == true);
  CHECK(document["cases"][0]["near_shape"].is_null());
  CHECK(document["cases"][1]["near_shape"] == nlohmann::ordered_json({{"rows", 37}, {"cols", 1531}}));
}

}  // namespace unit_nearby_shapes_test
