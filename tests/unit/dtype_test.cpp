// dtype.hpp: the exact fp16/bf16 codecs, element access and the poison pattern.
#include <kbench/contract/dtype.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../catch.hpp"

namespace unit_dtype_test {  // one per file: the unit tests compile in unity batches

using kbench::bf16_to_double;
using kbench::double_to_bf16;
using kbench::double_to_fp16;
using kbench::fp16_to_double;

TEST_CASE("fp16 decodes the landmark encodings exactly", "[dtype]") {
  CHECK(fp16_to_double(0x3C00) == 1.0);
  CHECK(fp16_to_double(0xC000) == -2.0);
  CHECK(fp16_to_double(0x7BFF) == 65504.0);
  CHECK(fp16_to_double(0x0400) == std::ldexp(1.0, -14));  // smallest normal
  CHECK(fp16_to_double(0x0001) == std::ldexp(1.0, -24));  // smallest subnormal
  CHECK(fp16_to_double(0x03FF) == std::ldexp(1023.0, -24));
  CHECK(fp16_to_double(0x7C00) == std::numeric_limits<double>::infinity());
  CHECK(fp16_to_double(0xFC00) == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(fp16_to_double(0x7E00)));
  CHECK(std::isnan(fp16_to_double(0x7C01)));
  CHECK(fp16_to_double(0x8000) == 0.0);
  CHECK(std::signbit(fp16_to_double(0x8000)));
}

TEST_CASE("bf16 decodes as the top half of an fp32", "[dtype]") {
  CHECK(bf16_to_double(0x3F80) == 1.0);
  CHECK(bf16_to_double(0xC040) == -3.0);
  CHECK(bf16_to_double(0x7F7F) == std::ldexp(255.0, 120));  // largest finite, 3.3895e38
  CHECK(bf16_to_double(0x0001) == std::ldexp(1.0, -133));   // smallest subnormal
  CHECK(bf16_to_double(0x7F80) == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(bf16_to_double(0x7FC0)));
}

TEST_CASE("every fp16 and bf16 encoding survives decode then encode", "[dtype]") {
  int checked = 0;
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    const double h = fp16_to_double(b);
    if (!std::isnan(h)) {
      REQUIRE(double_to_fp16(h) == b);
      ++checked;
    }
    const double f = bf16_to_double(b);
    if (!std::isnan(f)) REQUIRE(double_to_bf16(f) == b);
  }
  CHECK(checked == 65536 - 2046);  // all but the NaNs
}

TEST_CASE("encoding rounds to nearest, ties to even, once from double", "[dtype]") {
  const double ulp1 = std::ldexp(1.0, -10);                     // fp16 spacing in [1, 2)
  CHECK(double_to_fp16(1.0 + ulp1 / 2) == 0x3C00);              // tie: to even (1.0)
  CHECK(double_to_fp16(1.0 + 3 * ulp1 / 2) == 0x3C02);          // tie: to even (1 + 2 ulp)
  CHECK(double_to_fp16(1.0 + ulp1 / 2 + 1e-12) == 0x3C01);      // above the tie
  CHECK(double_to_fp16(-(1.0 + ulp1 / 2 + 1e-12)) == 0xBC01);
  // A value that float rounding would push onto a tie: double rounding would give 0x3C00.
  CHECK(double_to_fp16(1.0 + ulp1 / 2 + std::ldexp(1.0, -30)) == 0x3C01);
  CHECK(double_to_bf16(1.0 + std::ldexp(1.0, -8)) == 0x3F80);   // tie: to even
  CHECK(double_to_bf16(1.0 + 3 * std::ldexp(1.0, -8)) == 0x3F82);
}

TEST_CASE("encoding overflows to infinity and underflows through subnormals", "[dtype]") {
  CHECK(double_to_fp16(65519.99) == 0x7BFF);
  CHECK(double_to_fp16(65520.0) == 0x7C00);  // the tie above the largest finite goes to infinity
  CHECK(double_to_fp16(-1e9) == 0xFC00);
  CHECK(double_to_fp16(std::ldexp(1.0, -25)) == 0x0000);      // tie between 0 and the smallest subnormal
  CHECK(double_to_fp16(3 * std::ldexp(1.0, -26)) == 0x0001);
  CHECK(double_to_fp16(std::ldexp(1023.5, -24)) == 0x0400);   // rounds up into the normals
  CHECK(double_to_fp16(-0.0) == 0x8000);
  CHECK(double_to_bf16(3.39e38) == 0x7F7F);
  CHECK(double_to_bf16(3.4e38) == 0x7F80);
  CHECK((double_to_fp16(std::nan("")) & 0x7C00) == 0x7C00);
  CHECK((double_to_fp16(std::nan("")) & 0x03FF) != 0);
}

TEST_CASE("load and store every dtype; integers round and saturate", "[dtype]") {
  using kbench::dtype;
  unsigned char buffer[16] = {};
  const dtype all[] = {dtype::f64, dtype::f32, dtype::f16, dtype::bf16, dtype::i8, dtype::u8,
                       dtype::i16, dtype::u16, dtype::i32, dtype::u32, dtype::i64, dtype::u64};
  for (dtype t : all) {
    kbench::store_from_double(buffer, t, 1, 3.0);
    CHECK(kbench::load_as_double(buffer, t, 1) == 3.0);
  }
  kbench::store_from_double(buffer, dtype::i8, 0, 1000.0);
  CHECK(kbench::load_as_double(buffer, dtype::i8, 0) == 127.0);
  kbench::store_from_double(buffer, dtype::u8, 0, -5.0);
  CHECK(kbench::load_as_double(buffer, dtype::u8, 0) == 0.0);
  kbench::store_from_double(buffer, dtype::i32, 0, 2.5);
  CHECK(kbench::load_as_double(buffer, dtype::i32, 0) == 2.0);  // nearest, ties to even
  kbench::store_from_double(buffer, dtype::i32, 0, -7.6);
  CHECK(kbench::load_as_double(buffer, dtype::i32, 0) == -8.0);
}

TEST_CASE("the poison pattern is a NaN for floats and recognised bit for bit", "[dtype]") {
  using kbench::dtype;
  for (dtype t : {dtype::f64, dtype::f32, dtype::f16, dtype::bf16}) {
    std::vector<unsigned char> bytes(kbench::info(t).size * 3);
    const std::uint32_t word = kbench::poison_word(t);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(word >> (8 * (i % 4)));
    CHECK(std::isnan(kbench::load_as_double(bytes.data(), t, 2)));
    CHECK(kbench::holds_poison(bytes.data(), t, 2));
    kbench::store_from_double(bytes.data(), t, 1, std::nan(""));  // a computed NaN is not the poison
    CHECK_FALSE(kbench::holds_poison(bytes.data(), t, 1));
  }
  unsigned char ints[4] = {0xA5, 0xA5, 0xA5, 0x00};
  CHECK(kbench::holds_poison(ints, dtype::i8, 1));
  CHECK_FALSE(kbench::holds_poison(ints, dtype::i8, 3));
}

TEST_CASE("fp8 e4m3 decodes the OCP e4m3fn format", "[dtype][fp8]") {
  using kbench::fp8_e4m3_to_double;
  CHECK(fp8_e4m3_to_double(0x38) == 1.0);
  CHECK(fp8_e4m3_to_double(0x7E) == 448.0);  // largest finite
  CHECK(fp8_e4m3_to_double(0x78) == 256.0);  // exponent field 15 is an ordinary exponent
  CHECK(fp8_e4m3_to_double(0x08) == std::ldexp(1.0, -6));
  CHECK(fp8_e4m3_to_double(0x01) == std::ldexp(1.0, -9));
  CHECK(fp8_e4m3_to_double(0xBA) == -1.25);
  CHECK(std::isnan(fp8_e4m3_to_double(0x7F)));
  CHECK(std::isnan(fp8_e4m3_to_double(0xFF)));
  CHECK(std::signbit(fp8_e4m3_to_double(0x80)));
}

TEST_CASE("fp8 e4m3 encodes: nearest even, saturating, the same from float and from double", "[dtype][fp8]") {
  using kbench::double_to_fp8_e4m3;
  using kbench::float_to_fp8_e4m3;
  for (std::uint32_t b = 0; b < 256; ++b) {
    const double v = kbench::fp8_e4m3_to_double(static_cast<std::uint8_t>(b));
    if (std::isnan(v)) continue;
    REQUIRE(double_to_fp8_e4m3(v) == b);
    REQUIRE(float_to_fp8_e4m3(static_cast<float>(v)) == b);
  }
  CHECK(double_to_fp8_e4m3(1.0 + 1.0 / 16) == 0x38);       // tie: to even (1.0)
  CHECK(double_to_fp8_e4m3(1.0 + 3.0 / 16) == 0x3A);       // tie: to even (1.25)
  CHECK(double_to_fp8_e4m3(std::ldexp(1.0, -10)) == 0x00);  // subnormal tie: to even (0)
  CHECK(double_to_fp8_e4m3(3 * std::ldexp(1.0, -10)) == 0x02);
  CHECK(double_to_fp8_e4m3(447.9) == 0x7E);
  CHECK(double_to_fp8_e4m3(1e6) == 0x7E);                   // saturates
  CHECK(double_to_fp8_e4m3(-std::numeric_limits<double>::infinity()) == 0xFE);
  CHECK(double_to_fp8_e4m3(std::nan("")) == 0x7F);
  // The float codec, used in kernels, agrees with the double one over a sweep of float encodings.
  std::size_t checked = 0;
  for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 4099) {
    float f;
    const auto b32 = static_cast<std::uint32_t>(bits);
    std::memcpy(&f, &b32, 4);
    REQUIRE(float_to_fp8_e4m3(f) == double_to_fp8_e4m3(f));
    ++checked;
  }
  CHECK(checked > 1000000);
}

using kbench::dtype;

TEST_CASE("one dispatch covers every dtype; a value outside the enumeration is an error, never a pass", "[dtype]") {
  for (const dtype t : {dtype::f64, dtype::f32, dtype::f16, dtype::bf16, dtype::f8e4m3, dtype::i8, dtype::u8, dtype::i16,
                        dtype::u16, dtype::i32, dtype::u32, dtype::i64, dtype::u64}) {
    const dtype seen = kbench::visit_dtype(t, [](auto d) { return decltype(d)::value; });
    CHECK(seen == t);
    const std::size_t width = kbench::visit_dtype(t, [](auto d) { return sizeof(kbench::storage_t<decltype(d)::value>); });
    CHECK(width == kbench::info(t).size);
  }
  const auto bogus = static_cast<dtype>(200);
  CHECK_THROWS_AS(kbench::visit_dtype(bogus, [](auto) { return 0; }), kbench::usage_error);
  unsigned char bytes[8] = {};
  CHECK_THROWS_AS(kbench::load_as_double(bytes, bogus, 0), kbench::usage_error);
  CHECK_THROWS_AS(kbench::store_from_double(bytes, bogus, 0, 1.0), kbench::usage_error);
  CHECK_THROWS_AS(kbench::count_poison(bytes, bogus, 1), kbench::usage_error);
}

TEST_CASE("a value given for an input: within its type's range, ±inf where it has it, integers whole", "[dtype][values]") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  // The largest finite values, each one stored as itself and the next double beyond refused.
  for (const dtype t : {dtype::f32, dtype::f16, dtype::bf16, dtype::f8e4m3}) {
    const double largest = kbench::largest_finite(t);
    INFO(kbench::info(t).name);
    unsigned char bytes[8] = {};
    kbench::store_from_double(bytes, t, 0, largest);
    CHECK(kbench::load_as_double(bytes, t, 0) == largest);
    CHECK(kbench::holds_value(t, -largest));
    CHECK_FALSE(kbench::holds_value(t, std::nextafter(largest, inf)));
  }
  CHECK(kbench::largest_finite(dtype::f16) == 65504.0);
  CHECK(kbench::largest_finite(dtype::bf16) == 0x1.fep127);
  CHECK(kbench::holds_value(dtype::f64, std::numeric_limits<double>::max()));
  CHECK(kbench::holds_value(dtype::f16, 0.1));  // rounds, as every draw does
  for (const dtype t : {dtype::f64, dtype::f32, dtype::f16, dtype::bf16}) {
    CHECK(kbench::holds_value(t, -inf));
    CHECK(kbench::holds_value(t, inf));
    CHECK_FALSE(kbench::holds_value(t, nan));
  }
  CHECK_FALSE(kbench::holds_value(dtype::f8e4m3, -inf));  // e4m3fn has no infinity
  CHECK_FALSE(kbench::holds_value(dtype::f8e4m3, nan));
  // Integers: whole, from the lowest to the largest, the bounds exact even for 64 bits.
  CHECK(kbench::holds_value(dtype::i8, -128));
  CHECK(kbench::holds_value(dtype::i8, 127));
  CHECK_FALSE(kbench::holds_value(dtype::i8, 128));
  CHECK_FALSE(kbench::holds_value(dtype::i8, -129));
  CHECK_FALSE(kbench::holds_value(dtype::i8, 0.5));
  CHECK(kbench::holds_value(dtype::u8, 255));
  CHECK_FALSE(kbench::holds_value(dtype::u8, 256));
  CHECK_FALSE(kbench::holds_value(dtype::u8, -1));
  CHECK(kbench::holds_value(dtype::u16, 65535));
  CHECK_FALSE(kbench::holds_value(dtype::i16, 32768));
  CHECK(kbench::holds_value(dtype::i32, -2147483648.0));
  CHECK_FALSE(kbench::holds_value(dtype::i32, 2147483648.0));
  CHECK(kbench::holds_value(dtype::i64, -0x1p63));
  CHECK_FALSE(kbench::holds_value(dtype::i64, 0x1p63));  // 2^63 - 1 is no double: the next below is held
  CHECK(kbench::holds_value(dtype::i64, std::nextafter(0x1p63, 0.0)));
  CHECK_FALSE(kbench::holds_value(dtype::u64, 0x1p64));
  CHECK_FALSE(kbench::holds_value(dtype::u64, -1));
  for (const dtype t : {dtype::i8, dtype::u32, dtype::i64}) {
    CHECK_FALSE(kbench::holds_value(t, inf));
    CHECK_FALSE(kbench::holds_value(t, -inf));
    CHECK_FALSE(kbench::holds_value(t, nan));
  }
}

}  // namespace unit_dtype_test
