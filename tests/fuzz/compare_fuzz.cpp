// libFuzzer target: the tolerance engine and its reports on arbitrary arrays and tolerances. Besides
// not crashing (under ASan and UBSan), every result must keep the engine's invariants.
#include <kbench/engines/comparison.hpp>
#include <kbench/reports/json_report.hpp>
#include <kbench/reports/report.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct reader {
  const std::uint8_t* data;
  std::size_t size;
  template <class T>
  T take() {
    T v{};
    const std::size_t n = std::min(sizeof v, size);
    std::memcpy(&v, data, n);
    data += n, size -= n;
    return v;
  }
};

void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader in{data, size};
  const auto type = static_cast<kbench::dtype>(in.take<std::uint8_t>() % 13);
  const bool host_reference = in.take<std::uint8_t>() & 1;
  kbench::tolerance tol;
  const int rules = in.take<std::uint8_t>() % 4;
  for (int k = 0; k < rules; ++k) {
    kbench::element_rule r;
    r.rule = static_cast<kbench::element_rule::kind>(in.take<std::uint8_t>() % 3);
    r.atol = in.take<double>();
    r.rtol = in.take<double>();
    r.max_ulps = in.take<std::uint16_t>();
    tol.element_rules.push_back(r);
  }
  const std::uint8_t flags = in.take<std::uint8_t>();
  tol.equal_nan = flags & 1;
  tol.max_mismatch_fraction = (flags >> 1) / 128.0;
  if (flags & 0x80) tol.min_cosine = in.take<double>();
  if (in.take<std::uint8_t>() & 1) tol.max_relative_l2 = in.take<double>();
  tol.description = "fuzzed";

  const std::size_t width = kbench::info(type).size;
  const std::size_t expected_width = host_reference ? 8 : width;
  const std::size_t count = in.size / (width + expected_width);
  std::vector<std::uint8_t> actual(in.data, in.data + count * width);
  std::vector<std::uint8_t> expected(in.data + count * width, in.data + count * (width + expected_width));
  const std::vector<std::size_t> extents{count};
  const kbench::array_view a{actual.data(), type, count, extents};
  const kbench::array_view e{expected.data(), host_reference ? kbench::dtype::f64 : type, count, extents};

  kbench::compare_options options;
  options.mismatches_to_keep = 4;
  const kbench::comparison r = kbench::compare(a, e, tol, options);
  require(r.passed == r.reasons.empty());
  require(r.mismatches <= r.size && r.never_written <= r.size && r.first_mismatches.size() <= 4);
  require(!r.passed || (r.nonfinite_mismatches == 0 && r.never_written == 0));
  require(!r.passed || r.mismatches <= r.allowed_mismatches);
  require(r.size == 0 || r.passed || !r.reasons.empty());

  // Reports of any result format without trouble.
  const std::string text = kbench::format_comparison("fuzz", r, type, extents);
  require(!text.empty());
  kbench::run_record run;
  kbench::seed_result s;
  s.outputs.push_back({"fuzz", type, extents, r});
  run.cases.emplace_back().checks.push_back(s);
  require(!kbench::to_json(run).empty());
  return 0;
}
