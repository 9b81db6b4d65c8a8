// distribution.hpp and index_values.hpp: what a distribution says of itself, and the values of a function of
// the index, as the host evaluates them for the device (the device's draws are tested on a GPU:
// tests/harness/device_compare_test.hip, "[distribution]").
#include <kbench/contract/distribution.hpp>
#include <kbench/contract/index_values.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_distribution_test {  // one per file: the unit tests compile in unity batches

using kbench::dtype;
using kbench_test::contains;

// Element i of `count` values of `d` evaluated as type t, read back as double.
std::vector<double> evaluated(const kbench::distribution& d, dtype t, std::size_t count, std::uint64_t seed) {
  std::vector<unsigned char> bytes(count * kbench::info(t).size);
  kbench::detail::evaluate_from_index(d, t, count, seed, bytes.data());
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = kbench::load_as_double(bytes.data(), t, i);
  return values;
}

TEST_CASE("from_index: a named function of the index, or of the index and the seed", "[distribution]") {
  const kbench::distribution of_index = kbench::from_index("i mod 7", [](std::size_t i) { return i % 7; });
  CHECK(of_index.shape == kbench::distribution::kind::from_index);
  CHECK(of_index.describe() == "from_index(\"i mod 7\")");
  REQUIRE(of_index.function);
  CHECK((*of_index.function)(10, 12345) == 3.0);  // the seed left out
  const kbench::distribution seeded =
      kbench::from_index("i plus seed", [](std::size_t i, std::uint64_t seed) { return static_cast<double>(i + seed); });
  CHECK((*seeded.function)(2, 40) == 42.0);
  // Its values belong to their indices, as arange's do; they are not given values checked when declared.
  CHECK(seeded.positional());
  CHECK(kbench::arange(0, 1).positional());
  CHECK_FALSE(kbench::uniform(-1, 1).positional());
  CHECK_FALSE(kbench::choice(0, 1, 0.5).positional());
  CHECK_FALSE(seeded.given_values());
  // A copy shares the function (declarations are copied whole, per shape and per mode).
  const kbench::distribution copy = seeded;
  CHECK(copy.function == seeded.function);
}

TEST_CASE("from_index needs a name of one line: reports and the digest print it, not the function", "[distribution]") {
  auto unit = [](std::size_t) { return 1.0; };
  CHECK_THROWS_WITH((void)kbench::from_index("", unit), contains("the function needs a name of one line"));
  CHECK_THROWS_WITH((void)kbench::from_index("two\nlines", unit), contains("needs a name of one line"));
  CHECK_THROWS_WITH((void)kbench::from_index("say \"hi\"", unit), contains("without quotes"));
  CHECK_THROWS_AS((void)kbench::from_index("", unit), kbench::usage_error);
}

TEST_CASE("a function of the index is evaluated for every element, in every piece, as the type stores it",
          "[distribution]") {
  const std::size_t n = 300'007;  // several pieces of 65536, the last one short
  const auto ramp = kbench::from_index("ramp", [](std::size_t i) { return static_cast<double>(i % 1000) - 500.0; });
  const std::vector<double> f32 = evaluated(ramp, dtype::f32, n, 0);
  const std::vector<double> i16 = evaluated(ramp, dtype::i16, n, 0);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double expected = static_cast<double>(i % 1000) - 500.0;
    wrong += f32[i] != expected || i16[i] != expected;
  }
  CHECK(wrong == 0);
  // fp16 rounds to nearest, as every draw does; the seed reaches the function unchanged.
  const auto tenths = kbench::from_index("tenths", [](std::size_t i, std::uint64_t seed) { return 0.1 * i + seed; });
  const std::vector<double> f16 = evaluated(tenths, dtype::f16, 100, 3);
  CHECK(f16[0] == 3.0);
  CHECK(f16[7] == kbench::fp16_to_double(kbench::double_to_fp16(3.7)));
  CHECK(f16[7] != 3.7);
  const auto mask = kbench::from_index("causal mask 4x4", [](std::size_t i) { return i % 4 <= i / 4 ? 0.0 : -INFINITY; });
  const std::vector<double> causal = evaluated(mask, dtype::bf16, 16, 0);
  CHECK(causal[4 * 2 + 2] == 0.0);
  CHECK(causal[4 * 1 + 3] == -INFINITY);
}

TEST_CASE("a value the type cannot hold is an error naming the function, the first such element and the value",
          "[distribution]") {
  const std::size_t n = 300'000;
  // Refused values in three pieces: the first element's is named, whichever thread finds which first.
  const auto spikes = kbench::from_index("spikes", [](std::size_t i) {
    return i == 70'000 || i == 150'000 || i == 280'000 ? 70000.0 : 1.0;
  });
  CHECK_THROWS_WITH(evaluated(spikes, dtype::f16, n, 0),
                    contains("from_index(\"spikes\") gives element 70000 the value 70000, which fp16 cannot hold"));
  CHECK_NOTHROW(evaluated(spikes, dtype::f32, n, 0));
  const auto half = kbench::from_index("half", [](std::size_t i) { return i == 5 ? 0.5 : 1.0; });
  CHECK_THROWS_WITH(evaluated(half, dtype::i32, 8, 0), contains("gives element 5 the value 0.5, which int32 cannot hold"));
  const auto wide = kbench::from_index("wide", [](std::size_t i) { return i == 3 ? 128.0 : -128.0; });
  CHECK_THROWS_WITH(evaluated(wide, dtype::i8, 8, 0), contains("gives element 3 the value 128, which int8 cannot hold"));
  CHECK_NOTHROW(evaluated(wide, dtype::i16, 8, 0));
  const auto not_a_number = kbench::from_index("0/0", [](std::size_t) { return std::nan(""); });
  CHECK_THROWS_WITH(evaluated(not_a_number, dtype::f64, 4, 0), contains("gives element 0 the value nan"));
  const auto minus_inf = kbench::from_index("-inf", [](std::size_t) { return -INFINITY; });
  CHECK_THROWS_WITH(evaluated(minus_inf, dtype::f8e4m3, 4, 0), contains("the value -inf, which fp8_e4m3 cannot hold"));
  CHECK(evaluated(minus_inf, dtype::f16, 4, 0)[3] == -INFINITY);
  CHECK_THROWS_AS(evaluated(half, dtype::u8, 8, 0), kbench::usage_error);
}

TEST_CASE("what the function throws reaches the caller; only a from_index is evaluated", "[distribution]") {
  const auto throws = kbench::from_index("table lookup", [](std::size_t i) -> double {
    if (i == 100'000) throw std::runtime_error("no table entry 100000");
    return 0.0;
  });
  CHECK_THROWS_WITH(evaluated(throws, dtype::f32, 200'000, 0), contains("no table entry 100000"));
  CHECK_THROWS_WITH(evaluated(kbench::uniform(-1, 1), dtype::f32, 4, 0),
                    contains("was given uniform(-1.000000, 1.000000), not a function of the index"));
  CHECK(evaluated(kbench::from_index("none", [](std::size_t) { return 1.0; }), dtype::f32, 0, 0).empty());
}

}  // namespace unit_distribution_test
