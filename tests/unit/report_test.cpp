// report.hpp: the text kbench prints, against approved baselines.
#include <kbench/reports/report.hpp>
#include <kbench/engines/comparison.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_report_test {  // one per file: the unit tests compile in unity batches

namespace tol = kbench::tol;
using kbench::dtype;

TEST_CASE("a passing comparison is a line of metrics and a line of precision", "[report]") {
  const std::vector<float> e{1.0f, 2.0f, 3.0f, 4.0f}, a{1.0f, 2.0f, 3.001f, 4.0f};
  const auto r = kbench::compare({a.data(), dtype::f32, 4, {2, 2}}, {e.data(), dtype::f32, 4, {2, 2}},
                                 kbench::make_tolerance(tol::allclose{1e-3, 1e-5}));
  REQUIRE(r.passed);
  CHECK(kbench::format_comparison("y", r, dtype::f32, {2, 2}) ==
        "  output 'y' (fp32 [2 x 2]): PASS under allclose(rtol=0.001, atol=1e-05)\n"
        "    max abs error 9.999e-04 at (1, 0), max rel error 3.333e-04 at (1, 0), mismatches 0 of 4 (0%), "
        "cosine 1.000000, relative L2 1.826e-04\n"
        "    ulps: 75% equal, 0% 1 apart, 0% 2 apart, 25% more (worst 4194); worst abs error 9.999e-04 where the policy "
        "allows 3.010e-03\n");
}

TEST_CASE("a failing comparison shows reasons, metrics and the first mismatches", "[report]") {
  std::vector<float> e(6, 0.5f), a(6, 0.5f);
  a[1] = 0.75f;
  const std::uint32_t poison = kbench::poison_word(dtype::f32);
  std::memcpy(&a[5], &poison, 4);
  const auto r = kbench::compare({a.data(), dtype::f32, 6, {2, 3}}, {e.data(), dtype::f32, 6, {2, 3}},
                                 kbench::make_tolerance(tol::allclose{1e-3, 1e-5}));
  REQUIRE_FALSE(r.passed);
  CHECK(kbench::format_comparison("y", r, dtype::f32, {2, 3}) ==
        "  output 'y' (fp32 [2 x 3]): MISMATCH under allclose(rtol=0.001, atol=1e-05)\n"
        "    - 1 of 6 elements (16.67%) were never written (first at (1, 2))\n"
        "    - 2 of 6 elements (33.33%) mismatch, 0 allowed (the first at (0, 1): 0.75 where the reference has 0.5); "
        "worst abs error inf at (1, 2)\n"
        "    max abs error inf at (1, 2), max rel error inf at (1, 2), mismatches 2 of 6 (33.33%), cosine 0.983870, "
        "relative L2 2.236e-01\n"
        "    ulps: 80% equal, 0% 1 apart, 0% 2 apart, 20% more (worst 4194304); worst abs error inf where the policy "
        "allows 5.100e-04\n"
        "    first mismatches:\n"
        "                 index         actual       expected   abs error   rel error\n"
        "                (0, 1)           0.75            0.5   2.500e-01   5.000e-01\n"
        "                (1, 2)    <unwritten>            0.5         inf         inf\n");
}

TEST_CASE("durations, rates and statistics read naturally", "[report]") {
  CHECK(kbench::format_duration(612.345e-6) == "612.35 us");
  CHECK(kbench::format_duration(1.2044e-3) == "1.204 ms");
  CHECK(kbench::format_duration(2.5) == "2.500 s");
  CHECK(kbench::format_rate(512e6, 120e-6, "B") == "4.27 TB/s");
  CHECK(kbench::format_rate(2e9, 1.0, "FLOP") == "2.0 GFLOP/s");
  CHECK(kbench::format_rate(5000, 1e-3, "token") == "5.0 Mtoken/s");
  const kbench::sample_stats s = kbench::summarize({1e-3, 2e-3, 3e-3});
  CHECK(kbench::format_stats(s) ==
        "median 2.000 ms (p10 1.200 ms, p90 2.800 ms, min 1.000 ms, max 3.000 ms, mean 2.000 ms, stddev 1.000 ms, "
        "cv 50.00%, n=3)");
  CHECK(kbench::describe_array(dtype::bf16, {16384, 8192}) == "bf16 [16384 x 8192]");
}

TEST_CASE("a timing report gives the method, both kernels, the speedup and every flag", "[report]") {
  kbench::timing_result t;
  t.mode = kbench::timing_mode::cold;
  t.method = "cold: a 256 MiB read evicts the caches before each launch";
  t.optimized = kbench::summarize({130e-6, 131e-6, 132e-6});
  t.reference = kbench::summarize({180e-6, 181e-6, 182e-6});
  t.optimized_precision = 0.001;
  t.reference_precision = 0.002;
  t.speedup = 181.0 / 131.0;
  t.speedup_interval = {1.37, 1.39};
  t.verdict = kbench::speedup_verdict::faster;
  t.latency = 129.7e-6;
  t.hot_latency = 120.5e-6;
  t.work.bytes = 536887296;
  t.throughput = kbench::throughput_of(t.work, t.optimized.median, t.reference->median, 4.22e12);
  t.findings.push_back({kbench::finding_kind::unseen_work, "a flag"});
  t.findings.push_back({kbench::finding_kind::note, "a note"});
  const kbench::stage_times stages = {{"first check", 0.05}, {"sampling", 0.025}};
  CHECK(kbench::format_timing("rmsnorm/rows=16384/cols=8192", t, stages) ==
        "rmsnorm/rows=16384/cols=8192\n"
        "  method     cold: a 256 MiB read evicts the caches before each launch\n"
        "  samples    one cold launch each\n"
        "  optimized  median 131.00 us (p10 130.20 us, p90 131.80 us, min 130.00 us, max 132.00 us, mean 131.00 us, "
        "stddev 1.00 us, cv 0.76%, n=3), median known to +-0.10%\n"
        "  reference  median 181.00 us (p10 180.20 us, p90 181.80 us, min 180.00 us, max 182.00 us, mean 181.00 us, "
        "stddev 1.00 us, cv 0.55%, n=3), median known to +-0.20%\n"
        "  speedup    1.382x (95% interval 1.370 to 1.390): faster\n"
        "  latency    129.70 us cold, 120.50 us hot (one launch, less the event-pair floor: what a profiler reports)\n"
        "  bandwidth  4.10 TB/s (97.1% of copy) optimized, 2.97 TB/s (70.3% of copy) reference\n"
        "  wall       75.000 ms on the host: first check 50.000 ms, sampling 25.000 ms\n"
        "  ! a flag\n"
        "  note: a note\n");
  t.mode = kbench::timing_mode::batch;
  t.launches_per_sample = 46;
  CHECK(kbench::sample_unit(t) == "per launch, back to back (46 launches per sample, which may overlap)");
}

TEST_CASE("a timing report gives the time saved beside the speedup, per layer and per token where declared", "[report]") {
  kbench::timing_result t;
  t.method = "cold";
  t.optimized = kbench::summarize({132.42e-6});
  t.reference = kbench::summarize({179.68e-6});
  t.speedup = 179.68 / 132.42;
  t.speedup_interval = {1.352, 1.363};
  t.verdict = kbench::speedup_verdict::faster;
  t.saved = kbench::time_saved{{47.26e-6, {46.9e-6, 47.6e-6}}, std::nullopt, std::nullopt};
  const std::string speedup = "  speedup    1.357x (95% interval 1.352 to 1.363): faster\n";
  CHECK_THAT(kbench::format_timing("rmsnorm", t, {}),
             kbench_test::contains(speedup + "  saved      47.26 us per call (95% interval 46.90 us to 47.60 us)\n"));
  t.work.calls_per_layer = 32;
  t.saved->per_layer = kbench::saved_seconds{32 * 47.26e-6, {32 * 46.9e-6, 32 * 47.6e-6}};
  CHECK_THAT(kbench::format_timing("rmsnorm", t, {}),
             kbench_test::contains("  saved      47.26 us per call (95% interval 46.90 us to 47.60 us); 1.512 ms per "
                                   "layer at 32 calls\n"));
  t.work.calls_per_token = 1;
  t.saved->per_token = t.saved->per_call;
  t.saved->per_call.ci = {std::nan(""), std::nan("")};  // no paired samples: no interval shown
  CHECK_THAT(kbench::format_timing("rmsnorm", t, {}),
             kbench_test::contains("  saved      47.26 us per call; 1.512 ms per layer at 32 calls, 47.26 us per token at "
                                   "1 call\n"));
  t.reference.reset();  // a host reference: nothing saved to report
  t.saved.reset();
  CHECK_THAT(kbench::format_timing("rmsnorm", t, {}), !kbench_test::contains("saved"));
}

}  // namespace unit_report_test
