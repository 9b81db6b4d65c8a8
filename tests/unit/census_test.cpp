// census.hpp: what a case expects of its optimized kernels, and the census table.
#include <kbench/decisions/census_judge.hpp>
#include <kbench/reports/census_report.hpp>
#include <kbench/results/census.hpp>

#include <string>

#include "../catch.hpp"

namespace unit_census_test {  // one per file: the unit tests compile in unity batches

using kbench_test::contains;

namespace {

kbench::census_kernel kernel(const char* name, int registers, double occupancy, double seconds) {
  kbench::census_kernel k;
  k.name = name;
  k.symbol = std::string("_Z") + name;
  k.grid[0] = 37;
  k.block[0] = 256;
  k.registers = registers;
  k.static_shared_bytes = 1024;
  k.local_bytes = 0;
  k.blocks_per_unit = 8;
  k.waves_per_unit = 64;
  k.waves_per_simd = 16.0;
  k.occupancy = occupancy;
  k.median_seconds = seconds;
  return k;
}

kbench::case_census census_of(int kernels) {
  kbench::case_census c;
  c.platform = "nvidia";
  c.optimized.captured = true;
  for (int i = 0; i < kernels; ++i) c.optimized.kernels.push_back(kernel("fused", 40, 0.5, 10e-6));
  c.optimized.whole_seconds = 10e-6 * kernels;
  kbench::census_side reference;
  reference.captured = true;
  reference.kernels = {kernel("add", 16, 1.0, 4e-6), kernel("norm", 32, 0.75, 5e-6), kernel("weight", 16, 1.0, 4e-6)};
  reference.kernels[0].in_side_seconds = 4e-6;    // first: its place is alone
  reference.kernels[1].in_side_seconds = 4.5e-6;  // behind "add", whose output it reads from the cache
  // reference.kernels[2]: not timed in place (an earlier node could not be replayed): its share is alone
  reference.whole_seconds = 13.5e-6;
  c.reference = reference;
  return c;
}

}  // namespace

TEST_CASE("who does the work: the reference's own kernels, or a library's, is a note", "[census]") {
  kbench::case_census own = census_of(1);
  CHECK(kbench::note_whose_kernels(own).empty());  // a kernel of its own
  kbench::case_census same = census_of(0);
  same.optimized.kernels = same.reference->kernels;
  const auto reference = kbench::note_whose_kernels(same);
  REQUIRE(reference.size() == 1);
  CHECK_FALSE(reference[0].fails());
  CHECK(contains("launches exactly the reference's kernels (add, norm, weight)").match(reference[0].text));
  same.optimized.kernels.pop_back();  // a part of the reference's kernels: its own too, perhaps
  CHECK(kbench::note_whose_kernels(same).empty());
  kbench::case_census library = census_of(0);
  library.optimized.kernels = {kernel("void cutlass::Kernel2<cutlass_80_gemm>(Params)", 128, 0.25, 5e-6),
                               kernel("Cijk_Alik_Bljk_HHS_BH_MT128x128", 128, 0.25, 5e-6), kernel("fused", 40, 0.5, 1e-6)};
  const auto libraries = kbench::note_whose_kernels(library);
  REQUIRE(libraries.size() == 2);
  CHECK(contains("done by CUTLASS kernels, which the reference does not use").match(libraries[0].text));
  CHECK(contains("rocBLAS (Tensile)").match(libraries[1].text));
  library.reference->kernels.push_back(kernel("cutlass::Kernel<ref>", 64, 0.5, 1e-6));  // the reference uses it too
  CHECK(kbench::note_whose_kernels(library).size() == 1);
  CHECK(kbench::library_of_kernel("at::native::vectorized_elementwise_kernel<4>") == "PyTorch (ATen)");
  CHECK(kbench::library_of_kernel("rmsnorm_v2::kernel<__half>").empty());
  kbench::case_census unlisted = census_of(2);
  unlisted.optimized.captured = false;
  CHECK(kbench::note_whose_kernels(unlisted).empty());
}

TEST_CASE("no expectations: nothing to find", "[census]") {
  CHECK(kbench::judge_census(census_of(3), {}).empty());
}

TEST_CASE("a declared fusion, a register bound and an occupancy floor are checked", "[census]") {
  kbench::census_expectations e;
  e.kernels = 1;
  CHECK(kbench::judge_census(census_of(1), e).empty());
  const auto two = kbench::judge_census(census_of(2), e);
  REQUIRE(two.size() == 1);
  CHECK(two[0].kind == kbench::finding_kind::census_mismatch);
  CHECK(two[0].fails());
  CHECK(two[0].text == "the optimized side launches 2 kernels (fused, fused), the case expects 1");
  e.max_registers = 32;
  e.min_occupancy = 0.6;
  const auto bounds = kbench::judge_census(census_of(1), e);
  REQUIRE(bounds.size() == 2);
  CHECK_THAT(bounds[0].text, contains("kernel fused uses 40 registers per thread, the case allows at most 32"));
  CHECK_THAT(bounds[1].text, contains("theoretical occupancy of 50% (8 blocks of 256 threads per compute unit)"));
  kbench::case_census uncaptured = census_of(1);
  uncaptured.optimized = {};
  uncaptured.optimized.reason = "hipErrorStreamCaptureUnsupported";
  const auto refused = kbench::judge_census(uncaptured, e);
  REQUIRE(refused.size() == 1);
  CHECK_THAT(refused[0].text, contains("could not be captured to list them: hipErrorStreamCaptureUnsupported"));
}

TEST_CASE("the census table: both sides, per-kernel time alone and in place, share, resources, and how the parts "
          "add up", "[census]") {
  const std::string text = kbench::format_census("add_rmsnorm/rows=37/cols=1531", census_of(1));
  CHECK_THAT(text, contains("census add_rmsnorm/rows=37/cols=1531\n"));
  CHECK_THAT(text, contains("  reference: 3 kernels, 0 copies, 0 memsets\n"));
  CHECK_THAT(text, contains("  optimized: 1 kernel, 0 copies, 0 memsets\n"));
  CHECK_THAT(text, contains("warps/SM"));
  CHECK_THAT(text, contains("   us alone   in side  share"));
  CHECK_THAT(text, contains("         5.00      4.50    36%                37x1x1      256x1x1    32    1024      0        64     75%"
                            "               -  norm\n"));
  CHECK_THAT(text, contains("         4.00         -    32%                37x1x1      256x1x1    16    1024      0        64    100%"
                            "               -  weight\n"));
  CHECK_THAT(text, contains("    in their places the parts add up to 12.50 us; the whole launch, timed the same way, 13.50 us "
                            "(-7.4%)\n"));
  CHECK_THAT(text, contains("  kernels: 3 in the reference, 1 in the optimized side\n"));
  kbench::case_census amd = census_of(1);
  amd.platform = "amd";
  CHECK_THAT(kbench::format_census("x", amd), contains("waves/SIMD"));
  // The build's figures for the device's target beside the runtime's, and the profiler ranges' marker.
  kbench::case_census built = census_of(1);
  built.optimized.kernels[0].built_registers = 32;
  built.optimized.kernels[0].built_static_shared_bytes = 1024;
  built.optimized.kernels[0].built_local_bytes = 0;
  built.profiler_launches = 1;
  built.profiler_ranges = "NVTX";
  const std::string with_built = kbench::format_census("x", built);
  CHECK_THAT(with_built, contains("built r/s/l"));
  CHECK_THAT(with_built, contains("     32/1024/0  "));
  CHECK_THAT(with_built, contains("profiler ranges \"kbench census reference\" and \"kbench census optimized\", 1 launch of "
                                  "each side: NVTX"));
}

}  // namespace unit_census_test
