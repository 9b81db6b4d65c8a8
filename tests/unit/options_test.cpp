// options.hpp: command line and environment, and their errors.
#include <kbench/program/options.hpp>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_options_test {  // one per file: the unit tests compile in unity batches

using kbench_test::contains;

namespace {

kbench::run_options parse(std::vector<std::string> args) {
  std::vector<const char*> argv{"kbench_program"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return kbench::parse_options(static_cast<int>(argv.size()), argv.data());
}

// Sets an environment variable for the lifetime of the object.
struct scoped_env {
  std::string name;
  scoped_env(const char* n, const char* value) : name(n) { ::setenv(n, value, 1); }
  ~scoped_env() { ::unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("defaults follow the users' procedure: 10 warm-ups, 100 timed runs, 3 fresh seeds", "[options]") {
  const kbench::run_options o = parse({"perf"});
  CHECK(o.mode == kbench::run_mode::perf);
  CHECK(o.warmup == 10);
  CHECK(o.iterations == 100);
  CHECK(o.seed_count == 3);
  CHECK(o.seeds.empty());
  CHECK_FALSE(o.require_gpu);
  CHECK(o.passthrough.empty());
}

TEST_CASE("the command line wins over the environment", "[options]") {
  scoped_env iterations("KBENCH_ITERATIONS", "250");
  scoped_env warmup("KBENCH_WARMUP", "3");
  scoped_env require("KBENCH_REQUIRE_GPU", "1");
  const kbench::run_options from_env = parse({"perf"});
  CHECK(from_env.iterations == 250);
  CHECK(from_env.warmup == 3);
  CHECK(from_env.require_gpu);
  CHECK(parse({"perf", "--iterations", "40"}).iterations == 40);
}

TEST_CASE("seeds are pinned in decimal or hex; the rest passes through", "[options]") {
  const kbench::run_options o = parse({"correctness", "--seed", "0x10,42", "-s", "--reporter", "compact"});
  CHECK(o.seeds == std::vector<std::uint64_t>{16, 42});
  CHECK(o.passthrough == std::vector<std::string>{"-s", "--reporter", "compact"});
  CHECK(kbench::seeds_for_run(o) == o.seeds);
  // A pinned seed takes one value: a test name after it passes through.
  const kbench::run_options named = parse({"correctness", "--seed", "1", "rmsnorm/rows=37/cols=1531"});
  CHECK(named.seeds == std::vector<std::uint64_t>{1});
  CHECK(named.passthrough == std::vector<std::string>{"rmsnorm/rows=37/cols=1531"});
  CHECK_THROWS_WITH(parse({"correctness", "--seed", "1,,2"}), contains("'' is not an unsigned integer"));
  scoped_env seeds("KBENCH_SEEDS", "7");
  CHECK(parse({"correctness"}).seeds == std::vector<std::uint64_t>{7});
}

TEST_CASE("fresh seeds differ from run to run", "[options]") {
  kbench::run_options o = parse({"correctness", "--seed-count", "5"});
  const auto a = kbench::seeds_for_run(o), b = kbench::seeds_for_run(o);
  REQUIRE(a.size() == 5);
  CHECK(std::set<std::uint64_t>(a.begin(), a.end()).size() == 5);
  CHECK(a != b);
}

TEST_CASE("bad values are one-line usage errors naming the option", "[options]") {
  CHECK_THROWS_WITH(parse({}), contains("mode is required"));
  CHECK_THROWS_WITH(parse({"timing"}), contains("unknown mode 'timing'"));
  CHECK_THROWS_WITH(parse({"perf", "--iterations", "0"}), contains("--iterations"));
  CHECK_THROWS_WITH(parse({"perf", "--warmup", "ten"}), contains("--warmup"));
  CHECK_THROWS_WITH(parse({"correctness", "--seed", "0xZZ"}), contains("'0xZZ' is not an unsigned integer"));
  CHECK_THROWS_WITH(parse({"correctness", "--seed", "-1"}), contains("'-1' is not an unsigned integer"));
  CHECK_THROWS_WITH(parse({"correctness", "--seed-count", "0"}), contains("--seed-count"));
  {
    scoped_env bad("KBENCH_ITERATIONS", "lots");
    CHECK_THROWS_AS(parse({"perf"}), kbench::usage_error);
  }
  {
    scoped_env bad("KBENCH_REQUIRE_GPU", "maybe");
    CHECK_THROWS_AS(parse({"perf"}), kbench::usage_error);
  }
  {
    scoped_env bad("CTEST_RESOURCE_GROUP_0_GPUS", "slots:1");
    CHECK_THROWS_WITH(parse({"perf"}), contains("names no id"));
  }
}

TEST_CASE("CTest resource groups pick the GPU unless one is named", "[options]") {
  scoped_env gpu("CTEST_RESOURCE_GROUP_0_GPUS", "id:3,slots:1");
  CHECK(parse({"perf"}).device == 3);
  CHECK(parse({"perf"}).device_source == "CTest resource group (CTEST_RESOURCE_GROUP_0_GPUS=id:3,slots:1)");
  CHECK(parse({"perf", "--device", "1"}).device == 1);
  CHECK(parse({"perf", "--device", "1"}).device_source == "--device / KBENCH_DEVICE");
}

TEST_CASE("the GPUs of a case that spans devices: --devices, or one per CTest resource group", "[options][devices]") {
  CHECK(parse({"perf"}).devices.empty());  // the runner then takes the program's device and the others in order
  const kbench::run_options listed = parse({"perf", "--devices", "2,0,3"});
  CHECK(listed.devices == std::vector<int>{2, 0, 3});
  CHECK(listed.device == 2);  // the first is the program's device
  CHECK(listed.device_source == "--devices / KBENCH_DEVICES");
  CHECK(parse({"perf", "--device", "2", "--devices", "2,1"}).devices == std::vector<int>{2, 1});
  CHECK_THROWS_WITH(parse({"perf", "--device", "1", "--devices", "2,1"}), contains("disagree"));
  CHECK_THROWS_WITH(parse({"perf", "--devices", "0,1,0"}), contains("GPU 0 is listed twice"));
  CHECK_THROWS_WITH(parse({"perf", "--devices", "0,x"}), contains("'x' in '0,x' is not a GPU ordinal"));
  CHECK_THROWS_WITH(parse({"perf", "--devices", "0,-1"}), contains("is not a GPU ordinal"));
  CHECK_THROWS_WITH(parse({"perf", "--devices", ","}), contains("'' in ',' is not a GPU ordinal"));
  CHECK_FALSE(parse({"perf"}).share_devices);
  CHECK(parse({"perf", "--share-devices"}).share_devices);
  CHECK(parse({"perf", "--device-count", "4"}).device_count == 4);
  CHECK_THROWS_AS(parse({"perf", "--device-count", "65"}), kbench::usage_error);
  {
    // "4,gpus:1": four resource groups, one GPU each, in group order.
    scoped_env count("CTEST_RESOURCE_GROUP_COUNT", "3");
    scoped_env g0("CTEST_RESOURCE_GROUP_0_GPUS", "id:5,slots:1");
    scoped_env g1("CTEST_RESOURCE_GROUP_1_GPUS", "id:2,slots:1");
    scoped_env g2("CTEST_RESOURCE_GROUP_2_GPUS", "id:7,slots:1");
    const kbench::run_options o = parse({"perf"});
    CHECK(o.device == 5);
    CHECK(o.devices == std::vector<int>{5, 2, 7});
  }
  {
    scoped_env count("CTEST_RESOURCE_GROUP_COUNT", "2");
    scoped_env g0("CTEST_RESOURCE_GROUP_0_GPUS", "id:1,slots:1");
    CHECK_THROWS_WITH(parse({"perf"}), contains("group 1 has no GPUs"));
  }
}

TEST_CASE("timing options: modes, precision, limits and the JSON path", "[options]") {
  const kbench::run_options d = parse({"perf"});
  CHECK(d.timing == kbench::timing_mode::automatic);
  CHECK(d.precision == 0.005);
  CHECK(d.json_path.empty());
  const kbench::run_options o =
      parse({"perf", "--timing", "hot", "--precision", "0.01", "--max-time", "2", "--json", "/tmp/r.json"});
  CHECK(o.timing == kbench::timing_mode::hot);
  CHECK(o.precision == 0.01);
  CHECK(o.max_time == 2.0);
  CHECK(o.json_path == "/tmp/r.json");
  CHECK_THROWS_WITH(parse({"perf", "--timing", "warm"}), contains("--timing"));
  CHECK_THROWS_WITH(parse({"perf", "--precision", "0"}), contains("--precision"));
  CHECK_THROWS_WITH(parse({"perf", "--max-iterations", "50"}), contains("below --iterations"));
  scoped_env json("KBENCH_JSON", "/tmp/from-env.json");
  CHECK(parse({"correctness"}).json_path == "/tmp/from-env.json");
}

TEST_CASE("input sets: auto, beyond-cache or a count; anything else is an error", "[options]") {
  CHECK(parse({"perf"}).input_sets == kbench::input_sets_auto);
  CHECK(parse({"perf", "--input-sets", "beyond-cache"}).input_sets == kbench::input_sets_beyond_cache);
  CHECK(parse({"perf", "--input-sets", "1"}).input_sets == 1);
  CHECK(parse({"perf", "--input-sets", "64"}).input_sets == 64);
  for (const char* bad : {"0", "-2", "4097", "3x", "", "many", "beyond"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(parse({"perf", "--input-sets", bad}), contains("--input-sets / KBENCH_INPUT_SETS"));
  }
  scoped_env sets("KBENCH_INPUT_SETS", "8");
  CHECK(parse({"perf"}).input_sets == 8);
  CHECK(parse({"perf", "--input-sets", "auto"}).input_sets == kbench::input_sets_auto);
}

TEST_CASE("--help lists kbench's modes and options with defaults and variables, before the framework's", "[options]") {
  for (const char* flag : {"-h", "--help"}) {
    const kbench::run_options o = parse({flag});
    CHECK(o.help);
    CHECK(o.mode == kbench::run_mode::list);  // no mode: kbench's help alone
    CHECK_THAT(o.help_text, contains("correctness  check every case"));
    CHECK_THAT(o.help_text, contains("--iterations INT"));
    CHECK_THAT(o.help_text, contains("[default 100, env KBENCH_ITERATIONS]"));
    CHECK_THAT(o.help_text, contains("--timing TEXT"));
    CHECK_THAT(o.help_text, contains("default auto"));
    CHECK_THAT(o.help_text, contains("env KBENCH_BASELINE"));
  }
  const kbench::run_options perf = parse({"perf", "--help"});
  CHECK(perf.mode == kbench::run_mode::perf);
  CHECK(perf.passthrough == std::vector<std::string>{"--help"});  // then Google Benchmark's own
}

TEST_CASE("shapes and axes at run time, and report-file options", "[options]") {
  const kbench::run_options o = parse({"perf", "--shape", "rows=4096,cols=8192", "--shape", "rows=1/cols=3", "--axis",
                                       "cols=1024:8192:x2", "--markdown", "r.md", "--csv", "r.csv", "--baseline",
                                       "old.json", "--baseline-threshold", "0.1"});
  REQUIRE(o.shapes.shapes.size() == 2);
  CHECK(o.shapes.shapes[0].to_string() == "rows=4096/cols=8192");
  CHECK(o.shapes.shapes[1].to_string() == "rows=1/cols=3");
  REQUIRE(o.shapes.axes.size() == 1);
  CHECK(o.shapes.axes[0].values == std::vector<std::int64_t>{1024, 2048, 4096, 8192});
  CHECK(o.markdown_path == "r.md");
  CHECK(o.csv_path == "r.csv");
  CHECK(o.baseline_path == "old.json");
  CHECK(o.baseline_threshold == 0.1);
  const scoped_env axis("KBENCH_AXIS", "rows=1,2");
  CHECK(parse({"perf"}).shapes.axes.at(0).values == std::vector<std::int64_t>{1, 2});
  CHECK_THROWS_AS(parse({"perf", "--shape", "rows=0"}), kbench::usage_error);
  CHECK_THROWS_AS(parse({"perf", "--axis", "cols"}), kbench::usage_error);
  CHECK_THROWS_AS(parse({"perf", "--baseline-threshold", "-1"}), kbench::usage_error);
}

TEST_CASE("a test changed on purpose: --intended-change or KBENCH_INTENDED_CHANGE", "[options]") {
  CHECK_FALSE(parse({"perf", "--baseline", "old.json"}).intended_change);
  CHECK(parse({"perf", "--baseline", "old.json", "--intended-change"}).intended_change);
  const scoped_env intended("KBENCH_INTENDED_CHANGE", "1");
  CHECK(parse({"perf"}).intended_change);
}

}  // namespace unit_options_test
