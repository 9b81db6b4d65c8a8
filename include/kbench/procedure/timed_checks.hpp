// kbench/procedure/timed_checks.hpp: the checks of a timing run's timed launches. Every sample looks like
// every other to the kernel: its outputs prepared alike, the order of the two sides drawn per sample, and
// the launches to check drawn only once the sample has run (check_sampling.hpp), each compared with the
// reference's launch on the same input set on the device, outside the timed regions (timed_audit.hpp); in a
// sample whose reference went first, whose outputs were poisoned before the optimized side ran, the reference
// runs again (untimed) for the check.
// The last sample always has one launch checked: the stop rule decides after a sample ran, so a kernel
// cannot tell which one is last. The checks' expected host time is held to a share of the timed work.
//
// What can be checked: in cold and hot mode, the one launch of each sample; in batch mode the launches whose
// output copies no later launch of the sample wrote (timed_input_sets.hpp): every launch when each has its
// own, else the last as many as there are copies. With a host reference, each check runs the host
// function: only the last sample is checked.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../decisions/check_sampling.hpp"
#include "../results/outcome.hpp"
#include "../results/results.hpp"
#include "case_buffers.hpp"
#include "host_computation.hpp"
#include "output_comparator.hpp"
#include "timed_audit.hpp"
#include "timed_input_sets.hpp"

namespace kbench {
namespace detail {

// Share of the timed work that the checks' host time may take, on average.
inline constexpr double check_budget_share = 0.15;

class timed_checks {
 public:
  // `launches`: launches per sample; `output_copies`: the copies of the outputs they write in turn.
  timed_checks(const case_layout& layout, const case_devices& devices, const case_buffers& buffers,
               output_comparator& comparator, host_computation& host, int launches, int output_copies)
      : layout_(layout), devices_(devices), buffers_(buffers), comparator_(comparator), host_(host),
        with_reference_(layout.has_device_reference()), launches_(launches),
        candidates_(std::clamp(output_copies, 1, launches)),
        sampler_(with_reference_ ? check_budget_share : 0.0, first_estimate(layout)) {}

  // Whether the optimized kernel goes first in the next sample.
  [[nodiscard]] bool optimized_first() { return sampler_.optimized_first(); }

  // After a sample ran (its outputs still in place; `timed_seconds`: both sides' timed regions): the
  // launches drawn for checking, checked; `last`: the run's last sample, of which one launch always is;
  // `reference_first`: its reference went first, so its outputs were poisoned before the optimized side ran
  // (timing_run.hpp), and a check runs it again. Once a launch was found wrong, no more are checked. Returns
  // what the checks found.
  [[nodiscard]] std::vector<finding> after_sample(timed_input_sets& sets, double timed_seconds, bool last,
                                                  bool reference_first) {
    ++samples_;
    const std::vector<int> chosen = sampler_.choose(candidates_, timed_seconds, last);
    if (chosen.empty() || wrong_) return {};
    const auto start = std::chrono::steady_clock::now();
    int checked = 0;
    std::vector<finding> found;
    for (const int candidate : chosen) {
      const int launch = launches_ - candidates_ + candidate;  // the last candidates_ of the sample
      ++checked;
      if (reference_first) {  // on the inputs the optimized launch read, its in-place values restored
        sets.launch(side::reference, launch);
        devices_.synchronize();
      }
      found = check_timed_launch(layout_, devices_, buffers_, comparator_, host_, sets, with_reference_, launch,
                                 where(launch));
      wrong_ = !found.empty();
      if (wrong_) break;
    }
    sampler_.checked(checked, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return found;
  }

  // After a single timed launch of the optimized kernel on launch 0's input set (the latency and
  // seen-inputs launches, seconds `timed_seconds`): drawn for checking like any other; when drawn, the
  // reference runs on the same set (untimed) and the outputs are compared. `what` names the launch.
  // Returns what the check found.
  [[nodiscard]] std::vector<finding> after_single(timed_input_sets& sets, double timed_seconds, const char* what) {
    ++singles_;
    if (!with_reference_ || wrong_ || sampler_.choose(1, timed_seconds, false).empty()) return {};
    const auto start = std::chrono::steady_clock::now();
    sets.restore_in_place(side::reference, 1);
    sets.launch(side::reference, 0);
    devices_.synchronize();
    std::vector<finding> found = check_timed_launch(layout_, devices_, buffers_, comparator_, host_, sets, true, 0, what);
    wrong_ = !found.empty();
    sampler_.checked(1, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return found;
  }

  // How many launches were timed and checked, and what that catches.
  [[nodiscard]] launch_checks summary() const {
    launch_checks c;
    c.timed = samples_ * launches_ + singles_;
    c.checked = sampler_.checked_launches();
    // A kernel wrong only on launches whose copies a later launch overwrote is never found.
    const double checkable = static_cast<double>(candidates_) / launches_;
    c.smallest_share_caught = 1.0 - checkable * (1.0 - smallest_share_caught(c.checked));
    if (!with_reference_) {
      c.limit = "with a host reference only the last sample is checked (each check runs the host function)";
    } else if (candidates_ < launches_) {
      c.limit = fmt::format("the {} launches of a sample write {} cop{} of their outputs in turn (one for each "
                            "would not fit in a sixteenth of the L2, beside the inputs batch mode times hot): only "
                            "the last {} of each sample can be checked",
                            launches_, candidates_, candidates_ == 1 ? "y" : "ies", candidates_);
    }
    return c;
  }

 private:
  // "sample 12, launch 3 of 58"
  [[nodiscard]] std::string where(int launch) const {
    if (launches_ == 1) return fmt::format("sample {}", samples_);
    return fmt::format("sample {}, launch {} of {}", samples_, launch + 1, launches_);
  }

  // Host seconds of one check until one has been timed: both outputs read once at about 1 TB/s, and
  // 50 us of launches and waits.
  [[nodiscard]] static double first_estimate(const case_layout& layout) {
    double bytes = 0.0;
    for (std::size_t k = 0; k < layout.output_count(); ++k) bytes += 2.0 * layout.output_slot(k).storage_bytes();
    return bytes / 1e12 + 50e-6;
  }

  const case_layout& layout_;
  const case_devices& devices_;
  const case_buffers& buffers_;
  output_comparator& comparator_;
  host_computation& host_;
  const bool with_reference_;
  const int launches_;
  const int candidates_;  // launches of a sample that can be checked: the last candidates_
  check_sampler sampler_;
  long long samples_ = 0;
  long long singles_ = 0;  // after_single's launches
  bool wrong_ = false;
};

}  // namespace detail
}  // namespace kbench
