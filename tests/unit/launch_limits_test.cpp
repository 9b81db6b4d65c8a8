// launch_limits.hpp: a launch's grid, block and shared memory against the device's limits and the kernel's
// own, each limit crossed named; none where the launch is within them all.
#include <kbench/decisions/launch_limits.hpp>

#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_launch_limits_test {  // one per file: the unit tests compile in unity batches

using kbench::detail::device_launch_limits;
using kbench::detail::kernel_launch;
using kbench::detail::launch_over_limits;
using kbench::detail::limits_crossed;

namespace {

// The H200's limits: 1024 threads, a block of (1024, 1024, 64), a grid of (2^31 - 1, 65535, 65535), 227 KiB
// of shared memory per block once opted in.
device_launch_limits h200() {
  device_launch_limits d;
  d.threads_per_block = 1024;
  d.block = {1024, 1024, 64};
  d.grid = {2147483647, 65535, 65535};
  d.shared_per_block = 227 * 1024;
  return d;
}

// MI300X's (gfx942): the same threads, 64 KiB of LDS per block; its runtime fills no opt-in limit.
device_launch_limits mi300x() {
  device_launch_limits d = h200();
  d.shared_per_block = 64 * 1024;
  return d;
}

// A kernel of 256 threads, 8 KiB of static shared memory, allowed 1024 threads and 40 KiB of dynamic.
kernel_launch rowwise() {
  kernel_launch k;
  k.name = "rowwise";
  k.grid = {4096, 1, 1};
  k.block = {256, 1, 1};
  k.static_shared = 8 * 1024;
  k.max_threads = 1024;
  k.max_dynamic_shared = 40 * 1024;
  k.registers = 32;
  return k;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a launch within every limit crosses none", "[launch_limits]") {
  CHECK(limits_crossed(rowwise(), h200()).empty());
  CHECK(launch_over_limits(rowwise(), h200()).empty());
  kernel_launch at_limits = rowwise();
  at_limits.block = {1024, 1, 1};
  at_limits.grid = {2147483647, 65535, 65535};
  at_limits.dynamic_shared = 40 * 1024;
  CHECK(limits_crossed(at_limits, h200()).empty());
}

TEST_CASE("threads per block over the device's or the kernel's own", "[launch_limits]") {
  kernel_launch wide = rowwise();
  wide.block = {32, 64, 1};  // 2048
  const std::vector<std::string> over_device = limits_crossed(wide, h200());
  REQUIRE(over_device.size() == 1);
  CHECK(over_device[0] == "2048 threads per block, over the device's 1024");

  kernel_launch bounded = rowwise();
  bounded.max_threads = 512;  // launch bounds, or 128 registers a thread on NVIDIA
  bounded.registers = 128;
  bounded.block = {1024, 1, 1};
  const std::vector<std::string> over_own = limits_crossed(bounded, h200());
  REQUIRE(over_own.size() == 1);
  CHECK(over_own[0] == "1024 threads per block, over the kernel's own 512 (its launch bounds, or its 128 registers per thread)");
}

TEST_CASE("a block's or a grid's dimension over the device's", "[launch_limits]") {
  kernel_launch deep = rowwise();
  deep.block = {1, 1, 128};
  kernel_launch tall = rowwise();
  tall.grid = {1, 65536, 1};
  CHECK(limits_crossed(deep, h200()) == std::vector<std::string>{"block z of 128, over the device's 64"});
  CHECK(limits_crossed(tall, h200()) == std::vector<std::string>{"grid y of 65536, over the device's 65535"});
}

TEST_CASE("static and dynamic shared memory together over the device's", "[launch_limits]") {
  // What AMD's runtime does not check: the dynamic LDS alone is within the device's 64 KiB.
  kernel_launch lds = rowwise();
  lds.static_shared = 40 * 1024;
  lds.dynamic_shared = 32 * 1024;
  lds.max_dynamic_shared = -1;  // AMD: no opt-in
  const std::string over = launch_over_limits(lds, mi300x());
  CHECK(over == "rowwise <<<(4096,1,1), (256,1,1), 32768 B>>>: 72 KiB of shared memory per block (40 KiB static, "
                "32 KiB dynamic), over the device's 64 KiB");
  CHECK(limits_crossed(lds, h200()).empty());  // within the H200's 227 KiB, and no opt-in limit known
}

TEST_CASE("dynamic shared memory past what the kernel opted in to", "[launch_limits]") {
  kernel_launch not_opted = rowwise();
  not_opted.dynamic_shared = 64 * 1024 + 100;
  const std::vector<std::string> crossed = limits_crossed(not_opted, h200());
  REQUIRE(crossed.size() == 1);
  CHECK(contains(crossed[0], "65636 B of dynamic shared memory, over the 40 KiB the kernel allows"));
  CHECK(contains(crossed[0], "hipFuncAttributeMaxDynamicSharedMemorySize"));
  // Past the device's limit too: the device's is named, not the kernel's.
  not_opted.dynamic_shared = 230 * 1024;
  CHECK(contains(limits_crossed(not_opted, h200()).at(0), "over the device's 227 KiB"));
}

TEST_CASE("every limit crossed is named, in one line", "[launch_limits]") {
  kernel_launch all = rowwise();
  all.block = {2048, 1, 1};
  all.grid = {1, 1, 70000};
  all.dynamic_shared = 64 * 1024;
  const std::vector<std::string> crossed = limits_crossed(all, mi300x());
  CHECK(crossed.size() == 4);  // block x, grid z, threads per block, shared memory
  const std::string line = launch_over_limits(all, mi300x());
  CHECK(contains(line, "block x of 2048, over the device's 1024; grid z of 70000, over the device's 65535; "
                       "2048 threads per block, over the device's 1024; 72 KiB of shared memory per block"));
}

TEST_CASE("limits a runtime does not report are not judged", "[launch_limits]") {
  kernel_launch unknown = rowwise();
  unknown.static_shared = -1;
  unknown.max_threads = -1;
  unknown.max_dynamic_shared = -1;
  unknown.block = {1024, 1, 1};
  unknown.dynamic_shared = 64 * 1024;
  CHECK(limits_crossed(unknown, mi300x()).empty());
  CHECK(limits_crossed(rowwise(), device_launch_limits{}).empty());
}

}  // namespace unit_launch_limits_test
