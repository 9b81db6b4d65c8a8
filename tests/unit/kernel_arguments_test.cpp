// kernel_arguments.hpp: a kernel launched by name gets its arguments at their natural alignment, buffer
// handles as their device pointers, and a layout other than the kernel's record is refused, saying where.
#include <kbench/contract/kernel_arguments.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../catch.hpp"

// Defined once per program by kernel_case_impl.hpp, which needs HIP: the unit tests' own.
[[noreturn]] void kbench::detail::throw_unbound(const buffer_slot& slot, const char* what) {
  throw kbench::usage_error("buffer '" + slot.name + "' has no " + what);
}

namespace unit_kernel_arguments_test {  // one per file: the unit tests compile in unity batches

using kbench::detail::argument_slot;
using kbench::detail::check_argument_layout;
using kbench::detail::natural_layout;
using kbench::detail::packed_arguments;

TEST_CASE("arguments lie at their natural alignment, as a kernel's parameters do", "[kernel_arguments]") {
  constexpr auto scale = natural_layout<const float*, float*, float, std::int64_t>();
  CHECK(scale[0] == argument_slot{0, 8});
  CHECK(scale[1] == argument_slot{8, 8});
  CHECK(scale[2] == argument_slot{16, 4});
  CHECK(scale[3] == argument_slot{24, 8});  // past the float's 4 bytes, at the next multiple of 8
  constexpr auto mixed = natural_layout<char, double, int, short, char, float*>();
  const std::vector<argument_slot> expected = {{0, 1}, {8, 8}, {16, 4}, {20, 2}, {22, 1}, {24, 8}};
  CHECK(std::vector<argument_slot>(mixed.begin(), mixed.end()) == expected);
  struct alignas(16) four_floats { float v[4]; };
  constexpr auto vector = natural_layout<int, four_floats>();
  CHECK(vector[1] == argument_slot{16, 16});
}

TEST_CASE("a launch's pointers point at each converted argument", "[kernel_arguments]") {
  kbench::detail::buffer_slot in_slot, out_slot;
  float in_memory[4] = {}, out_memory[4] = {};
  in_slot.device = in_memory;
  out_slot.device = out_memory;
  const kbench::input_ref<float> x(&in_slot);
  const kbench::output_ref<float> y(&out_slot);
  const float a = 1.5f;
  const std::int64_t n = 4;
  packed_arguments<kbench::input_ref<float>, kbench::output_ref<float>, float, std::int64_t> packed(x, y, a, n);
  void** p = packed.pointers();
  CHECK(*static_cast<const float* const*>(p[0]) == in_memory);
  CHECK(*static_cast<float* const*>(p[1]) == out_memory);
  CHECK(*static_cast<const float*>(p[2]) == 1.5f);
  CHECK(*static_cast<const std::int64_t*>(p[3]) == 4);
  using layout = decltype(packed);
  CHECK(layout::layout[3] == argument_slot{24, 8});
  packed_arguments<> none;
  CHECK(none.pointers() == nullptr);
}

TEST_CASE("a handle outside a launch is not packed", "[kernel_arguments]") {
  kbench::detail::buffer_slot unbound;
  unbound.name = "x";
  const kbench::input_ref<float> x(&unbound);
  CHECK_THROWS(packed_arguments<kbench::input_ref<float>>(x));
}

TEST_CASE("a layout other than the kernel's record is refused, naming the argument", "[kernel_arguments]") {
  constexpr auto given = natural_layout<const float*, float*, float, std::int64_t>();
  const std::vector<argument_slot> record = {{0, 8}, {8, 8}, {16, 4}, {24, 8}};
  CHECK_NOTHROW(check_argument_layout("scale_kernel", "scale.fatbin", given.data(), given.size(), record));
  // An int where the kernel takes an int64_t: the kernel would read 4 bytes it was not given.
  constexpr auto narrow = natural_layout<const float*, float*, float, int>();
  try {
    check_argument_layout("scale_kernel", "scale.fatbin", narrow.data(), narrow.size(), record);
    FAIL("a narrower argument passed");
  } catch (const kbench::usage_error& e) {
    const std::string what = e.what();
    CHECK(what.find("kernel 'scale_kernel' of scale.fatbin takes 4 arguments (32 bytes: 8 at 0, 8 at 8, 4 at 16, 8 at 24)") !=
          std::string::npos);
    CHECK(what.find("the launch gives 4 arguments (24 bytes") != std::string::npos);
    CHECK(what.find("argument 3 is 4 bytes at 20, the kernel's 8 at 24") != std::string::npos);
  }
  // One argument too few.
  constexpr auto fewer = natural_layout<const float*, float*, float>();
  CHECK_THROWS_AS(check_argument_layout("scale_kernel", "scale.fatbin", fewer.data(), fewer.size(), record),
                  kbench::usage_error);
}

TEST_CASE("a missing kernel is named, with the kernels the file has where they can be listed", "[kernel_arguments]") {
  using kbench::detail::missing_kernel_message;
  CHECK(missing_kernel_message("scale", "k.co", {"scale_kernel", "add_kernel"}, true) ==
        "no kernel 'scale' in code object k.co: it has 'scale_kernel', 'add_kernel' (extern \"C\" keeps a name unmangled)");
  CHECK(missing_kernel_message("scale", "k.co", {}, true) == "no kernel 'scale' in code object k.co: it has no kernels");
  CHECK(missing_kernel_message("scale", "k.co", {}, false).find("cannot list") != std::string::npos);
}

}  // namespace unit_kernel_arguments_test
