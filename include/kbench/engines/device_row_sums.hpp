// kbench/engines/device_row_sums.hpp: the signed sums of each row of a floating-point output on the GPU, for
// the audit of the errors' signs (bias_audit.hpp) of an output that device_compare.hpp found clean. A row is
// cut into segments of at most 2^16 elements (a one-dimensional output is one long row): a block sums each
// segment, and the host adds a row's segments, in order. Rows of at most 32 elements take a thread each.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "../contract/device_buffer.hpp"
#include "../contract/hip_check.hpp"
#include "bias_audit.hpp"
#include "device_compare.hpp"
#include "device_element_readers.hpp"
#include "device_pass.hpp"

namespace kbench {
namespace detail {

inline constexpr std::size_t longest_segment = std::size_t{1} << 16;
inline constexpr std::size_t thread_row = 32;

struct row_cut {
  std::size_t rows, row_length, per_row, segment;  // segments per row, elements per segment
  [[nodiscard]] KBENCH_HOST_DEVICE std::size_t segments() const { return rows * per_row; }
};

[[nodiscard]] inline row_cut cut_rows(std::size_t size, std::size_t row_length) {
  row_cut c{size / row_length, row_length, 1, row_length};
  if (row_length > thread_row) {
    c.per_row = (row_length + longest_segment - 1) / longest_segment;
    c.segment = (row_length + c.per_row - 1) / c.per_row;
  }
  return c;
}

// Counts a pair as bias_audit.hpp says: both finite, the reference at least the smallest normal.
template <class R>
__device__ inline void add_pair(signed_sums& s, typename R::storage a, typename R::storage e, double counted_from) {
  if (!R::finite_bits(a) || !R::finite_bits(e)) return;
  const double ev = R::value(e);
  if (fabs(ev) >= counted_from) s.add(R::value(a), ev);
}

// A block's share of elements [begin, end) of a row into each thread's sums: where both arrays start on
// 16-byte boundaries, the elements between the segment's first and last boundary 16 bytes at a time, four
// such loads of each array in flight per thread, the few before and after one by one. Loads of one element
// each kept too few bytes in flight to fill the memory system (the pass took 3 times a copy's time).
template <class R>
__device__ inline void add_segment(signed_sums& s, const typename R::storage* actual,
                                   const typename R::storage* expected, typename R::storage constant, std::size_t begin,
                                   std::size_t end, double counted_from) {
  using S = typename R::storage;
  constexpr std::size_t per_vector = 16 / sizeof(S);
  constexpr unsigned int unroll = 4;
  union vector {
    uint4 bits;
    S elements[per_vector];
  };
  std::size_t body_begin = end, body_end = end;  // in elements: empty unless both arrays are aligned
  if (on_quads(expected) && (actual == nullptr || on_quads(actual))) {
    const std::size_t first_boundary = (begin + per_vector - 1) / per_vector * per_vector;
    const std::size_t last_boundary = end / per_vector * per_vector;
    body_begin = first_boundary < end ? first_boundary : end;
    body_end = last_boundary > body_begin ? last_boundary : body_begin;
  }
  for (std::size_t i = begin + threadIdx.x; i < body_begin; i += blockDim.x) {
    add_pair<R>(s, actual ? actual[i] : constant, expected[i], counted_from);
  }
  const auto* ev = reinterpret_cast<const uint4*>(expected);
  const auto* av = reinterpret_cast<const uint4*>(actual);
  const std::size_t last = body_end / per_vector;
  for (std::size_t v = body_begin / per_vector + threadIdx.x; v < last; v += unroll * blockDim.x) {
    vector a[unroll], e[unroll];
#pragma unroll
    for (unsigned int u = 0; u < unroll; ++u) {
      const std::size_t at = v + u * blockDim.x;
      if (at >= last) break;
      e[u].bits = ev[at];
      if (actual) {
        a[u].bits = av[at];
      } else {
#pragma unroll
        for (std::size_t k = 0; k < per_vector; ++k) a[u].elements[k] = constant;
      }
    }
#pragma unroll
    for (unsigned int u = 0; u < unroll; ++u) {
      if (v + u * blockDim.x >= last) break;
#pragma unroll
      for (std::size_t k = 0; k < per_vector; ++k) add_pair<R>(s, a[u].elements[k], e[u].elements[k], counted_from);
    }
  }
  for (std::size_t i = body_end + threadIdx.x; i < end; i += blockDim.x) {
    add_pair<R>(s, actual ? actual[i] : constant, expected[i], counted_from);
  }
}

template <class R>
__global__ void __launch_bounds__(256) row_sums_kernel(const typename R::storage* actual, const typename R::storage* expected,
                                                       typename R::storage constant, row_cut cut, double counted_from,
                                                       signed_sums* sums) {
  auto at = [&](std::size_t i) { return actual ? actual[i] : constant; };
  if (cut.row_length <= thread_row) {
    for (std::size_t row = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; row < cut.rows;
         row += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
      signed_sums s{0.0, 0.0, 0.0, 0.0};
      for (std::size_t i = row * cut.row_length; i < (row + 1) * cut.row_length; ++i) add_pair<R>(s, at(i), expected[i], counted_from);
      sums[row] = s;
    }
    return;
  }
  __shared__ signed_sums shared[256];
  for (std::size_t segment = blockIdx.x; segment < cut.segments(); segment += gridDim.x) {
    const std::size_t row = segment / cut.per_row, part = segment % cut.per_row;
    const std::size_t begin = row * cut.row_length + part * cut.segment;
    const std::size_t row_end = (row + 1) * cut.row_length;
    const std::size_t end = begin + cut.segment < row_end ? begin + cut.segment : row_end;
    signed_sums s{0.0, 0.0, 0.0, 0.0};
    add_segment<R>(s, actual, expected, constant, begin, end, counted_from);
    shared[threadIdx.x] = s;
    __syncthreads();
    for (unsigned int width = blockDim.x / 2; width > 0; width /= 2) {
      if (threadIdx.x < width) shared[threadIdx.x].add(shared[threadIdx.x + width]);
      __syncthreads();
    }
    if (threadIdx.x == 0) sums[segment] = shared[0];
    __syncthreads();
  }
}

// Each row's signed sums of a float output against its device reference (`actual` null: every element the
// bits `constant`), for rows of `row_length` (bias_audit.hpp's audit_row_length).
template <class R>
std::vector<signed_sums> run_row_sums(const void* actual, const void* expected, std::size_t size, std::size_t row_length,
                                      std::uint64_t constant_bits, dtype t, hipStream_t stream) {
  using S = typename R::storage;
  const row_cut cut = cut_rows(size, row_length);
  const std::size_t segments = cut.segments();
  // Kept between calls, grown as needed: an allocation per comparison would cost as much as the sums.
  static device_buffer<signed_sums> sums;
  if (sums.size() < segments) sums = device_buffer<signed_sums>(segments);
  S constant;
  std::memcpy(&constant, &constant_bits, sizeof constant);
  const std::size_t workers = cut.row_length <= thread_row ? (cut.rows + 255) / 256 : segments;
  const auto blocks = static_cast<unsigned int>(std::clamp<std::size_t>(workers, 1, 65535));
  hipLaunchKernelGGL(row_sums_kernel<R>, dim3(blocks), dim3(256), 0, stream, static_cast<const S*>(actual),
                     static_cast<const S*>(expected), constant, cut, smallest_normal(t), sums.data());
  KBENCH_HIP_CHECK_LAUNCH();
  std::vector<signed_sums> parts(segments);
  KBENCH_HIP_CHECK(hipMemcpyAsync(parts.data(), sums.data(), segments * sizeof(signed_sums), hipMemcpyDeviceToHost, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));
  std::vector<signed_sums> rows(cut.rows, signed_sums{0.0, 0.0, 0.0, 0.0});
  for (std::size_t k = 0; k < segments; ++k) rows[k / cut.per_row].add(parts[k]);
  return rows;
}

}  // namespace detail
}  // namespace kbench
