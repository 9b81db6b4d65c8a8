// kbench/runner.hpp: the procedure behind every verdict. For one registered case at one shape:
//
//   check(seed): draw fresh inputs on the device; poison the reference's outputs and run the reference;
//     prove the test has teeth (the tolerance must reject an unwritten output, an all-zero output and the
//     reference perturbed beyond tolerance); poison the optimized outputs and run the optimized kernel;
//     check the guard regions and that no input changed; compare every output.
//   time(): only after a passing check; warm-up, then reference and optimized launches interleaved, each
//     timed by an event pair on the case's stream; then a second check with a fresh seed, so a kernel
//     that is right only before or during timing fails.
//
// Compiled once per program (it is included by kbench/main.hpp), not by every test file.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "comparison.hpp"
#include "compare.hpp"
#include "device_buffer.hpp"
#include "integrity.hpp"
#include "random.hpp"
#include "report.hpp"
#include "statistics.hpp"
#include "timing.hpp"

namespace kbench {

// The GPU the program runs on, or why there is none.
struct gpu_info {
  bool usable = false;
  std::string reason;  // when not usable
  int device = 0;
  std::string name;
  std::string arch;
  int multiprocessors = 0;
  int wave_size = 0;
  double memory_bytes = 0.0;
};

namespace detail {

inline gpu_info probe_gpu(int device) {
  gpu_info g;
  g.device = device;
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess) {
    (void)hipGetLastError();
    g.reason = fmt::format("no GPU: hipGetDeviceCount reports {} ({})", hipGetErrorName(status), hipGetErrorString(status));
    return g;
  }
  if (count == 0) {
    g.reason = "no GPU: hipGetDeviceCount found 0 devices";
    return g;
  }
  if (device >= count) {
    g.reason = fmt::format("GPU {} was asked for, but only {} present", device, count);
    return g;
  }
  KBENCH_HIP_CHECK(hipSetDevice(device));
  hipDeviceProp_t prop{};
  KBENCH_HIP_CHECK(hipGetDeviceProperties(&prop, device));
  g.usable = true;
  g.name = prop.name;
#if defined(KBENCH_PLATFORM_NVIDIA)
  g.arch = fmt::format("sm_{}{}", prop.major, prop.minor);
#else
  g.arch = prop.gcnArchName;
#endif
  g.multiprocessors = prop.multiProcessorCount;
  g.wave_size = prop.warpSize;
  g.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  return g;
}

}  // namespace detail

// Probed once, on first use inside a test (never before: a missing GPU skips each test, it does not
// abort the program).
inline const gpu_info& gpu(int device) {
  static const gpu_info probed = detail::probe_gpu(device);
  return probed;
}

// Device-to-device copy bandwidth, bytes read plus bytes written per second: the ceiling that
// memory-bound kernels are measured against.
struct copy_bandwidth {
  double bytes_per_second = 0.0;
  std::size_t buffer_bytes = 0;
  sample_stats seconds;
};

// Copies a buffer of up to 1 GiB (a quarter of the free memory at most) 5 times untimed, then 20 times
// timed by event pairs; the median gives the rate.
[[nodiscard]] inline copy_bandwidth measure_copy_bandwidth() {
  std::size_t free_bytes = 0, total_bytes = 0;
  KBENCH_HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4) / 256 * 256;
  device_allocation source(bytes), destination(bytes);
  KBENCH_HIP_CHECK(hipMemset(source.data(), 0x3C, bytes));
  kbench::stream s;
  event start, stop;
  std::vector<double> seconds;
  for (int i = 0; i < 25; ++i) {
    start.record(s.get());
    KBENCH_HIP_CHECK(hipMemcpyAsync(destination.data(), source.data(), bytes, hipMemcpyDeviceToDevice, s.get()));
    stop.record(s.get());
    stop.synchronize();
    if (i >= 5) seconds.push_back(stop.seconds_since(start));
  }
  copy_bandwidth c;
  c.buffer_bytes = bytes;
  c.seconds = summarize(seconds);
  c.bytes_per_second = 2.0 * static_cast<double>(bytes) / c.seconds.median;
  return c;
}

struct output_result {
  std::string name;
  dtype type = dtype::f32;
  std::vector<std::size_t> extents;
  comparison result;
};

// One correctness run: one seed, every output.
struct seed_result {
  std::uint64_t seed = 0;
  std::vector<std::string> problems;  // the test, the reference or the harness contract broken
  std::vector<output_result> outputs;
  [[nodiscard]] bool passed() const {
    if (!problems.empty() || outputs.empty()) return false;
    return std::all_of(outputs.begin(), outputs.end(), [](const output_result& o) { return o.result.passed; });
  }
};

struct timing_result {
  sample_stats optimized;
  std::optional<sample_stats> reference;  // absent for a host reference
  double speedup = std::numeric_limits<double>::quiet_NaN();
  work_model work;
  int warmup = 0;
};

namespace detail {

// A host array of any dtype, as raw bytes.
struct host_array {
  dtype type = dtype::f32;
  std::vector<unsigned char> bytes;
  [[nodiscard]] array_view view(std::size_t size, const std::vector<std::size_t>& extents) const {
    return {bytes.data(), type, size, extents};
  }
};

inline constexpr std::uint64_t host_reference_sentinel = 0x7FF4BADB7FF4BADBull;  // a NaN no arithmetic makes

// Expected values perturbed "well beyond" the tolerance at just more elements than it lets mismatch.
inline host_array perturbed_probe(const host_array& expected, dtype out_type, std::size_t size, const tolerance& tol,
                                  std::size_t allowed) {
  host_array probe{out_type, {}};
  if (expected.type == out_type) {
    probe.bytes = expected.bytes;
  } else {
    probe.bytes.resize(size * info(out_type).size);
    for (std::size_t i = 0; i < size; ++i) {
      store_from_double(probe.bytes.data(), out_type, i, load_as_double(expected.bytes.data(), expected.type, i));
    }
  }
  double norm = 0.0;
  if (tol.element_rules.empty()) {  // only aggregate rules: one element must outweigh the whole output
    for (std::size_t i = 0; i < size; ++i) {
      const double e = load_as_double(probe.bytes.data(), out_type, i);
      if (std::isfinite(e)) norm += e * e;
    }
  }
  const std::size_t count = std::min(size, allowed + 1);
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = k * size / count;
    const double e = load_as_double(probe.bytes.data(), out_type, i);
    double delta = tol.element_rules.empty() ? 2.0 * std::sqrt(norm) + 1.0 : 0.0;
    for (const element_rule& rule : tol.element_rules) {
      double bound = rule.atol + rule.rtol * std::fabs(e);
      if (rule.rule == element_rule::kind::ulp) bound = std::ldexp(std::fabs(e) + 1.0, -info(out_type).mantissa_bits) * static_cast<double>(rule.max_ulps + 1);
      delta = std::max(delta, 8.0 * bound);
    }
    delta = std::max(delta, std::fabs(e) * 0.25 + 1.0);  // at least a quarter of the value: never rounds away
    store_from_double(probe.bytes.data(), out_type, i, e + delta);
    if (!std::isfinite(load_as_double(probe.bytes.data(), out_type, i))) {
      store_from_double(probe.bytes.data(), out_type, i, e - delta);
    }
  }
  return probe;
}

// A registered case instantiated at one shape, with its device memory.
class case_instance {
 public:
  case_instance(const case_registration& registration, const kbench::shape& s) : case_(registration.name(), s) {
    registration.function()(case_);
    case_.validate();
    const auto& buffers = case_.buffers();
    for (std::size_t id = 0; id < buffers.size(); ++id) {
      buffer_slot* slot = buffers[id].get();
      const std::size_t bytes = slot->size * info(slot->type).size;
      if (slot->role == buffer_role::input) {
        inputs_.push_back({slot, checked_input(bytes), id});
      } else {
        outputs_.push_back({slot, guarded_output(bytes), guarded_output(bytes), {}, {},
                            device_allocation(slot->role == buffer_role::inout ? bytes : 0), id});
      }
    }
  }

  [[nodiscard]] const kernel_case& declaration() const { return case_; }
  [[nodiscard]] bool has_device_reference() const { return static_cast<bool>(case_.device_reference()); }

  // One correctness run at `seed`. `probe_teeth` also proves that the tolerance can fail.
  [[nodiscard]] seed_result check(std::uint64_t seed, bool probe_teeth) {
    seed_result r;
    r.seed = seed;
    draw_inputs(seed);
    if (has_device_reference()) {
      run_device_reference(r.problems);
    } else {
      run_host_reference(r.problems);
    }
    if (probe_teeth) check_teeth(r.problems);
    run_side(case_.optimized_launch(), side::optimized, r.problems);
    for (output_memory& out : outputs_) {
      out.actual = copy_to_host(out.optimized.data(), out.slot->type, out.slot->size);
      const array_view actual = out.actual.view(out.slot->size, out.slot->extents);
      const array_view expected = out.expected.view(out.slot->size, out.slot->extents);
      r.outputs.push_back({out.slot->name, out.slot->type, out.slot->extents,
                           compare(actual, expected, case_.tolerance_of(*out.slot))});
    }
    return r;
  }

  // Launches each kernel `count` times, untimed, and waits: clocks ramp up, caches and code load.
  void warm_up(int count) {
    for (int i = 0; i < count; ++i) {
      restore_in_place(side::reference);
      restore_in_place(side::optimized);
      if (has_device_reference()) launch_bound(case_.device_reference(), side::reference);
      launch_bound(case_.optimized_launch(), side::optimized);
    }
    stream_.synchronize();
  }

  // One timed sample: the reference then the optimized kernel back to back on the case's stream, each
  // between a pair of events, so that clock drift affects both alike. Seconds; reference is NaN for a
  // host reference.
  struct sample_pair {
    double reference;
    double optimized;
  };
  [[nodiscard]] sample_pair sample() {
    const bool with_reference = has_device_reference();
    restore_in_place(side::reference);
    restore_in_place(side::optimized);
    start_.record(stream_.get());
    if (with_reference) launch_bound(case_.device_reference(), side::reference);
    middle_.record(stream_.get());
    launch_bound(case_.optimized_launch(), side::optimized);
    stop_.record(stream_.get());
    stop_.synchronize();
    return {with_reference ? middle_.seconds_since(start_) : std::numeric_limits<double>::quiet_NaN(),
            stop_.seconds_since(middle_)};
  }

  [[nodiscard]] timing_result summarize_samples(const std::vector<sample_pair>& samples, int warmup) const {
    timing_result t;
    t.warmup = warmup;
    t.work = case_.work();
    std::vector<double> reference, optimized;
    for (const sample_pair& p : samples) {
      optimized.push_back(p.optimized);
      if (has_device_reference()) reference.push_back(p.reference);
    }
    t.optimized = summarize(optimized);
    if (has_device_reference()) {
      t.reference = summarize(reference);
      t.speedup = t.reference->median / t.optimized.median;
    }
    return t;
  }

 private:
  struct input_memory {
    buffer_slot* slot;
    checked_input memory;
    std::size_t stream_id;  // the random stream of this buffer: its position in the declaration
  };
  enum class side { reference, optimized };
  struct output_memory {
    buffer_slot* slot;
    guarded_output reference;
    guarded_output optimized;
    host_array expected;
    host_array actual;
    device_allocation initial;  // in-place buffers: the drawn values every run starts from
    std::size_t stream_id;
    guarded_output& memory(side target) { return target == side::optimized ? optimized : reference; }
    [[nodiscard]] bool in_place() const { return slot->role == buffer_role::inout; }
  };

  void draw_inputs(std::uint64_t seed) {
    for (input_memory& in : inputs_) {
      fill_random(in.memory.data(), in.slot->type, in.slot->size, in.slot->init, seed, in.stream_id, stream_.get());
      in.memory.snapshot(stream_.get());
    }
    for (output_memory& out : outputs_) {
      if (!out.in_place()) continue;
      fill_random(out.initial.data(), out.slot->type, out.slot->size, out.slot->init, seed, out.stream_id, stream_.get());
    }
    stream_.synchronize();
  }

  // In-place buffers get their drawn values back (outside any timed region).
  void restore_in_place(side target) {
    for (output_memory& out : outputs_) {
      if (!out.in_place()) continue;
      KBENCH_HIP_CHECK(hipMemcpyAsync(out.memory(target).data(), out.initial.data(), out.initial.bytes(),
                                      hipMemcpyDeviceToDevice, stream_.get()));
    }
  }

  // Points every handle at the memory of one side.
  void bind(side target) {
    for (input_memory& in : inputs_) in.slot->device = in.memory.data();
    for (output_memory& out : outputs_) out.slot->device = out.memory(target).data();
  }
  void unbind() {
    for (const auto& slot : case_.buffers()) {
      slot->device = nullptr;
      slot->host = nullptr;
    }
  }

  void launch_bound(const launch_function& launch, side target) {
    bind(target);
    try {
      launch(stream_.get());
    } catch (...) {
      unbind();
      throw;
    }
    unbind();
    const hipError_t status = hipGetLastError();
    if (status != hipSuccess) {
      throw hip_error(status, fmt::format("the {} launch of '{}' failed: {} ({})",
                                          target == side::optimized ? "optimized" : "reference", case_.name(),
                                          hipGetErrorName(status), hipGetErrorString(status)));
    }
  }

  // Poison, launch, wait for the whole device (work left on other streams included), then check guards
  // and inputs.
  void run_side(const launch_function& launch, side target, std::vector<std::string>& problems) {
    const char* who = target == side::optimized ? "optimized" : "reference";
    for (output_memory& out : outputs_) out.memory(target).prepare(out.slot->type, out.slot->size, stream_.get());
    restore_in_place(target);
    launch_bound(launch, target);
    stream_.synchronize();
    KBENCH_HIP_CHECK(hipDeviceSynchronize());
    for (output_memory& out : outputs_) {
      const std::string stray = out.memory(target).check_guards();
      if (!stray.empty()) problems.push_back(fmt::format("the {} kernel wrote outside output '{}': {}", who, out.slot->name, stray));
    }
    for (input_memory& in : inputs_) {
      std::size_t first = 0;
      const std::size_t changed = in.memory.changed_words(stream_.get(), first);
      if (changed) {
        problems.push_back(fmt::format("the {} kernel modified input '{}' ({} words changed, first at byte {}); inputs "
                                       "must be read-only",
                                       who, in.slot->name, changed, first));
        in.memory.snapshot(stream_.get());  // report each modification once
        stream_.synchronize();
      }
    }
  }

  host_array copy_to_host(const void* device, dtype type, std::size_t size) {
    host_array h{type, std::vector<unsigned char>(size * info(type).size)};
    KBENCH_HIP_CHECK(hipMemcpy(h.bytes.data(), device, h.bytes.size(), hipMemcpyDeviceToHost));
    return h;
  }

  void run_device_reference(std::vector<std::string>& problems) {
    run_side(case_.device_reference(), side::reference, problems);
    for (output_memory& out : outputs_) {
      out.expected = copy_to_host(out.reference.data(), out.slot->type, out.slot->size);
    }
    // Floats are poisoned with a NaN no arithmetic produces, so a poisoned element is an unwritten one.
    // An integer poison is a plausible value: confirm with a second run under another poison, since an
    // element the reference never writes holds each poison in turn.
    std::vector<std::size_t> suspects(outputs_.size(), 0);
    bool integer_suspects = false;
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      const output_memory& out = outputs_[k];
      if (out.in_place()) continue;  // starts from the drawn values, not from poison
      suspects[k] = count_poison(out.expected.bytes.data(), out.slot->type, out.slot->size);
      integer_suspects = integer_suspects || (suspects[k] && !info(out.slot->type).is_float);
    }
    if (integer_suspects) {
      for (output_memory& out : outputs_) {
        KBENCH_HIP_CHECK(hipMemsetAsync(out.reference.data(), 0x5A, out.reference.bytes(), stream_.get()));
      }
      restore_in_place(side::reference);
      launch_bound(case_.device_reference(), side::reference);
      KBENCH_HIP_CHECK(hipDeviceSynchronize());
      for (std::size_t k = 0; k < outputs_.size(); ++k) {
        const output_memory& out = outputs_[k];
        if (info(out.slot->type).is_float || suspects[k] == 0) continue;
        const host_array second = copy_to_host(out.reference.data(), out.slot->type, out.slot->size);
        const std::size_t width = info(out.slot->type).size;
        suspects[k] = 0;
        for (std::size_t i = 0; i < out.slot->size; ++i) {
          bool unwritten = true;
          for (std::size_t b = i * width; b < (i + 1) * width; ++b) {
            unwritten = unwritten && out.expected.bytes[b] == 0xA5 && second.bytes[b] == 0x5A;
          }
          suspects[k] += unwritten;
        }
      }
    }
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (suspects[k]) {
        problems.push_back(fmt::format("the reference left {} of {} elements of output '{}' unwritten", suspects[k],
                                       outputs_[k].slot->size, outputs_[k].slot->name));
      }
    }
  }

  std::vector<double> host_values(const void* device, const buffer_slot& slot) {
    const host_array raw = copy_to_host(device, slot.type, slot.size);
    std::vector<double> values(slot.size);
    for (std::size_t i = 0; i < slot.size; ++i) values[i] = load_as_double(raw.bytes.data(), slot.type, i);
    return values;
  }

  void run_host_reference(std::vector<std::string>& problems) {
    std::vector<std::vector<double>> in_values(inputs_.size()), out_values(outputs_.size());
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      in_values[k] = host_values(inputs_[k].memory.data(), *inputs_[k].slot);
      inputs_[k].slot->host = in_values[k].data();
    }
    // Outputs start as a sentinel that must be overwritten; in-place buffers start as drawn.
    double sentinel;
    std::memcpy(&sentinel, &host_reference_sentinel, sizeof sentinel);
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (outputs_[k].in_place()) {
        out_values[k] = host_values(outputs_[k].initial.data(), *outputs_[k].slot);
      } else {
        out_values[k].assign(outputs_[k].slot->size, sentinel);
      }
      outputs_[k].slot->host = out_values[k].data();
    }
    try {
      case_.host_reference_function()();
    } catch (...) {
      unbind();
      throw;
    }
    unbind();
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      output_memory& out = outputs_[k];
      std::size_t unassigned = 0;
      if (!out.in_place()) {
        for (double v : out_values[k]) unassigned += std::memcmp(&v, &sentinel, sizeof v) == 0;
      }
      if (unassigned) {
        problems.push_back(fmt::format("the host reference left {} of {} elements of output '{}' unassigned", unassigned,
                                       out.slot->size, out.slot->name));
      }
      out.expected.type = dtype::f64;
      out.expected.bytes.resize(out_values[k].size() * sizeof(double));
      std::memcpy(out.expected.bytes.data(), out_values[k].data(), out.expected.bytes.size());
    }
    for (input_memory& in : inputs_) {
      std::size_t first = 0;
      if (in.memory.changed_words(stream_.get(), first)) {
        problems.push_back(fmt::format("input '{}' changed during the host reference", in.slot->name));
      }
    }
  }

  // A test that cannot fail is an error: the tolerance must reject what a broken kernel would leave.
  void check_teeth(std::vector<std::string>& problems) {
    for (output_memory& out : outputs_) {
      const buffer_slot& slot = *out.slot;
      const tolerance tol = case_.tolerance_of(slot);
      const array_view expected = out.expected.view(slot.size, slot.extents);
      const std::size_t bytes = slot.size * info(slot.type).size;
      compare_options quiet;
      quiet.mismatches_to_keep = 0;

      host_array probe{slot.type, std::vector<unsigned char>(bytes)};
      const std::uint32_t word = poison_word(slot.type);
      for (std::size_t i = 0; i < bytes; ++i) probe.bytes[i] = static_cast<unsigned char>(word >> (8 * (i % 4)));
      auto accepts = [&](const host_array& p) { return compare(p.view(slot.size, slot.extents), expected, tol, quiet).passed; };
      std::vector<std::string> accepted;
      if (accepts(probe)) accepted.push_back("an output the kernel never wrote");
      std::fill(probe.bytes.begin(), probe.bytes.end(), 0);
      if (accepts(probe)) accepted.push_back("an all-zero output");
      const std::size_t allowed = static_cast<std::size_t>(std::floor(tol.max_mismatch_fraction * static_cast<double>(slot.size)));
      if (accepts(perturbed_probe(out.expected, slot.type, slot.size, tol, allowed))) {
        accepted.push_back("the reference perturbed well beyond tolerance");
      }
      if (out.in_place() && accepts(copy_to_host(out.initial.data(), slot.type, slot.size))) {
        accepted.push_back("the buffer as drawn, i.e. a kernel that did nothing");
      }
      for (const std::string& a : accepted) {
        problems.push_back(fmt::format("broken test: tolerance '{}' of output '{}' accepts {}; this test cannot fail",
                                       tol.description, slot.name, a));
      }
    }
  }

  kernel_case case_;
  kbench::stream stream_;
  event start_, middle_, stop_;
  std::vector<input_memory> inputs_;
  std::vector<output_memory> outputs_;
};

}  // namespace detail

// One correctness run of a registered case at one shape, as `<program> correctness` does it: for tools
// and tests that drive kbench from their own code.
[[nodiscard]] inline seed_result check_case(const case_registration& registration, const kbench::shape& s,
                                            std::uint64_t seed) {
  detail::case_instance instance(registration, s);
  return instance.check(seed, true);
}

// The registered case called `name`; usage_error if there is none.
[[nodiscard]] inline const case_registration& find_case(const std::string& name) {
  for (const case_registration& reg : registered_cases()) {
    if (reg.name() == name) return reg;
  }
  throw usage_error("no case named '" + name + "' is registered");
}

// "PASS rmsnorm [rows=37 cols=1531] seed=0x..." and, for each output, its metrics or its failure report.
[[nodiscard]] inline std::string format_seed_result(const std::string& case_name, const kbench::shape& s,
                                                    const seed_result& r) {
  std::string out = fmt::format("{} {} [{}] seed={:#x}\n", r.passed() ? "PASS" : "FAIL", case_name, s.to_string(), r.seed);
  for (const std::string& p : r.problems) out += fmt::format("  ! {}\n", p);
  for (const output_result& o : r.outputs) out += format_comparison(o.name, o.result, o.type, o.extents);
  return out;
}

}  // namespace kbench
