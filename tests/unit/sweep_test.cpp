// sweep.hpp and registry.hpp: shapes chosen at run time, axes on a registration, plain names.
#include <kbench/contract/registry.hpp>
#include <kbench/contract/registry_impl.hpp>  // once per program: no kbench library links into the unit tests
#include <kbench/decisions/sweep.hpp>

#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_sweep_test {  // one per file: the unit tests compile in unity batches

using kbench_test::contains;

namespace {

std::vector<std::string> labels(const std::vector<kbench::shape>& shapes) {
  std::vector<std::string> all;
  for (const kbench::shape& s : shapes) all.push_back(s.to_string());
  return all;
}

void no_case(kbench::kernel_case&) {}

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

}  // namespace unit_sweep_test
