// kbench/procedure/sealed_outputs.hpp: right outputs that kbench holds in device memory, sealed
// (engines/sealed_memory.hpp) while the optimized side runs again on the inputs they belong to: a correctness
// run's launches off their alignment, against unmapped memory, and its last launch. Sealed are the device
// reference's outputs and the optimized side's first outputs held to match later runs bit for bit (its own
// output buffers are poisoned instead). A copy of them gives the key stream, not the values; a write into
// them is an error that says so. The first launch on new inputs needs none of this: the reference's outputs
// of them do not exist yet. (A timed sample whose reference went first poisons the reference's outputs
// instead, and runs it again for a check: timing_run.hpp.) One object can seal again once unsealed: the
// fingerprint counters it allocated stay for the next seals.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "../contract/error.hpp"
#include "../engines/sealed_memory.hpp"
#include "case_buffers.hpp"
#include "case_devices.hpp"

namespace kbench {
namespace detail {

class sealed_outputs {
 public:
  sealed_outputs(const case_layout& layout, const case_devices& devices) : layout_(layout), devices_(devices) {}

  // Every output of a device reference (a host reference's values are on the host: nothing to seal).
  void seal_reference(const case_buffers& buffers) {
    if (!layout_.has_device_reference()) return;
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      seal(k, "the reference's output", buffers.output_data(side::reference, k), layout_.output_slot(k).storage_bytes());
    }
  }

  // The copies of a side's outputs held aside.
  void seal_held(const held_outputs& held) {
    for (std::size_t k = 0; k < layout_.output_count(); ++k) {
      seal(k, held.of() == side::optimized ? "the copy kbench holds of its first output" : "the copy of the reference's output",
           held.at(k).data(), held.at(k).bytes());
    }
  }

  // Whether anything is sealed.
  [[nodiscard]] bool sealed() const { return !seals_.empty(); }

  // Everything left sealed, once the optimized side's work is done: an error naming what anything wrote to
  // meanwhile, and `during`, the launch. For runs that follow one another on the same inputs, each checked
  // with the memory sealed throughout (one pass that reads it, where unsealing and sealing again take two that
  // read and write it).
  void check_intact(const std::string& during) {
    throw_if_written(first_changed([](sealed_memory& seal) { return seal.intact(); }), during);
  }

  // Everything sealed back, once the optimized side's work is done; an error naming what anything wrote to
  // meanwhile, and `during`, the launch.
  void unseal(const std::string& during) {
    const std::string written = first_changed([](sealed_memory& seal) { return seal.unseal(); });
    seals_.clear();
    throw_if_written(written, during);
  }

 private:
  struct seal_of_output {
    std::size_t output;
    std::string what;
    std::unique_ptr<sealed_memory> seal;
  };

  // `step` (intact() or unseal()) on every seal, each on its memory's device: the first sealed output whose
  // words changed, named ("" when none did).
  template <class Step>
  [[nodiscard]] std::string first_changed(Step&& step) {
    std::string written;
    for (seal_of_output& s : seals_) {
      const current_device here = devices_.on(layout_.output_slot(s.output));
      if (!step(*s.seal) && written.empty()) written = s.what + " '" + layout_.output_slot(s.output).name + "'";
    }
    return written;
  }
  static void throw_if_written(const std::string& written, const std::string& during) {
    if (written.empty()) return;
    throw error("kbench: the optimized side wrote into " + written + " " + during +
                ": memory it was never given (kbench had sealed it): a kernel that writes far outside its buffers, or a "
                "launcher that looks for right results and changes them (tampering)");
  }

  // Two device words on (logical) `device` for the n-th seal: kept from an earlier seal there, or made.
  unsigned long long* counters_for(std::size_t n, int device) {
    if (counters_.size() <= n) counters_.resize(n + 1);
    if (!counters_[n].words.data() || counters_[n].device != device) counters_[n] = {device, device_buffer<unsigned long long>(2)};
    return counters_[n].words.data();
  }
  void seal(std::size_t k, std::string what, void* data, std::size_t bytes) {
    const buffer_slot& slot = layout_.output_slot(k);
    const current_device here = devices_.on(slot);
    unsigned long long* counters = counters_for(seals_.size(), slot.device_index);
    seals_.push_back({k, std::move(what), std::make_unique<sealed_memory>(data, bytes, devices_.stream_of(slot), counters)});
    seals_.back().seal->seal();
  }

  struct counter_words {
    int device = -1;
    device_buffer<unsigned long long> words;
  };

  const case_layout& layout_;
  const case_devices& devices_;
  std::vector<seal_of_output> seals_;
  std::vector<counter_words> counters_;  // by seal, kept between seals
};

}  // namespace detail
}  // namespace kbench
