// kbench/reports/reporter.hpp: what every writer of a run's results is told, as nvbench's printer_base and
// Catch2's reporters are: a case ended (its record), the run ended (the one run_record, every case in it).
// A supervised child's records go to its parent as each case ends (program/program.hpp); the JSON file
// (json_report.hpp), the Markdown and CSV tables (table_report.hpp) and the comparison with a baseline
// (decisions/baseline.hpp) write when the run ends; reporter_list tells several, in order (program_main.hpp's
// finish() hands the run to its list). HIP-free.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "../results/results.hpp"

namespace kbench {

class reporter {
 public:
  virtual ~reporter() = default;
  // For a writer that follows the run as it goes (a supervised child's records, program/program.hpp); kbench's
  // files are each written whole when the run ends.
  virtual void case_ended(const case_record& record) { (void)record; }
  virtual void run_ended(const run_record& run) = 0;
};

// Several reporters as one: each is told every event, in the order they were added.
class reporter_list : public reporter {
 public:
  // Adds a `Reporter` made of `args`, and returns it (to ask it afterwards what it found).
  template <class Reporter, class... Args>
  Reporter& add(Args&&... args) {
    auto made = std::make_unique<Reporter>(std::forward<Args>(args)...);
    Reporter& added = *made;
    reporters_.push_back(std::move(made));
    return added;
  }
  [[nodiscard]] bool empty() const { return reporters_.empty(); }

  void case_ended(const case_record& record) override {
    for (const auto& r : reporters_) r->case_ended(record);
  }
  void run_ended(const run_record& run) override {
    for (const auto& r : reporters_) r->run_ended(run);
  }

 private:
  std::vector<std::unique_ptr<reporter>> reporters_;
};

}  // namespace kbench
