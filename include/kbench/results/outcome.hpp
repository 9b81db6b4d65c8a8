// kbench/results/outcome.hpp: the kinds of outcome kbench reports, as enums, and the one place they become words
// (the reports and the JSON file both use to_string). HIP-free.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kbench {

// What a program run does (`<program> correctness|perf|list`).
enum class run_mode { correctness, perf, census, list, resources };

// How samples are taken (see measure.hpp): cold flushes the caches before every launch, hot does not,
// batch times a graph of many launches (hot) and reports the time per launch; automatic (an option
// only, never a result) is cold, or batch for kernels shorter than batch_below_us.
enum class timing_mode { automatic, cold, hot, batch };

// The verdict on one case at one shape.
enum class case_verdict {
  pass,
  fail,      // a wrong kernel, a broken test, a flagged timing
  skipped,   // no usable GPU
  filtered,  // left out by --max-elements
  error,     // a HIP error, or an exception outside any comparison
};

// The speedup's verdict: the 95% interval clears 1 by more than 1% one way or the other, or it does not.
enum class speedup_verdict { none, faster, slower, no_significant_difference };

// What kbench found besides the comparisons. Every kind but `note` fails the test it was found in.
enum class finding_kind {
  stray_write,         // a kernel wrote outside an output's bounds
  input_modified,      // a launch changed an input
  reference_incomplete,// the reference left elements unwritten
  broken_test,         // the tolerance cannot fail
  nondeterministic,    // the optimized kernel gave other bits on the same inputs (fails if the case says deterministic)
  accuracy_loss,       // against the oracle, materially less accurate than the reference
  misaligned,          // wrong, or failing, with buffers moved off their natural alignment
  timed_launch_wrong,  // a checked timed launch disagrees with the reference on the same inputs
  unseen_work,         // work the timed stream did not see: another stream, after the launch returned, skipped calls
  memoization,         // faster on inputs an earlier launch has seen: results reused
  implausible,         // a speedup or a bandwidth the case or the device does not allow
  requirement_missed,  // short of require_speedup / require_bandwidth
  census_mismatch,     // the optimized side's kernels contradict what the case expects of them (census.hpp)
  note,                // worth knowing, not failing
  persisting_cache,    // a kernel kept memory in L2 through the cache flush (an access-policy window, set-aside L2)
  throttled,           // too few samples ran at the SM clock to leave out those that did not (throttle_rule.hpp)
  edge_value,          // wrong where the reference is finite, on inputs at other magnitudes or special values
  out_of_bounds,       // wrong with a buffer against unmapped memory, at its end or at its start
  unfollowed_input,    // wrong where a few input elements (spikes) or the inputs' family changed: work left out
  launch_over_limit,   // a kernel launched over a limit of the device or of the kernel (launch_limits.hpp)
};

struct finding {
  finding_kind kind = finding_kind::note;
  std::string text;
  [[nodiscard]] bool fails() const { return kind != finding_kind::note; }
};

// Which step of a case's procedure found it: a correctness run (its problems), the timing run (its
// findings), or the census. Each step keeps its own; a case's outcome lists them all, each with its source.
enum class finding_source { check, timing, census };

// A finding as a case's outcome lists it (perf_outcome::findings): with the step that found it.
struct sourced_finding : finding {
  finding_source source = finding_source::check;
};

// `found` added at the end of `to`: a stage returns what it found, and its caller puts the stages' findings
// together in the order they ran.
inline void append(std::vector<finding>& to, const std::vector<finding>& found) { to.insert(to.end(), found.begin(), found.end()); }

// The texts of the findings that fail (or, with `failing` false, of the notes).
[[nodiscard]] inline std::vector<std::string> texts(const std::vector<finding>& findings, bool failing = true) {
  std::vector<std::string> out;
  for (const finding& f : findings) {
    if (f.fails() == failing) out.push_back(f.text);
  }
  return out;
}

[[nodiscard]] inline bool any_failing(const std::vector<finding>& findings) {
  for (const finding& f : findings) {
    if (f.fails()) return true;
  }
  return false;
}

[[nodiscard]] constexpr std::string_view to_string(run_mode m) {
  switch (m) {
    case run_mode::correctness: return "correctness";
    case run_mode::perf: return "perf";
    case run_mode::census: return "census";
    case run_mode::list: return "list";
    case run_mode::resources: return "resources";
  }
  return "?";
}

[[nodiscard]] constexpr std::string_view to_string(timing_mode m) {
  switch (m) {
    case timing_mode::automatic: return "auto";
    case timing_mode::cold: return "cold";
    case timing_mode::hot: return "hot";
    case timing_mode::batch: return "batch";
  }
  return "?";
}

[[nodiscard]] constexpr std::string_view to_string(case_verdict v) {
  switch (v) {
    case case_verdict::pass: return "pass";
    case case_verdict::fail: return "fail";
    case case_verdict::skipped: return "skipped";
    case case_verdict::filtered: return "filtered";
    case case_verdict::error: return "error";
  }
  return "?";
}

[[nodiscard]] constexpr std::string_view to_string(speedup_verdict v) {
  switch (v) {
    case speedup_verdict::none: return "";
    case speedup_verdict::faster: return "faster";
    case speedup_verdict::slower: return "slower";
    case speedup_verdict::no_significant_difference: return "no significant difference";
  }
  return "?";
}

[[nodiscard]] constexpr std::string_view to_string(finding_source s) {
  switch (s) {
    case finding_source::check: return "check";
    case finding_source::timing: return "timing";
    case finding_source::census: return "census";
  }
  return "?";
}

[[nodiscard]] constexpr std::string_view to_string(finding_kind k) {
  switch (k) {
    case finding_kind::stray_write: return "stray_write";
    case finding_kind::input_modified: return "input_modified";
    case finding_kind::reference_incomplete: return "reference_incomplete";
    case finding_kind::broken_test: return "broken_test";
    case finding_kind::nondeterministic: return "nondeterministic";
    case finding_kind::accuracy_loss: return "accuracy_loss";
    case finding_kind::misaligned: return "misaligned";
    case finding_kind::timed_launch_wrong: return "timed_launch_wrong";
    case finding_kind::unseen_work: return "unseen_work";
    case finding_kind::memoization: return "memoization";
    case finding_kind::implausible: return "implausible";
    case finding_kind::requirement_missed: return "requirement_missed";
    case finding_kind::census_mismatch: return "census_mismatch";
    case finding_kind::note: return "note";
    case finding_kind::persisting_cache: return "persisting_cache";
    case finding_kind::throttled: return "throttled";
    case finding_kind::edge_value: return "edge_value";
    case finding_kind::out_of_bounds: return "out_of_bounds";
    case finding_kind::unfollowed_input: return "unfollowed_input";
    case finding_kind::launch_over_limit: return "launch_over_limit";
  }
  return "?";
}

}  // namespace kbench
