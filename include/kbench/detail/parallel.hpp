// kbench/detail/parallel.hpp: host work spread over every hardware thread. HIP-free.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace kbench {
namespace detail {

// Runs task(i) for every i in [0, tasks), each once, on every hardware thread (the caller's among them);
// which thread runs which task varies, so tasks must write only what is theirs. The first exception a
// task throws is rethrown once all threads have stopped.
template <class Task>
void parallel_for(std::size_t tasks, Task&& task) {
  if (tasks == 0) return;  // (else the count of helpers below wraps around, and threads are made until none can be)
  std::atomic<std::size_t> next{0};
  std::exception_ptr failed;
  std::atomic<bool> failing{false};
  auto work = [&] {
    for (std::size_t i; !failing && (i = next++) < tasks;) {
      try {
        task(i);
      } catch (...) {
        if (!failing.exchange(true)) failed = std::current_exception();
      }
    }
  };
  const std::size_t helpers = std::min<std::size_t>(tasks, std::max(1u, std::thread::hardware_concurrency())) - 1;
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < helpers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace detail
}  // namespace kbench
