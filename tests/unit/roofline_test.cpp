// roofline.hpp: a case's work against the device's memory and arithmetic ceilings.
#include <kbench/results/roofline.hpp>

#include <vector>

#include "../catch.hpp"

namespace unit_roofline_test {  // one per file: the unit tests compile in unity batches

namespace {

const std::vector<kbench::compute_peak> peaks = {{kbench::dtype::f32, 60e12, "fp32 FMA"},
                                                 {kbench::dtype::f64, 30e12, "fp64 FMA"}};

kbench::roofline_ceilings ceilings(bool memory_binds, kbench::dtype arithmetic = kbench::dtype::f32) {
  kbench::roofline_ceilings c;
  c.memory_bytes_per_second = 4e12;  // ridge at 15 FLOP/B for f32
  c.peak = kbench::peak_for(peaks, arithmetic);
  c.memory_binds = memory_binds;
  return c;
}

kbench::work_model work(double bytes, double flops) {
  kbench::work_model w;
  w.bytes = bytes;
  w.flops = flops;
  return w;
}

}  // namespace

TEST_CASE("below the ridge a case is memory-bound, its floor the bytes at the memory ceiling", "[roofline]") {
  const kbench::roofline r = kbench::roofline_of(work(4e9, 1e9), ceilings(true), 1.25e-3, 2.5e-3);
  CHECK(r.intensity == Approx(0.25));
  CHECK(r.bound == "memory");
  CHECK(r.attainable_flops_per_second == Approx(1e12));
  CHECK(r.binding == "memory");
  CHECK(r.floor_seconds == Approx(1e-3));
  CHECK(r.optimized_share == Approx(0.8));
  REQUIRE(r.reference_share);
  CHECK(*r.reference_share == Approx(0.4));
}

TEST_CASE("above the ridge a case is compute-bound, its floor the flops at its arithmetic's peak", "[roofline]") {
  const kbench::roofline r = kbench::roofline_of(work(1e9, 60e9), ceilings(true), 2e-3, std::nullopt);
  CHECK(r.bound == "compute");
  CHECK(r.binding == "compute");
  CHECK(r.attainable_flops_per_second == Approx(60e12));
  CHECK(r.floor_seconds == Approx(1e-3));
  CHECK(r.optimized_share == Approx(0.5));
  CHECK_FALSE(r.reference_share);
  // In f64 the same work meets a peak half as high.
  const kbench::roofline f64 = kbench::roofline_of(work(1e9, 60e9), ceilings(true, kbench::dtype::f64), 2e-3, std::nullopt);
  CHECK(f64.floor_seconds == Approx(2e-3));
  CHECK(f64.peak_how == "fp64 FMA");
}

TEST_CASE("memory binds only when the cache cannot serve the work; without flops nothing else does", "[roofline]") {
  const kbench::roofline hot = kbench::roofline_of(work(4e9, 0), ceilings(false), 1e-3, 2e-3);
  CHECK(hot.bound == "memory");
  CHECK(hot.floor_seconds == 0);
  CHECK(hot.binding.empty());
  CHECK(hot.optimized_share == 0);
  CHECK_FALSE(hot.reference_share);
  // Hot with flops: the arithmetic still bounds it (for plausibility), but a memory-bound case's share of a
  // ceiling it does not meet first would say nothing.
  const kbench::roofline hot_flops = kbench::roofline_of(work(4e9, 30e9), ceilings(false), 1e-3, 2e-3);
  CHECK(hot_flops.bound == "memory");
  CHECK(hot_flops.binding == "compute");
  CHECK(hot_flops.floor_seconds == Approx(0.5e-3));
  CHECK(hot_flops.optimized_share == 0);
  CHECK_FALSE(hot_flops.reference_share);
  // Compute-bound and hot: its share of the arithmetic ceiling.
  const kbench::roofline hot_compute = kbench::roofline_of(work(1e9, 30e9), ceilings(false), 1e-3, std::nullopt);
  CHECK(hot_compute.bound == "compute");
  CHECK(hot_compute.optimized_share == Approx(0.5));
}

TEST_CASE("no peak for matrix units nor for an arithmetic that was not measured", "[roofline]") {
  kbench::work_model matrix = work(1e9, 60e9);
  matrix.matrix_units = true;
  const kbench::roofline m = kbench::roofline_of(matrix, ceilings(true), 1e-3, std::nullopt);
  CHECK(m.peak_flops_per_second == 0);
  CHECK(m.peak_how == "matrix units: kbench measures no peak for them");
  CHECK(m.binding == "memory");  // the bytes still bound it
  CHECK(m.floor_seconds == Approx(0.25e-3));
  CHECK(m.bound.empty());
  kbench::work_model half = work(1e9, 60e9);
  half.flop_type = kbench::dtype::f16;
  const kbench::roofline h = kbench::roofline_of(half, ceilings(true, kbench::dtype::f16), 1e-3, std::nullopt);
  CHECK(h.peak_how == "no peak measured for this arithmetic");
  CHECK(kbench::peak_for(peaks, kbench::dtype::bf16) == nullptr);
}

}  // namespace unit_roofline_test
