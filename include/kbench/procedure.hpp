// kbench/procedure.hpp: what the host-only parts of a kbench program (its main, the Catch2 and the
// Google Benchmark adapters) and kbench's self-tests ask of the procedure, as functions over plain data.
// HIP-free, so those parts compile as plain C++ with the host compiler; the device translation unit of the
// program defines them (procedure/procedure_impl.hpp, once per program).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "contract/declaration.hpp"
#include "contract/registry.hpp"
#include "contract/shape.hpp"
#include "decisions/nearby_shapes.hpp"
#include "decisions/run_options.hpp"
#include "results/kernel_resources.hpp"
#include "results/results.hpp"

namespace kbench {
namespace detail {

class case_on_devices;  // runner.hpp

// A case's declaration at one shape as the host-side parts of a program ask about it, as plain data: read
// once per case and shape (the case function instantiated on the host: no device memory, no GPU needed),
// then only looked up (program.hpp keeps them for the run).
struct host_declaration {
  std::vector<declared_buffer> buffers;
  std::vector<resource_bound> resource_bounds;  // kernel_case::expect_resources
  int device_count = 1;                         // the devices the case spans (kernel_case::devices)
  declared_shape_facts facts;                   // what choosing the shapes around it needs (nearby_shapes.hpp)
  std::vector<std::string> lines;               // canonical lines (contract/declaration_digest.hpp)
  std::vector<std::string> unasked_dimensions;  // dimensions of the shape the case never asks for
  [[nodiscard]] double elements() const { return facts.elements; }
};

// The declaration of a registered case at shape `s`, validated: a broken one throws usage_error.
[[nodiscard]] host_declaration declare_on_host(const case_registration& registration, const kbench::shape& s);

// The compiler of the program's GPU code, in words ("nvcc 13.0.48, host gcc 12.2.0").
[[nodiscard]] std::string gpu_compiler();

// Whether the program's GPU code was compiled with optimization (CMake's default build type has none).
[[nodiscard]] bool gpu_code_optimized();

// The device of the program, probed on first use (a missing GPU is an answer, not an error).
[[nodiscard]] const gpu_info& open_gpu(int device);

// Why devices `ordinals` can no longer be used ("" while they can): after an error, a fault on NVIDIA (a
// misaligned or illegal access) leaves the context unusable for the rest of the process.
[[nodiscard]] std::string device_fault(const std::vector<int>& ordinals);

// The copy bandwidth and the timer floor of the current device, measured once per program.
[[nodiscard]] const device_ceilings& device_ceilings_once();

// A case at a shape with its device memory, for the length of one test.
class opened_case {
 public:
  // On the GPUs `options` give; throws skipped_case (case_devices.hpp) when the case spans more devices
  // than there are.
  opened_case(const case_registration& registration, const kbench::shape& s, const run_options& options);
  ~opened_case();
  opened_case(const opened_case&) = delete;
  opened_case& operator=(const opened_case&) = delete;

  // One correctness run; `first_seed` also proves that the tolerance can fail, and runs the first seed's
  // other checks (the extended checks in full up to small_case_elements, or at any size with
  // `extended_at_any_size`).
  [[nodiscard]] seed_result check(std::uint64_t seed, bool first_seed, bool extended_at_any_size = false);
  // The census of one launch of each side, with the figures of the program's device code `built` beside
  // the runtime's; call it after a passing check().
  [[nodiscard]] case_census census(const run_options& options, const gpu_info& g, const built_listing& built);
  // Check, time, check again (runner.hpp's run_perf_procedure); the census with `built`'s figures.
  [[nodiscard]] perf_outcome perf(const run_options& options, const gpu_info& g, const std::vector<std::uint64_t>& seeds,
                                  const built_listing& built);
  // The GPUs the case runs on (logical device d on devices()[d]), whether two are one GPU, and whether
  // every pair of distinct ones has peer access.
  [[nodiscard]] std::vector<int> devices() const;
  [[nodiscard]] bool devices_shared() const;
  [[nodiscard]] bool peer_access() const;

 private:
  std::unique_ptr<case_on_devices> instance_;
};

}  // namespace detail

// For tools and tests that drive kbench from their own code (kbench's self-tests do): the same procedure,
// compiled once per project, so that a file calling it need not compile the runner.

// One correctness run of a registered case at one shape, as `<program> correctness` does it, on the GPUs
// `options` give (null: device 0, then the others in order); skipped_case when there are too few.
[[nodiscard]] seed_result check_case(const case_registration& registration, const kbench::shape& s,
                                     std::uint64_t seed, const run_options* options = nullptr);

// What `<program> perf` does for one case at one shape: check, time, check again.
[[nodiscard]] perf_outcome measure_case(const case_registration& registration, const kbench::shape& s,
                                        const run_options& options, std::uint64_t seed);

// The registered case called `name`; usage_error if there is none.
[[nodiscard]] const case_registration& find_case(const std::string& name);

}  // namespace kbench
