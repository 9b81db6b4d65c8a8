// kbench/contract/declaration_digest.hpp: a case's declaration at a shape as canonical text, and a digest of
// it, so that a pipeline sees when a test changed between two runs (a tolerance raised, a shape dropped, an
// allowance raised): the results carry both per case (json_report.hpp), and a comparison with a baseline
// lists the cases whose digest moved (baseline.hpp). The text holds what a case declares as data: buffers
// (role, dtype, extents, pitch, device, distribution, the tolerance that applies), the kind of each side's
// launch, the work model, the performance requirements and allowances, the census expectations and the
// flags. A launch is a function kbench cannot read: the kernels' code enters through the census instead
// (results/case_digest.hpp). HIP-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "declaration.hpp"
#include "distribution.hpp"
#include "dtype.hpp"
#include "shape.hpp"
#include "tolerance.hpp"

namespace kbench::detail {

// FNV-1a, 64 bits: stable across platforms and runs, and enough to tell two versions of a test apart (not
// a defence against a collision made on purpose).
[[nodiscard]] constexpr std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (char ch : text) {
    hash ^= static_cast<unsigned char>(ch);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// "fnv1a64:" and 16 hex digits: a digest says how it was made.
[[nodiscard]] inline std::string digest_text(std::uint64_t hash) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

// The digest of canonical lines, each ended by a newline (so that no two lists join to the same text).
[[nodiscard]] inline std::string digest_of_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + '\n';
  return digest_text(fnv1a64(text));
}

// A number as text that reads back to the same double (17 significant digits): a change in the last bit
// shows.
[[nodiscard]] inline std::string exact_number(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

[[nodiscard]] inline std::string exact_text(const distribution& d) {
  switch (d.shape) {
    case distribution::kind::uniform: return "uniform(" + exact_number(d.a) + ", " + exact_number(d.b) + ")";
    case distribution::kind::normal: return "normal(" + exact_number(d.a) + ", " + exact_number(d.b) + ")";
    case distribution::kind::arange: return "arange(" + exact_number(d.a) + ", " + exact_number(d.b) + ")";
    case distribution::kind::constant: return "constant(" + exact_number(d.a) + ")";
    case distribution::kind::choice:
      return "choice(" + exact_number(d.a) + ", " + exact_number(d.b) + ", " + exact_number(d.weight) + ")";
    case distribution::kind::from_index: return d.describe();  // its name: the function's code cannot be read
  }
  return "?";
}

// Every field of a tolerance that decides a comparison, exactly, then its description, which names every
// policy and its parameters (so that a field added to tolerance later still moves the digest).
[[nodiscard]] inline std::string exact_text(const tolerance& t) {
  std::string text;
  for (const element_rule& r : t.element_rules) {
    const char* kind = r.rule == element_rule::kind::exact ? "exact" : r.rule == element_rule::kind::within ? "within" : "ulp";
    text += std::string(kind) + "(atol=" + exact_number(r.atol) + ", rtol=" + exact_number(r.rtol) +
            ", max_ulps=" + std::to_string(r.max_ulps) + ") ";
  }
  auto optional = [](const std::optional<double>& v) { return v ? exact_number(*v) : std::string("none"); };
  return text + "equal_nan=" + (t.equal_nan ? "yes" : "no") + " max_mismatch_fraction=" +
         exact_number(t.max_mismatch_fraction) + " min_cosine=" + optional(t.min_cosine) +
         " max_relative_l2=" + optional(t.max_relative_l2) + " (" + t.description + ")";
}

// One buffer of a declaration, with what kbench draws into it and the tolerance it is compared with.
struct buffer_facts {
  declared_buffer layout;
  std::optional<distribution> init;   // inputs and in-place buffers
  std::optional<tolerance> compared;  // outputs and in-place buffers: the tolerance that applies
  bool edge_values = true;            // drawn buffers: also tried at the edges (kernel_case::edge_values)
};

// What a case declares at a shape, as data (procedure_impl.hpp reads it from the declared case).
struct declaration_facts {
  std::string name;
  kbench::shape shape;
  std::vector<kbench::shape> registered_shapes;  // a shape dropped or added changes every shape's digest
  std::vector<buffer_facts> buffers;             // in declaration order
  std::string reference;                         // "device", "device, a stream per device", "host"
  std::string optimized;                         // "device", "device, a stream per device"
  int devices = 1;
  bool requires_peer_access = false;
  work_model work;
  perf_expectations expectations;
  census_expectations census;
  std::vector<resource_bound> resource_bounds;
  bool deterministic = false;
  bool oracle = false;
  double oracle_ratio = 2.0;
  std::size_t requires_alignment = 1;
  bool edge_values = true;
};

[[nodiscard]] inline std::string buffer_line(const buffer_facts& b) {
  const declared_buffer& l = b.layout;
  const char* role = role_name(l.role);
  std::string extents;
  for (std::size_t e : l.extents) extents += (extents.empty() ? "" : " x ") + std::to_string(e);
  if (l.sized_when_opened) extents = "sized on the GPU";
  std::string line = std::string("buffer ") + role + " " + l.name + " " + std::string(info(l.type).name) + " [" + extents +
                     "] pitch " + std::to_string(l.pitch) + " device " + std::to_string(l.device);
  if (b.init) line += " init " + exact_text(*b.init);
  if (b.init && !b.edge_values) line += " as declared only";  // only where opted out: older digests hold
  if (b.compared) line += " tolerance " + exact_text(*b.compared);
  return line;
}

// The canonical text of a declaration: one line per part, in a fixed order and format. Changing the
// format changes every digest, which a comparison reports as changed declarations: change it rarely.
[[nodiscard]] inline std::vector<std::string> declaration_lines(const declaration_facts& d) {
  std::string shapes;
  for (const kbench::shape& s : d.registered_shapes) shapes += (shapes.empty() ? "" : "; ") + s.to_string();
  std::vector<std::string> lines{"case " + d.name, "shape " + d.shape.to_string(), "registered shapes " + shapes};
  for (const buffer_facts& b : d.buffers) lines.push_back(buffer_line(b));
  const work_model& w = d.work;
  const perf_expectations& e = d.expectations;
  const census_expectations& c = d.census;
  lines.insert(lines.end(), {
      "reference " + d.reference,
      "optimized " + d.optimized,
      "devices " + std::to_string(d.devices) + " peer_access " + (d.requires_peer_access ? "yes" : "no"),
      // The arithmetic only where it is not the default (fp32 on vector units), so that older digests hold.
      "work bytes=" + exact_number(w.bytes) + " flops=" + exact_number(w.flops) +
          (w.flops > 0 && (w.flop_type != dtype::f32 || w.matrix_units)
               ? " in " + std::string(info(w.flop_type).name) + (w.matrix_units ? " on matrix units" : "")
               : std::string()) +
          " tokens=" + exact_number(w.tokens) + " link_bytes=" + exact_number(w.link_bytes) +
          // The calls per layer and per token only where declared, so that older digests hold.
          (w.calls_per_layer > 0 ? " calls_per_layer=" + exact_number(w.calls_per_layer) : std::string()) +
          (w.calls_per_token > 0 ? " calls_per_token=" + exact_number(w.calls_per_token) : std::string()),
      "requires speedup=" + exact_number(e.required_speedup) + " bandwidth=" + exact_number(e.required_bandwidth) +
          " allows speedup up to " + exact_number(e.max_plausible_speedup) + (e.speedup_limit_declared ? " (declared)" : ""),
      "census kernels=" + std::to_string(c.kernels) + " max_registers=" + std::to_string(c.max_registers) +
          " min_occupancy=" + exact_number(c.min_occupancy),
      std::string("deterministic ") + (d.deterministic ? "yes" : "no"),
      std::string("oracle ") + (d.oracle ? "yes, ratio " + exact_number(d.oracle_ratio) : std::string("no")),
      "requires alignment " + std::to_string(d.requires_alignment),
  });
  if (!d.edge_values) lines.emplace_back("edge values no");  // only where opted out: older digests hold
  for (const resource_bound& r : d.resource_bounds) {  // a line each, only where declared: older digests stay
    lines.push_back("resources '" + r.kernels + "' on " + (r.target.empty() ? "every target" : r.target) +
                    " vgprs<=" + std::to_string(r.max_vgprs) + " no_spills=" + (r.no_spills ? "yes" : "no") +
                    " scratch<=" + std::to_string(r.max_scratch_bytes) + " lds<=" + std::to_string(r.max_lds_bytes) +
                    " waves>=" + std::to_string(r.min_waves_per_simd) +
                    (r.min_warps_per_sm >= 0 ? " warps>=" + std::to_string(r.min_warps_per_sm) : std::string()));
  }
  return lines;
}

}  // namespace kbench::detail
