// kbench/engines/random.hpp: inputs drawn on the device with hipRAND's device API (Philox4x32-10), which works on
// both platforms (HIP's NVIDIA platform has no host hipRAND library here, and none is needed).
// Declared here; the kernels and hipRAND's headers (half of a translation unit's parse) are in
// procedure/random_kernels.hpp, compiled once per program in the procedure's device work
// (procedure/device_work.hpp), so that what calls them does not parse hipRAND.
//
// Element i depends only on (seed, i): the chunk of four elements holding i uses Philox subsequence i / 4.
// So an input is reproducible for a given seed on a given platform, whatever grid fills it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../contract/distribution.hpp"
#include "../contract/hip_check.hpp"
#include "../decisions/edge_values.hpp"

namespace kbench {
namespace detail {

// A float value as an element of a floating-point type no wider than float.
template <class T>
__device__ inline T narrow_from_float(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else if constexpr (std::is_same_v<T, fp8_e4m3>) {
    return fp8_e4m3{float_to_fp8_e4m3(v)};
  } else {
    return from_float<T>(v);
  }
}

template <class T>
__device__ inline T sample_cast(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else if constexpr (std::is_integral_v<T>) {
    const double r = rint(v);
    if (r <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
  } else {
    return narrow_from_float<T>(static_cast<float>(v));
  }
}

}  // namespace detail

// out[i] = in[(i + offset) mod size], elements of dtype `type` (offset < size): the same values,
// elsewhere. A device copy's cost, where drawing anew runs the generator.
template <class Unused = void>
void rotate_elements(void* out, const void* in, dtype type, std::size_t size, std::size_t offset, hipStream_t stream);

// Fills `size` elements of dtype `type` at `out` from `init`, reproducibly for (seed, stream_id); `edge`
// changes a floating-point type's uniform or normal values (an edge run, decisions/edge_values.hpp).
// Templates (call them as functions), defined in procedure/random_kernels.hpp and compiled once per program:
// a translation unit that calls them compiles none of their kernels, and links the program's procedure.
template <class Unused = void>
void fill_random(void* out, dtype type, std::size_t size, const distribution& init, std::uint64_t seed,
                 std::uint64_t stream_id, hipStream_t stream, const value_edge& edge = {});

}  // namespace kbench
