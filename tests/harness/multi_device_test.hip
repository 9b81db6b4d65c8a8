// Cases that span several devices: the shipped allreduce (example 4) and planted kernels, each of which
// kbench must catch naming the device. With two GPUs or more the cases run on distinct GPUs; with one,
// on two logical devices that share it (--share-devices: the harness's own logic, forks, joins and
// per-device checks, all run; the timings say nothing of links), and a case that spans two GPUs without
// --share-devices must be skipped with its reason. Skipped without a GPU.
#include <kbench/compare.hpp>
#include <kbench/program/options.hpp>
#include <kbench/procedure.hpp>
#include <kbench/reports/report.hpp>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "catch.hpp"
#include "support/catch2_runner.hpp"

#include "../../examples/04_allreduce.hip"

const char* const kbench_test::suite_name = "the multi-device tests";

namespace {

int visible_gpus() {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess) count = 0;
  (void)hipGetLastError();
  return count;
}

// The options of a run on two logical devices: distinct GPUs where there are two, else one shared.
const kbench::run_options& two_devices() {
  static const kbench::run_options o = [] {
    std::printf("kbench: %d GPU(s) visible; the two-device cases run %s\n", visible_gpus(),
                visible_gpus() >= 2 ? "on distinct GPUs" : "on one GPU shared by two logical devices");
    const char* argv[] = {"multi_device_test", "perf", "--max-time", "0.5", "--share-devices"};
    return kbench::parse_options(5, argv);
  }();
  return o;
}

const kbench::case_registration& registration(kbench::case_function f) {
  static std::deque<kbench::case_registration> keep;  // registrations outlive the runs
  return keep.emplace_back("planted", f, __FILE__, __LINE__);
}

std::string report_of(const kbench::seed_result& r) { return kbench::format_seed_result("planted", {}, r); }

const kbench::shape small_allreduce{{"gpus", 2}, {"n", 100003}};

// ---- planted: one device's share left unwritten, one device's input modified, one device slow --------
__global__ void copy_kernel(const float* x, float* y, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = x[i];
}

__global__ void scribble_kernel(float* x, std::int64_t n) { x[n / 2] = 42.0f; }

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

constexpr std::int64_t elements = 4099;

void launch_copy(const kbench::device_streams& s, int d, const float* x, float* y) {
  hipLaunchKernelGGL(copy_kernel, dim3((elements + 255) / 256), dim3(256), 0, s.use(d), x, y, elements);
  KBENCH_HIP_CHECK_LAUNCH();
}

// y[d] = x[d] on each device; `skip` leaves that device's y unwritten, `scribble` writes into its x,
// `spin_cycles` makes device 1 spin first.
template <int skip, int scribble, long long spin_cycles>
void per_device_copy(kbench::kernel_case& c) {
  c.devices(2);
  auto x = c.input_on_each<float>("x", {elements});
  auto y = c.output_on_each<float>("y", {elements});
  c.reference([=](const kbench::device_streams& s) {
    for (int d = 0; d < 2; ++d) launch_copy(s, d, x[d], y[d]);
  });
  c.optimized([=](const kbench::device_streams& s) {
    for (int d = 0; d < 2; ++d) {
      if (d == 1 && spin_cycles > 0) {
        hipLaunchKernelGGL(spin_kernel, dim3(1), dim3(1), 0, s.use(d), spin_cycles);
        KBENCH_HIP_CHECK_LAUNCH();
      }
      if (d == scribble) {
        hipLaunchKernelGGL(scribble_kernel, dim3(1), dim3(1), 0, s.use(d), const_cast<float*>(x[d].get()), elements);
        KBENCH_HIP_CHECK_LAUNCH();
      }
      if (d != skip) launch_copy(s, d, x[d], y[d]);
    }
  });
  c.tolerance(kbench::tol::exact{});
  c.bytes_moved(8.0 * elements);
}

}  // namespace

TEST_CASE("the allreduce over two devices passes, every device's output compared", "[multi][allreduce]") {
  const kbench::seed_result r = kbench::check_case(kbench::find_case("allreduce"), small_allreduce, 0x4A11, &two_devices());
  INFO(report_of(r));
  CHECK(r.passed());
  REQUIRE(r.outputs.size() == 2);
  CHECK(r.outputs[0].name == "y[device 0]");
  CHECK(r.outputs[1].name == "y[device 1]");
  for (const kbench::output_result& o : r.outputs) CHECK(o.result.passed);
}

TEST_CASE("the allreduce is timed from a common start to the last device's end, checked and faster", "[multi][allreduce]") {
  const kbench::perf_outcome o = kbench::measure_case(kbench::find_case("allreduce"), small_allreduce, two_devices(), 0x4A12);
  INFO(o.failure());
  REQUIRE(o.timing);
  CHECK(o.failure().empty());
  CHECK(o.timing->speedup > 1.0);  // peer reads against a round trip through the host
  CHECK(o.timing->work.link_bytes == 2.0 * 4 * 100003);
  REQUIRE(o.census);
  CHECK_FALSE(o.census->optimized.captured);  // a launch over several devices is reported, not guessed
  CHECK(o.census->optimized.reason.find("spans 2 devices") != std::string::npos);
}

TEST_CASE("one device's share left unwritten is caught, naming the device", "[multi][planted]") {
  const kbench::seed_result r = kbench::check_case(registration(per_device_copy<1, -1, 0>), {}, 0x4A13, &two_devices());
  const std::string report = report_of(r);
  INFO(report);
  CHECK_FALSE(r.passed());
  REQUIRE(r.outputs.size() == 2);
  CHECK(r.outputs[0].result.passed);       // device 0 did its share
  CHECK_FALSE(r.outputs[1].result.passed); // device 1 did not
  CHECK(r.outputs[1].result.never_written == static_cast<std::size_t>(elements));
  CHECK(report.find("y[device 1]") != std::string::npos);
}

TEST_CASE("an input modified on one device is caught, naming the device", "[multi][planted]") {
  const kbench::seed_result r = kbench::check_case(registration(per_device_copy<-1, 1, 0>), {}, 0x4A14, &two_devices());
  const std::string report = report_of(r);
  INFO(report);
  CHECK_FALSE(r.passed());
  CHECK(report.find("modified input 'x[device 1]'") != std::string::npos);
  CHECK(report.find("x[device 0]") == std::string::npos);
}

TEST_CASE("a launch lasts until its last device is done: the join waits for a slow device", "[multi][timing]") {
  // Device 1 spins about 200 us before its copy; device 0 copies at once.
  constexpr long long cycles = 400000;  // ~200 us at 2 GHz
  const kbench::perf_outcome o =
      kbench::measure_case(registration(per_device_copy<-1, -1, cycles>), {}, two_devices(), 0x4A15);
  INFO(o.failure());
  REQUIRE(o.timing);
  CHECK(o.timing->optimized.median > 150e-6);
  CHECK(o.timing->reference->median < 50e-6);
}

TEST_CASE("a case that spans more GPUs than there are is skipped with its reason", "[multi][skip]") {
  if (visible_gpus() >= 4) {
    SUCCEED("four GPUs or more: nothing to skip");
    return;
  }
  const kbench::shape four{{"gpus", 4}, {"n", 100003}};
  std::string reason;
  try {
    (void)kbench::check_case(kbench::find_case("allreduce"), four, 1);
  } catch (const kbench::skipped_case& e) {
    reason = e.what();
  }
  INFO(reason);
  CHECK(reason.find("the case spans 4 GPUs") != std::string::npos);
  CHECK(reason.find("--share-devices") != std::string::npos);
}
