// callable.hpp: the type-erased function a case's launches and functions are held in, as std::function
// behaves: empty until given a callable, copies that own their own state, moves that leave the source
// empty, and an error (never a crash) when an empty one is called.
#include <kbench/contract/callable.hpp>

#include <memory>
#include <string>
#include <utility>

#include "../catch.hpp"

namespace unit_callable_test {  // one per file: the unit tests compile in unity batches

using kbench::detail::callable;

TEST_CASE("an empty callable says so and refuses to be called", "[callable]") {
  const callable<int(int)> none;
  CHECK_FALSE(none);
  CHECK_FALSE(callable<void()>(nullptr));
  CHECK_THROWS_AS(none(1), kbench::error);
}

TEST_CASE("a callable calls what it holds, with its arguments and result", "[callable]") {
  const callable<int(int, int)> add = [](int a, int b) { return a + b; };
  CHECK(add);
  CHECK(add(2, 3) == 5);
  // A result converted as std::function converts it; a function pointer is a callable too.
  const callable<double(int)> half = [](int a) { return a / 2.0; };
  CHECK(half(3) == 1.5);
  int (*twice)(int) = [](int a) { return 2 * a; };
  CHECK(callable<int(int)>(twice)(4) == 8);
}

TEST_CASE("copies hold their own state; a move empties its source", "[callable]") {
  callable<int()> counter = [n = 0]() mutable { return ++n; };
  CHECK(counter() == 1);
  callable<int()> copy = counter;  // the state as it is now, apart from then on
  CHECK(copy() == 2);
  CHECK(copy() == 3);
  CHECK(counter() == 2);
  callable<int()> moved = std::move(counter);
  CHECK(moved() == 3);
  CHECK_FALSE(counter);  // NOLINT(bugprone-use-after-move): what a move leaves is part of the contract
  copy = moved;          // assignment copies too
  CHECK(copy() == 4);
  CHECK(moved() == 4);
}

TEST_CASE("a callable shares captured state and releases it when it goes", "[callable]") {
  auto held = std::make_shared<int>(7);
  {
    const callable<int()> reads = [held] { return *held; };
    CHECK(held.use_count() == 2);
    CHECK(reads() == 7);
  }
  CHECK(held.use_count() == 1);
  const callable<std::string(std::string)> echo = [](std::string s) { return s + "!"; };
  CHECK(echo("launch") == "launch!");
}

}  // namespace unit_callable_test
