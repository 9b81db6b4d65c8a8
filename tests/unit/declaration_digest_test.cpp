// declaration_digest.hpp and case_digest.hpp: a declaration's canonical text and its digest are stable, and
// every part of a declaration (and of a side's census) moves the digest when it changes.
#include <kbench/contract/declaration_digest.hpp>
#include <kbench/results/case_digest.hpp>
#include <kbench/reports/json_report.hpp>

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../catch.hpp"

namespace unit_declaration_digest_test {  // one per file: the unit tests compile in unity batches

using kbench::detail::declaration_facts;

namespace {

double row_of(std::size_t i) { return static_cast<double>(i / 1531); }

declaration_facts sample_facts() {
  declaration_facts f;
  f.name = "rmsnorm";
  f.shape = kbench::shape{{"rows", 37}, {"cols", 1531}};
  f.registered_shapes = {f.shape, kbench::shape{{"rows", 16384}, {"cols", 8192}}};
  kbench::detail::buffer_facts x;
  x.layout = {"x", kbench::buffer_role::input, kbench::dtype::f16, {37, 1531}, 37 * 1531, 0, 0};
  x.init = kbench::uniform(-2, 2);
  kbench::detail::buffer_facts y;
  y.layout = {"y", kbench::buffer_role::output, kbench::dtype::f16, {37, 1531}, 37 * 1531, 0, 0};
  y.compared = kbench::make_tolerance(kbench::tol::allclose{1e-3, 1e-5});
  f.buffers = {x, y};
  f.reference = "device";
  f.optimized = "device";
  f.work.bytes = 2.0 * 2 * 37 * 1531;
  return f;
}

std::string digest(const declaration_facts& f) { return kbench::detail::digest_of_lines(kbench::detail::declaration_lines(f)); }

kbench::census_side sample_side() {
  kbench::census_side side;
  side.captured = true;
  kbench::census_kernel& k = side.kernels.emplace_back();
  k.name = "rmsnorm_kernel(__half const*, __half*, int)";
  k.symbol = "_Z14rmsnorm_kernelPK6__halfPS_i";
  k.grid[0] = 37;
  k.block[0] = 256;
  k.registers = 32;
  k.static_shared_bytes = 1024;
  k.local_bytes = 0;
  k.max_threads_per_block = 1024;
  k.median_seconds = 1e-5;
  return side;
}

}  // namespace

TEST_CASE("FNV-1a 64 gives the published values", "[digest]") {
  CHECK(kbench::detail::fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(kbench::detail::fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(kbench::detail::fnv1a64("foobar") == 0x85944171f73967e8ull);
  CHECK(kbench::detail::digest_text(0xaf63dc4c8601ec8cull) == "fnv1a64:af63dc4c8601ec8c");
}

TEST_CASE("a declaration's text is canonical and its digest stable", "[digest]") {
  const std::vector<std::string> lines = kbench::detail::declaration_lines(sample_facts());
  REQUIRE(lines.size() == 14);
  CHECK(lines[0] == "case rmsnorm");
  CHECK(lines[1] == "shape rows=37/cols=1531");
  CHECK(lines[2] == "registered shapes rows=37/cols=1531; rows=16384/cols=8192");
  CHECK(lines[3] == "buffer in x fp16 [37 x 1531] pitch 0 device 0 init uniform(-2, 2)");
  CHECK_THAT(lines[4], kbench_test::contains("buffer out y fp16 [37 x 1531] pitch 0 device 0 tolerance within(atol=1.0000000000000001e-05, rtol=0.001"));
  CHECK(lines[9] == "requires speedup=0 bandwidth=0 allows speedup up to 10");
  // The same declaration, built again, has the same digest; this value is pinned so that a change of the
  // canonical text (which every pipeline would see as a changed test) is a decision, not an accident.
  CHECK(digest(sample_facts()) == digest(sample_facts()));
  CHECK(digest(sample_facts()) == kbench::detail::digest_of_lines(lines));
  CHECK(digest(sample_facts()) == "fnv1a64:d4a2276581ab99b8");
}

TEST_CASE("every part of a declaration moves its digest", "[digest]") {
  using change = std::function<void(declaration_facts&)>;
  const std::vector<std::pair<const char*, change>> changes = {
      {"a tolerance raised", [](declaration_facts& f) { f.buffers[1].compared = kbench::make_tolerance(kbench::tol::allclose{2e-3, 1e-5}); }},
      {"a tolerance's last bit", [](declaration_facts& f) { f.buffers[1].compared->element_rules[0].atol = std::nextafter(1e-5, 1.0); }},
      {"a mismatch fraction allowed", [](declaration_facts& f) { f.buffers[1].compared->max_mismatch_fraction = 1e-3; }},
      {"a cosine floor", [](declaration_facts& f) { f.buffers[1].compared->min_cosine = 0.99; }},
      {"equal NaN", [](declaration_facts& f) { f.buffers[1].compared->equal_nan = true; }},
      {"a distribution narrowed", [](declaration_facts& f) { f.buffers[0].init = kbench::uniform(-1, 1); }},
      {"a distribution's kind", [](declaration_facts& f) { f.buffers[0].init = kbench::normal(-2, 2); }},
      {"a constant input", [](declaration_facts& f) { f.buffers[0].init = kbench::constant(-2); }},
      {"a choice's weight", [](declaration_facts& f) { f.buffers[0].init = kbench::choice(-2, 2, 0.5); }},
      {"a choice's other value", [](declaration_facts& f) { f.buffers[0].init = kbench::choice(-2, 3, 0.5); }},
      {"a function of the index", [](declaration_facts& f) { f.buffers[0].init = kbench::from_index("row", row_of); }},
      {"that function renamed", [](declaration_facts& f) { f.buffers[0].init = kbench::from_index("row v2", row_of); }},
      {"a dtype", [](declaration_facts& f) { f.buffers[0].layout.type = kbench::dtype::bf16; }},
      {"an extent", [](declaration_facts& f) { f.buffers[0].layout.extents = {1531, 37}; }},
      {"a pitch", [](declaration_facts& f) { f.buffers[0].layout.pitch = 1536; }},
      {"a buffer's device", [](declaration_facts& f) { f.buffers[0].layout.device = 1; }},
      {"a buffer's role", [](declaration_facts& f) { f.buffers[1].layout.role = kbench::buffer_role::inout; }},
      {"a buffer dropped", [](declaration_facts& f) { f.buffers.pop_back(); }},
      {"a shape dropped", [](declaration_facts& f) { f.registered_shapes.pop_back(); }},
      {"the shape", [](declaration_facts& f) { f.shape = kbench::shape{{"rows", 38}, {"cols", 1531}}; }},
      {"a host reference", [](declaration_facts& f) { f.reference = "host"; }},
      {"a launch per device", [](declaration_facts& f) { f.optimized = "device, a stream per device"; }},
      {"devices", [](declaration_facts& f) { f.devices = 2; }},
      {"peer access", [](declaration_facts& f) { f.requires_peer_access = true; }},
      {"the bytes moved", [](declaration_facts& f) { f.work.bytes *= 2; }},
      {"the flops", [](declaration_facts& f) { f.work.flops = 1; }},
      {"the flops' arithmetic", [](declaration_facts& f) {
         f.work.flops = 1;
         f.work.flop_type = kbench::dtype::f16;
       }},
      {"the flops on matrix units", [](declaration_facts& f) {
         f.work.flops = 1;
         f.work.matrix_units = true;
       }},
      {"the tokens", [](declaration_facts& f) { f.work.tokens = 1; }},
      {"the link bytes", [](declaration_facts& f) { f.work.link_bytes = 1; }},
      {"the calls per layer", [](declaration_facts& f) { f.work.calls_per_layer = 2; }},
      {"the calls per token", [](declaration_facts& f) { f.work.calls_per_token = 64; }},
      {"a speedup required", [](declaration_facts& f) { f.expectations.required_speedup = 1.5; }},
      {"a bandwidth required", [](declaration_facts& f) { f.expectations.required_bandwidth = 0.5; }},
      {"allow_speedup_up_to raised", [](declaration_facts& f) { f.expectations.max_plausible_speedup = 100; }},
      {"allow_speedup_up_to declared", [](declaration_facts& f) { f.expectations.speedup_limit_declared = true; }},
      {"kernels expected", [](declaration_facts& f) { f.census.kernels = 1; }},
      {"registers expected", [](declaration_facts& f) { f.census.max_registers = 64; }},
      {"occupancy expected", [](declaration_facts& f) { f.census.min_occupancy = 0.5; }},
      {"a resource bound", [](declaration_facts& f) {
         kbench::resource_bound& b = f.resource_bounds.emplace_back();
         b.kernels = "rmsnorm";
         b.vgprs_at_most(64);
       }},
      {"a resource bound's target", [](declaration_facts& f) {
         kbench::resource_bound& b = f.resource_bounds.emplace_back();
         b.kernels = "rmsnorm";
         b.target = "gfx90a";
         b.vgprs_at_most(64);
       }},
      {"deterministic", [](declaration_facts& f) { f.deterministic = true; }},
      {"an oracle", [](declaration_facts& f) { f.oracle = true; }},
      {"an oracle's ratio", [](declaration_facts& f) {
         f.oracle = true;
         f.oracle_ratio = 4;
       }},
      {"an alignment required", [](declaration_facts& f) { f.requires_alignment = 16; }},
      {"the name", [](declaration_facts& f) { f.name = "rmsnorm2"; }},
  };
  const std::string before = digest(sample_facts());
  std::vector<std::string> seen{before};
  for (const auto& [what, apply] : changes) {
    declaration_facts f = sample_facts();
    apply(f);
    INFO(what);
    const std::string after = digest(f);
    CHECK(after != before);
    seen.push_back(after);
  }
  // An oracle's ratio counts only with an oracle: the ratio alone is not declared.
  declaration_facts ratio_alone = sample_facts();
  ratio_alone.oracle_ratio = 4;
  CHECK(digest(ratio_alone) == before);
  // A function of the index is known by its name alone: its code, changed, moves nothing.
  declaration_facts named = sample_facts(), same_name = sample_facts();
  named.buffers[0].init = kbench::from_index("row", row_of);
  same_name.buffers[0].init = kbench::from_index("row", [](std::size_t i) { return i / 7; });
  CHECK(kbench::detail::buffer_line(named.buffers[0]) ==
        "buffer in x fp16 [37 x 1531] pitch 0 device 0 init from_index(\"row\")");
  CHECK(digest(same_name) == digest(named));
}

// The Python module's padded_gather (tests/python/test_declared_verbs.py), as facts_of() makes it from a
// kernel_case: a padded input, a function of the index, scratch sized on the GPU and by a count, an oracle and
// the census's bounds. Both pin the same digest.
TEST_CASE("a declaration of the Python module's later verbs has the Python module's digest", "[digest]") {
  declaration_facts f = sample_facts();
  f.name = "padded_gather";
  f.buffers[0].layout.pitch = 1536;  // leading_dimension(x, 1536)
  kbench::detail::buffer_facts token;
  token.layout = {"token", kbench::buffer_role::input, kbench::dtype::i32, {37}, 37, 0, 0};
  token.init = kbench::from_index("i mod 7", [](std::size_t i) { return i % 7; });
  kbench::detail::buffer_facts workspace;  // scratch_bytes("workspace", query)
  workspace.layout = {"workspace", kbench::buffer_role::scratch, kbench::dtype::u8, {1}, 1, 0, 0, true};
  kbench::detail::buffer_facts partials;  // scratch_bytes("partials", 256)
  partials.layout = {"partials", kbench::buffer_role::scratch, kbench::dtype::u8, {256}, 256, 0, 0};
  f.buffers.insert(f.buffers.begin() + 1, {token, workspace, partials});
  f.buffers.back().compared = kbench::default_tolerance(kbench::dtype::f16);
  f.oracle = true;
  f.oracle_ratio = 3;
  f.census.max_registers = 64;
  f.census.min_occupancy = 0.5;
  const std::vector<std::string> lines = kbench::detail::declaration_lines(f);
  CHECK(lines[3] == "buffer in x fp16 [37 x 1531] pitch 1536 device 0 init uniform(-2, 2)");
  CHECK(lines[5] == "buffer scratch workspace uint8 [sized on the GPU] pitch 0 device 0");
  CHECK(digest(f) == "fnv1a64:72cd87a94c8f48f1");
}

TEST_CASE("a census digest moves with the kernels, not with their times", "[digest]") {
  const kbench::census_side side = sample_side();
  const std::string before = *kbench::detail::kernels_digest(side);
  kbench::census_side timed = side;
  timed.kernels[0].median_seconds = 2e-5;
  timed.kernels[0].in_side_seconds = 3e-5;
  timed.whole_seconds = 1.0;
  CHECK(*kbench::detail::kernels_digest(timed) == before);
  using change = std::function<void(kbench::census_side&)>;
  const std::vector<std::pair<const char*, change>> changes = {
      {"another kernel", [](kbench::census_side& s) { s.kernels[0].symbol = "_Z11slow_kernelv"; }},
      {"a second kernel", [](kbench::census_side& s) { s.kernels.push_back(s.kernels[0]); }},
      {"the grid", [](kbench::census_side& s) { s.kernels[0].grid[1] = 2; }},
      {"the block", [](kbench::census_side& s) { s.kernels[0].block[0] = 128; }},
      {"dynamic shared memory", [](kbench::census_side& s) { s.kernels[0].dynamic_shared_bytes = 4096; }},
      {"registers", [](kbench::census_side& s) { s.kernels[0].registers = 40; }},
      {"static shared memory", [](kbench::census_side& s) { s.kernels[0].static_shared_bytes = 0; }},
      {"spills", [](kbench::census_side& s) { s.kernels[0].local_bytes = 64; }},
      {"a copy", [](kbench::census_side& s) { s.copies = 1; }},
      {"a memset", [](kbench::census_side& s) { s.memsets = 1; }},
  };
  for (const auto& [what, apply] : changes) {
    kbench::census_side s = side;
    apply(s);
    INFO(what);
    CHECK(*kbench::detail::kernels_digest(s) != before);
  }
  kbench::census_side missed = side;
  missed.captured = false;
  CHECK_FALSE(kbench::detail::kernels_digest(missed).has_value());
  CHECK_FALSE(kbench::detail::kernels_digest(std::optional<kbench::census_side>()).has_value());
}

TEST_CASE("the results carry each case's declaration and its kernels' digests", "[digest]") {
  kbench::run_record run;
  run.mode = kbench::run_mode::perf;
  kbench::case_record& c = run.cases.emplace_back();
  c.case_name = "rmsnorm";
  c.shape = kbench::shape{{"rows", 37}, {"cols", 1531}};
  c.declaration = kbench::detail::declaration_lines(sample_facts());
  c.census = kbench::case_census{};
  c.census->reference = sample_side();
  c.census->optimized = sample_side();
  c.census->optimized.captured = false;
  kbench::case_record& bare = run.cases.emplace_back();
  bare.case_name = "other";
  const nlohmann::ordered_json doc = kbench::results_document(run);
  CHECK(doc["complete"] == true);
  CHECK(doc["incomplete_reason"].is_null());
  const nlohmann::ordered_json& declared = doc["cases"][0]["declaration"];
  CHECK(declared["digest"] == digest(sample_facts()));
  CHECK(declared["lines"].size() == c.declaration.size());
  CHECK(doc["cases"][0]["kernels_digest"]["reference"] == *kbench::detail::kernels_digest(sample_side()));
  CHECK(doc["cases"][0]["kernels_digest"]["optimized"].is_null());
  CHECK(doc["cases"][1]["declaration"].is_null());
  CHECK(doc["cases"][1]["kernels_digest"].is_null());
}

}  // namespace unit_declaration_digest_test
