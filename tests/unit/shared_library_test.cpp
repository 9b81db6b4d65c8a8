// shared_library.hpp: a library or a symbol that is not there is an error naming both, with dlerror's text;
// a symbol that is there is found and called as the case types it.
#include <kbench/contract/shared_library.hpp>

#include <string>

#include "../catch.hpp"

namespace unit_shared_library_test {  // one per file: the unit tests compile in unity batches

TEST_CASE("a missing shared library is named, with dlopen's reason", "[shared_library]") {
  try {
    const kbench::shared_library missing("/nonexistent/libkbench_missing.so");
    FAIL("a missing library opened");
  } catch (const kbench::usage_error& e) {
    const std::string what = e.what();
    CHECK(what.find("cannot open shared library /nonexistent/libkbench_missing.so: ") == 0);
    CHECK(what.find("No such file") != std::string::npos);
  }
}

TEST_CASE("a symbol is found by its name, and a missing one is named", "[shared_library]") {
  // The C library, by its soname: always there.
  const kbench::shared_library libc("libc.so.6");
  const auto length = libc.function<std::size_t(const char*)>("strlen");
  CHECK(length("kbench") == 6);
  CHECK(kbench::shared_library("libc.so.6").symbol("strlen") == libc.symbol("strlen"));  // opened once
  try {
    (void)libc.kernel("kbench_no_such_kernel");
    FAIL("a missing symbol was found");
  } catch (const kbench::usage_error& e) {
    const std::string what = e.what();
    CHECK(what.find("no symbol 'kbench_no_such_kernel' in shared library libc.so.6 (") == 0);
    CHECK(what.find("undefined symbol") != std::string::npos);  // dlerror's own words
  }
}

}  // namespace unit_shared_library_test
