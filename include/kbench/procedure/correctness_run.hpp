// kbench/procedure/correctness_run.hpp: one correctness run of a case at one seed, in named steps:
//
//   draw         fresh inputs on the device from the seed (input set 0), snapshotted
//   run_side     the optimized kernel first, on poisoned and guarded outputs, then waits for the whole
//                device and checks the guards and the inputs (the reference's outputs for these inputs do
//                not exist yet, so a kernel that copies them is caught)
//   determinism  the optimized kernel again on the same inputs, and (the first seed) up to three times
//                more while other work loads the device, which shakes out races a quiet device hides:
//                the outputs must be the same bits
//   references   the reference the same way (or the host reference in double), and whether it left any
//                element unwritten
//   check_teeth  the tolerance must be able to fail (teeth.hpp)
//   compare      every output, on the GPU when large
//   oracle       with the first seed, when the case declares one: both sides against a host computation
//                in double; the optimized kernel may not be materially less accurate than the reference
//   alignment    with the first seed, the optimized kernel again with buffers 1, 2, 4 and 8 bytes off
//                their alignment (as the case allows): its outputs must still be the reference's; then
//                once more on set 0's buffers, which the run's last launch always uses
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../engines/comparison.hpp"
#include "../engines/device_compare.hpp"
#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "case_memory.hpp"
#include "teeth.hpp"

namespace kbench {
namespace detail {

inline constexpr std::uint64_t host_reference_sentinel = 0x7FF4BADB7FF4BADBull;  // a NaN no arithmetic makes

// Findings for every input of set 0 that a launch changed (each reported once: the snapshot moves on).
inline void check_inputs(case_memory& memory, const char* who, std::vector<finding>& problems) {
  for (input_memory& in : memory.inputs()) {
    std::size_t first = 0;
    const current_device here = memory.on(*in.slot);
    const std::size_t changed = in.memory.changed_words(memory.stream_of(*in.slot), first);
    if (changed) {
      problems.push_back({finding_kind::input_modified,
                          fmt::format("the {} kernel modified input '{}' ({} words changed, first at byte {}); inputs "
                                      "must be read-only",
                                      who, in.slot->name, changed, first)});
      in.memory.snapshot(memory.stream_of(*in.slot));
      memory.synchronize();
    }
  }
}

// Poison, launch, wait for the whole device (work left on other streams included), then check the
// guards and the inputs.
inline void run_side(case_memory& memory, side target, std::vector<finding>& problems) {
  memory.prepare_outputs(target);
  memory.launch(target);
  memory.synchronize();
  memory.synchronize_devices();
  memory.check_guards(target, "", problems);
  memory.check_padding(target, "", problems);
  check_inputs(memory, name_of(target), problems);
}

// "the reference left 5 of 100 elements of output 'y' unwritten"
inline void report_unwritten(const output_memory& out, std::size_t unwritten, const char* who, const char* state,
                             std::vector<finding>& problems) {
  if (unwritten == 0) return;
  problems.push_back({finding_kind::reference_incomplete,
                      fmt::format("the {} left {} of {} elements of output '{}' {}", who, unwritten, out.slot->size,
                                  out.slot->name, state)});
}

// The device reference, and the elements it left unwritten. Floats are poisoned with a NaN no
// arithmetic produces, so a poisoned element is an unwritten one. An integer poison is a plausible value:
// confirmed by a second run under another poison, since an element the reference never writes holds each
// poison in turn.
inline void run_device_reference(case_memory& memory, std::vector<finding>& problems) {
  run_side(memory, side::reference, problems);
  std::vector<output_memory>& outputs = memory.outputs();
  for (output_memory& out : outputs) out.expected.device_changed();
  std::vector<std::size_t> suspects(outputs.size(), 0);
  bool integer_suspects = false;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    output_memory& out = outputs[k];
    if (out.in_place()) continue;  // starts from the drawn values, not from poison
    suspects[k] = memory.poisoned_in_reference(out);
    integer_suspects = integer_suspects || (suspects[k] && !info(out.slot->type).is_float);
  }
  if (integer_suspects) {
    for (output_memory& out : outputs) {
      if (!info(out.slot->type).is_float) memory.expected_on_host(out);  // the first run's values
      const current_device here = memory.on(*out.slot);
      KBENCH_HIP_CHECK(hipMemsetAsync(out.reference.data(), 0x5A, out.reference.bytes(), memory.stream_of(*out.slot)));
    }
    memory.synchronize();
    memory.restore_in_place(side::reference);
    memory.launch(side::reference);
    memory.synchronize_devices();
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      output_memory& out = outputs[k];
      if (info(out.slot->type).is_float || suspects[k] == 0) continue;
      const current_device here = memory.on(*out.slot);
      const host_array second = read_values(out.reference.data(), *out.slot);
      const host_array& first = out.expected.held();
      const std::size_t width = info(out.slot->type).size;
      suspects[k] = 0;
      for (std::size_t i = 0; i < out.slot->size; ++i) {
        bool unwritten = true;
        for (std::size_t b = i * width; b < (i + 1) * width; ++b) {
          unwritten = unwritten && first.bytes[b] == 0xA5 && second.bytes[b] == 0x5A;
        }
        suspects[k] += unwritten;
      }
    }
    // The device copies now hold the second run: put the first run's values back where the host has them.
    for (output_memory& out : outputs) {
      if (out.expected.valid()) write_values(out.reference.data(), *out.slot, out.expected.held());
    }
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) report_unwritten(outputs[k], suspects[k], "reference", "unwritten", problems);
}

[[nodiscard]] inline double sentinel_value() {
  double sentinel;
  std::memcpy(&sentinel, &host_reference_sentinel, sizeof sentinel);
  return sentinel;
}

// A host function (the host reference, or the oracle) on input set `set`: inputs as double, outputs
// starting as a sentinel that must be overwritten (in-place buffers as drawn). Returns the outputs' values.
[[nodiscard]] inline std::vector<std::vector<double>> compute_on_host(case_memory& memory, int set,
                                                                      const host_function& compute,
                                                                      host_run* timed = nullptr) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  std::vector<input_memory>& inputs = memory.inputs();
  std::vector<output_memory>& outputs = memory.outputs();
  std::vector<const double*> in_values(inputs.size());
  std::vector<std::vector<double>> out_values(outputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k) in_values[k] = memory.input_on_host(k, set).data();
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k].in_place()) {
      out_values[k] = memory.values_on_host(case_memory::initial_data(outputs[k], set), *outputs[k].slot);
    } else {
      out_values[k].assign(outputs[k].slot->size, sentinel_value());
    }
  }
  const auto computing = clock::now();
  memory.with_host_values(in_values, out_values, compute);
  if (timed) {
    timed->transfer_seconds = std::chrono::duration<double>(computing - start).count();
    timed->compute_seconds = std::chrono::duration<double>(clock::now() - computing).count();
    timed->input_bytes = 0.0;
    for (const input_memory& in : inputs) timed->input_bytes += static_cast<double>(in.slot->size * info(in.slot->type).size);
  }
  return out_values;
}

// The host reference on input set `set`; its results become the expected values, in fp64.
inline void run_host_reference(case_memory& memory, std::vector<finding>& problems, int set = 0,
                               host_run* timed = nullptr) {
  std::vector<input_memory>& inputs = memory.inputs();
  std::vector<output_memory>& outputs = memory.outputs();
  const std::vector<std::vector<double>> out_values =
      compute_on_host(memory, set, memory.declaration().host_reference_function(), timed);
  const double sentinel = sentinel_value();
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    output_memory& out = outputs[k];
    std::size_t unassigned = 0;
    if (!out.in_place()) {
      for (double v : out_values[k]) unassigned += std::memcmp(&v, &sentinel, sizeof v) == 0;
    }
    report_unwritten(out, unassigned, "host reference", "unassigned", problems);
    host_array expected{dtype::f64, std::vector<unsigned char>(out_values[k].size() * sizeof(double))};
    std::memcpy(expected.bytes.data(), out_values[k].data(), expected.bytes.size());
    out.expected.set(std::move(expected));
  }
  if (set == 0) {
    for (input_memory& in : inputs) {
      if (memory.input_changed(in)) {
        problems.push_back({finding_kind::input_modified,
                            fmt::format("input '{}' changed during the host reference", in.slot->name)});
      }
    }
  }
}

// The optimized kernel's outputs held aside, to be matched bit for bit by later runs on the same inputs.
struct output_bits {
  std::vector<device_allocation> copies;
};

inline output_bits hold_outputs(case_memory& memory) {
  output_bits held;
  for (output_memory& out : memory.outputs()) {
    const std::size_t bytes = (out.optimized.bytes() + 3) / 4 * 4;  // whole words: the last one reaches into the guard
    const current_device here = memory.on(*out.slot);
    held.copies.emplace_back(bytes);
    KBENCH_HIP_CHECK(hipMemcpyAsync(held.copies.back().data(), out.optimized.data(), bytes, hipMemcpyDeviceToDevice,
                                    memory.stream_of(*out.slot)));
  }
  memory.synchronize();
  return held;
}

// The element of a buffer's rows at position `stored` of its memory (padding counted).
[[nodiscard]] inline std::size_t logical_index(const buffer_slot& slot, std::size_t stored) {
  return slot.padded() ? stored / slot.pitch * slot.row() + std::min(stored % slot.pitch, slot.row() - 1) : stored;
}

// Runs the optimized kernel again on the same inputs (with `load` blocks per compute unit spinning on
// another stream, competing with it; 0: none) and reports outputs whose bits differ from `held`. True
// when some did.
inline bool rerun_and_match(case_memory& memory, const output_bits& held, int load, std::vector<finding>& problems) {
  memory.prepare_outputs(side::optimized);
  if (load > 0) memory.load_device(1e-3, load);
  bool differed = false;
  memory.launch(side::optimized);
  memory.synchronize_devices();
  const bool required = memory.declaration().is_deterministic();
  std::vector<output_memory>& outputs = memory.outputs();
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    std::size_t first = 0;
    const current_device here = memory.on(*outputs[k].slot);
    const std::size_t differ = count_differing_words(held.copies[k].data(), outputs[k].optimized.data(),
                                                     held.copies[k].bytes(), memory.stream_of(*outputs[k].slot), first);
    if (differ == 0) continue;
    differed = true;
    const std::size_t width = info(outputs[k].slot->type).size;
    problems.push_back(
        {required ? finding_kind::nondeterministic : finding_kind::note,
         fmt::format("the optimized kernel gave other bits on the same inputs{}: output '{}' differs in {} word(s), first "
                     "at element {}{}",
                     load ? " while other work loaded the device" : "", outputs[k].slot->name, differ,
                     format_index(logical_index(*outputs[k].slot, first / width), outputs[k].slot->extents),
                     required ? " (the case declares it deterministic)"
                              : " (a race, or atomics reordering a reduction; declare deterministic() to make this fail)")});
  }
  return differed;
}

// The shake: reruns while other work loads the device, up to three (48, 24 and 64 warps of load per
// compute unit: each interleaves the case's warps differently), until one shows other bits. A race
// that a quiet device hides shows in some of them; one rerun caught a block reduction missing a barrier
// in 5 of 6 checks on the H200.
inline void shake(case_memory& memory, const output_bits& held, std::vector<finding>& problems) {
  for (const int load : {6, 3, 8}) {
    if (rerun_and_match(memory, held, load, problems)) return;
  }
}

// Both sides against the oracle on input set 0: a host computation in double, run as a host reference is.
inline void check_against_oracle(case_memory& memory, seed_result& r) {
  std::vector<output_memory>& outputs = memory.outputs();
  const std::vector<std::vector<double>> out_values = compute_on_host(memory, 0, memory.declaration().oracle_function());
  const double ratio = memory.declaration().oracle_ratio();
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    output_memory& out = outputs[k];
    const buffer_slot& slot = *out.slot;
    const array_view exact{out_values[k].data(), dtype::f64, slot.size, slot.extents};
    compare_options quiet;
    quiet.mismatches_to_keep = 0;
    const tolerance any = memory.declaration().tolerance_of(slot);
    const host_array optimized = [&] {
      const current_device here = memory.on(slot);
      return read_values(out.optimized.data(), slot);
    }();
    const comparison reference_side = compare(memory.expected_on_host(out).view(slot.size, slot.extents), exact, any, quiet);
    const comparison optimized_side = compare(optimized.view(slot.size, slot.extents), exact, any, quiet);
    auto inexact = [](const comparison& c) {
      return c.finite_pairs ? 1.0 - static_cast<double>(c.ulps_equal) / static_cast<double>(c.finite_pairs) : 0.0;
    };
    oracle_result o{inexact(reference_side), inexact(optimized_side), reference_side.max_ulps, optimized_side.max_ulps, 0.0};
    o.allowed_inexact = ratio * o.reference_inexact + 0.001;
    r.outputs[k].oracle = o;
    if (o.optimized_inexact > o.allowed_inexact) {
      r.problems.push_back(
          {finding_kind::accuracy_loss,
           fmt::format("output '{}' is less accurate than the reference against the oracle (fp64 on the host): {:.3g}% "
                       "of its elements are not the correctly rounded value (worst {} apart), against the reference's "
                       "{:.3g}% (worst {}); at most {:.3g}% allowed ({}x the reference's + 0.1%)",
                       slot.name, 100 * o.optimized_inexact, o.optimized_max_ulps, 100 * o.reference_inexact,
                       o.reference_max_ulps, 100 * o.allowed_inexact, ratio)});
    }
  }
}

// Memory for the runs with buffers moved off their alignment: each buffer's bytes and 16 more, and an
// aligned copy of each output for the comparison (the device comparison reads 16 bytes at a time).
struct moved_buffers {
  std::vector<device_allocation> inputs, outputs, aligned;
};

// The optimized kernel with buffers moved `offset` bytes off their natural alignment (those whose element
// size divides it; the others stay), on the inputs of set 0: its outputs must be the reference's.
inline void run_misaligned(case_memory& memory, std::size_t offset, moved_buffers& held, seed_result& r) {
  auto moved = [offset](const buffer_slot& slot) { return offset % info(slot.type).size == 0 ? offset : 0; };
  std::vector<void*> inputs, outputs;
  std::vector<input_memory>& ins = memory.inputs();
  std::vector<output_memory>& outs = memory.outputs();
  for (std::size_t k = 0; k < ins.size(); ++k) {
    const std::size_t bytes = ins[k].slot->storage_bytes();
    const current_device here = memory.on(*ins[k].slot);
    inputs.push_back(static_cast<unsigned char*>(held.inputs[k].data()) + moved(*ins[k].slot));
    KBENCH_HIP_CHECK(hipMemcpyAsync(inputs.back(), ins[k].memory.data(), bytes, hipMemcpyDeviceToDevice,
                                    memory.stream_of(*ins[k].slot)));
  }
  for (std::size_t k = 0; k < outs.size(); ++k) {
    outputs.push_back(static_cast<unsigned char*>(held.outputs[k].data()) + moved(*outs[k].slot));
    const current_device here = memory.on(*outs[k].slot);
    if (outs[k].in_place()) {
      KBENCH_HIP_CHECK(hipMemcpyAsync(outputs.back(), outs[k].initial.data(), outs[k].optimized.bytes(),
                                      hipMemcpyDeviceToDevice, memory.stream_of(*outs[k].slot)));
    } else {
      poison(outputs.back(), outs[k].slot->type, outs[k].slot->storage(), memory.stream_of(*outs[k].slot));
    }
  }
  const std::string where = fmt::format("with buffers moved {} byte{} off their alignment", offset, offset > 1 ? "s" : "");
  memory.synchronize();  // the copies and the poison are in place, whatever stream the kernel uses
  try {
    memory.launch_at(side::optimized, inputs, outputs);
    memory.synchronize_devices();
  } catch (const hip_error& e) {
    // Not a finding to go on from: a misaligned access is a sticky error on NVIDIA, the device unusable.
    throw hip_error(e.code(), fmt::format("{}, the optimized kernel failed (it needs aligned buffers: declare "
                                          "requires_alignment(), or check the addresses): {}",
                                          where, e.what()));
  }
  for (std::size_t k = 0; k < outs.size(); ++k) {
    output_memory& out = outs[k];
    {
      const current_device here = memory.on(*out.slot);
      KBENCH_HIP_CHECK(hipMemcpyAsync(held.aligned[k].data(), outputs[k], out.optimized.bytes(), hipMemcpyDeviceToDevice,
                                      memory.stream_of(*out.slot)));
      KBENCH_HIP_CHECK(hipStreamSynchronize(memory.stream_of(*out.slot)));
    }
    const comparison c =
        memory.compare_output(out, held.aligned[k].data(), memory.has_device_reference() ? out.reference.data() : nullptr);
    if (!c.passed) {
      r.problems.push_back({finding_kind::misaligned,
                            fmt::format("{} ({} bytes for output '{}'), the optimized kernel disagrees with the reference: "
                                        "{}",
                                        where, moved(*out.slot), out.slot->name,
                                        c.reasons.empty() ? std::string("failed") : c.reasons.front())});
    }
  }
}

// Every offset of 1, 2, 4 and 8 bytes that moves some buffer and that the case's required alignment allows.
inline void check_alignment(case_memory& memory, seed_result& r) {
  const std::size_t required = memory.declaration().required_alignment();
  std::vector<std::size_t> offsets;
  for (const std::size_t offset : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
    bool moves = false;
    for (const auto& slot : memory.declaration().buffers()) moves = moves || offset % info(slot->type).size == 0;
    if (moves && offset % required == 0) offsets.push_back(offset);
  }
  if (offsets.empty()) return;
  moved_buffers held;
  for (input_memory& in : memory.inputs()) {
    const current_device here = memory.on(*in.slot);
    held.inputs.emplace_back(in.slot->storage_bytes() + 16);
  }
  for (output_memory& out : memory.outputs()) {
    const current_device here = memory.on(*out.slot);
    held.outputs.emplace_back(out.optimized.bytes() + 16);
    held.aligned.emplace_back(out.optimized.bytes());
  }
  for (const std::size_t offset : offsets) run_misaligned(memory, offset, held, r);
}

// One correctness run at `seed`; `probe_teeth` also proves that the tolerance can fail.
[[nodiscard]] inline seed_result run_correctness(case_memory& memory, std::uint64_t seed, bool probe_teeth) {
  seed_result r;
  r.seed = seed;
  memory.draw(seed);
  run_side(memory, side::optimized, r.problems);
  const output_bits held = hold_outputs(memory);
  rerun_and_match(memory, held, 0, r.problems);
  if (probe_teeth) shake(memory, held, r.problems);
  if (memory.has_device_reference()) {
    run_device_reference(memory, r.problems);
  } else {
    r.host_reference.emplace();
    run_host_reference(memory, r.problems, 0, &*r.host_reference);
  }
  if (probe_teeth) check_teeth(memory, r.problems);
  for (output_memory& out : memory.outputs()) {
    r.outputs.push_back({out.slot->name, out.slot->type, out.slot->extents, memory.compare_output(out), {}});
  }
  if (probe_teeth && memory.declaration().oracle_function()) check_against_oracle(memory, r);
  if (probe_teeth) {
    check_alignment(memory, r);
    // The last launch of the run on set 0's buffers again, as in a run without the moved ones: a kernel
    // that keys a cache on its buffers' addresses meets the next run's inputs there.
    rerun_and_match(memory, held, 0, r.problems);
  }
  return r;
}

}  // namespace detail
}  // namespace kbench
