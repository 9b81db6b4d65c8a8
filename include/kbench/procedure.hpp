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
#include "results/results.hpp"

namespace kbench {
namespace detail {

class case_instance;  // runner.hpp

// A case's declaration at a shape, instantiated on the host (no device memory, no GPU needed) and
// validated: a broken declaration throws usage_error, and so does, with `every_dimension_used`, a shape
// dimension the case never asks for.
[[nodiscard]] std::vector<declared_buffer> declare_on_host(const case_registration& registration, const kbench::shape& s,
                                                           bool every_dimension_used = false);

// The resource bounds the case declares at a shape (kernel_case::expect_resources), read on the host.
[[nodiscard]] std::vector<resource_bound> declared_resource_bounds(const case_registration& registration,
                                                                   const kbench::shape& s);

// The number of devices the case spans at a shape (kernel_case::devices; 1 when it never says).
[[nodiscard]] int declared_device_count(const case_registration& registration, const kbench::shape& s);

// What choosing the shapes around a declared one needs (decisions/nearby_shapes.hpp): the elements of the
// case's buffers at `s` and the dimensions it reads as flags there, read on the host.
[[nodiscard]] declared_shape_facts declared_facts(const case_registration& registration, const kbench::shape& s);

// The case's declaration at a shape as canonical lines (contract/declaration_digest.hpp), read on the host.
[[nodiscard]] std::vector<std::string> declaration_lines(const case_registration& registration, const kbench::shape& s);

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
class case_run {
 public:
  // On the GPUs `options` give; throws skipped_case (case_devices.hpp) when the case spans more devices
  // than there are.
  case_run(const case_registration& registration, const kbench::shape& s, const run_options& options);
  ~case_run();
  case_run(const case_run&) = delete;
  case_run& operator=(const case_run&) = delete;

  // One correctness run; `probe_teeth` also proves that the tolerance can fail, and runs the first seed's
  // other checks (issue 23's additions in full up to small_case_elements, or at any size with
  // `additions_at_any_size`).
  [[nodiscard]] seed_result check(std::uint64_t seed, bool probe_teeth, bool additions_at_any_size = false);
  // The census of one launch of each side; call it after a passing check().
  [[nodiscard]] case_census census(const run_options& options, const gpu_info& g);
  // Check, time, check again (runner.hpp's run_perf_procedure).
  [[nodiscard]] perf_outcome perf(const run_options& options, const gpu_info& g, const std::vector<std::uint64_t>& seeds);
  // The GPUs the case runs on (logical device d on devices()[d]), whether two are one GPU, and whether
  // every pair of distinct ones has peer access.
  [[nodiscard]] std::vector<int> devices() const;
  [[nodiscard]] bool devices_shared() const;
  [[nodiscard]] bool peer_access() const;

 private:
  std::unique_ptr<case_instance> instance_;
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
