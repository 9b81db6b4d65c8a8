// kbench/contract/case_layout.hpp: a declared case's buffers as every stage looks them up: by position
// among its inputs, among its outputs and among its scratch buffers, each with its random stream (its
// position in the declaration, so that a buffer's values do not depend on the buffers declared around it
// being of another role). Made once per case and shape from the declaration; the stages take it for every
// look-up, and the memory (procedure/case_buffers.hpp) and the launches (procedure/case_launcher.hpp) keep
// to their own work.
#pragma once

#include <cstddef>
#include <vector>

#include "buffer_handle.hpp"
#include "declared_case.hpp"
#include "tolerance.hpp"

namespace kbench {
namespace detail {

class case_layout {
 public:
  explicit case_layout(const declared_case& declaration) : case_(declaration) {
    for (std::size_t id = 0; id < case_.buffers.size(); ++id) {
      buffer_slot* slot = case_.buffers[id].get();
      (slot->role == buffer_role::input ? inputs_ : slot->role == buffer_role::scratch ? scratch_ : outputs_)
          .push_back({slot, id});
    }
  }
  case_layout(const case_layout&) = delete;
  case_layout& operator=(const case_layout&) = delete;

  [[nodiscard]] const declared_case& declaration() const { return case_; }
  [[nodiscard]] bool has_device_reference() const { return case_.has_device_reference(); }

  [[nodiscard]] std::size_t input_count() const { return inputs_.size(); }
  [[nodiscard]] std::size_t output_count() const { return outputs_.size(); }
  [[nodiscard]] std::size_t scratch_count() const { return scratch_.size(); }
  [[nodiscard]] const buffer_slot& input_slot(std::size_t k) const { return *inputs_[k].slot; }
  [[nodiscard]] const buffer_slot& output_slot(std::size_t k) const { return *outputs_[k].slot; }
  [[nodiscard]] const buffer_slot& scratch_slot(std::size_t k) const { return *scratch_[k].slot; }
  // Whether output k is read and written in place (inout): it starts from drawn values, not from poison.
  [[nodiscard]] bool in_place(std::size_t k) const { return outputs_[k].slot->role == buffer_role::inout; }
  [[nodiscard]] std::size_t input_stream_id(std::size_t k) const { return inputs_[k].stream_id; }
  [[nodiscard]] std::size_t output_stream_id(std::size_t k) const { return outputs_[k].stream_id; }
  // Output k's tolerance: its own, else the case's, else its type's default.
  [[nodiscard]] kbench::tolerance tolerance_of_output(std::size_t k) const { return case_.tolerance_of(output_slot(k)); }

  // The handles a launch binds (case_launcher) and the scratch a query sizes (case_scratch): the slots
  // themselves, which only those two write.
  [[nodiscard]] buffer_slot& input_handle(std::size_t k) const { return *inputs_[k].slot; }
  [[nodiscard]] buffer_slot& output_handle(std::size_t k) const { return *outputs_[k].slot; }
  [[nodiscard]] buffer_slot& scratch_handle(std::size_t k) const { return *scratch_[k].slot; }

 private:
  struct placed {
    buffer_slot* slot;
    std::size_t stream_id;
  };
  const declared_case& case_;
  std::vector<placed> inputs_, outputs_, scratch_;
};

}  // namespace detail
}  // namespace kbench
