// kbench/procedure/random_kernels.hpp: the kernels that draw inputs (random.hpp declares them), with
// hipRAND's device API, and the copy of the values a case's own function gives (from_index). Included only
// by the translation unit of the procedure that instantiates them (procedure/device_work_fill.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-W#warnings"  // rocRAND 5.2 warns that it knows no gfx90a inline asm
#endif
#include <hiprand/hiprand_kernel.h>
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#include "../contract/index_values.hpp"
#include "../engines/device_pass.hpp"
#include "../engines/random.hpp"

namespace kbench {
namespace detail {

struct fill_parameters {
  distribution::kind shape;
  double a;
  double b;
  double weight;  // choice: the probability of `a`
  std::uint64_t seed;
  value_edge edge;      // floating-point uniform and normal values: an edge run's change
  special_set special;  // the type's special values, for edge.specials
};

// A drawn value of a uniform or a normal distribution as the same quantile of another family on the same
// support (edge_values.hpp): uniform's t in [0, 1) cubed; normal's standard score mapped, through its upper
// tail's probability, to an exponential.
__device__ inline double in_other_family(double v, const fill_parameters& p) {
  if (p.shape == distribution::kind::uniform) {
    const double t = (v - p.a) / (p.b - p.a);
    return p.a + (p.b - p.a) * t * t * t;
  }
  const double z = (v - p.a) / p.b;
  return p.a + p.b * -log(0.5 * erfc(z * 0.70710678118654752440));
}

// An edge run's change to one drawn value (exact: the scale is a power of two, the grid one too, and so
// is a spike).
__device__ inline double at_edge(double v, std::size_t index, const fill_parameters& p) {
  if (p.edge.other_family) v = in_other_family(v, p);
  v *= p.edge.scale;
  if (p.edge.grid > 0.0) v = p.edge.grid * rint(v / p.edge.grid);
  if (p.edge.specials) {
    const std::uint64_t h = mix_seed(p.seed ^ mix_seed(index));
    if ((h & 15) == 0) v = p.special.values[(h >> 4) & 3];
  }
  for (int j = 0; j < p.edge.spikes; ++j) {
    if (p.edge.spike_at[j] != index) continue;
    const int sign = p.edge.spike_sign != 0 ? p.edge.spike_sign : ((mix_seed(index) & 1) ? 1 : -1);
    v = sign * p.edge.spike;
  }
  return v;
}

// A chunk's four values stored with one access where `out` allows it (every chunk but a short last one, when
// `out` is aligned to the chunk's size): four stores of 2 bytes would each write a quarter of what one can.
template <class T>
__device__ inline void store_chunk(T* out, std::size_t chunk, std::size_t n, const T (&v)[4], bool whole_chunks) {
  constexpr std::size_t bytes = 4 * sizeof(T);
  if (whole_chunks && chunk * 4 + 4 <= n) {
    using word = std::conditional_t<bytes == 4, std::uint32_t, std::conditional_t<bytes == 8, uint2, uint4>>;
    constexpr std::size_t words = bytes < 16 ? 1 : bytes / 16;
    word packed[words];
    T* const elements = reinterpret_cast<T*>(packed);  // the words' bytes as the chunk's elements
    for (int k = 0; k < 4; ++k) elements[k] = v[k];
    for (std::size_t w = 0; w < words; ++w) reinterpret_cast<word*>(out + chunk * 4)[w] = packed[w];
    return;
  }
  for (int k = 0; k < 4; ++k) {
    if (chunk * 4 + k < n) out[chunk * 4 + k] = v[k];
  }
}

// A uniform or normal draw of a floating-point type narrower than double, with no edge run's change: in
// float arithmetic, each value rounded to float and then to the element type, as the double path rounds its
// own (whose conversions run at a quarter of float arithmetic's rate: that draw took 1.4 times as long on an
// H100).
template <class T>
__device__ inline void draw_in_float(T (&out)[4], hiprandStatePhilox4_32_10_t& state, const fill_parameters& p) {
  const float a = static_cast<float>(p.a), b = static_cast<float>(p.b);
  float v[4];
  if (p.shape == distribution::kind::uniform) {
    const float4 u = hiprand_uniform4(&state);  // (0, 1]; 1 - u is in [0, 1], 1 where u rounds away
    const float width = static_cast<float>(p.b - p.a);
    v[0] = fmaf(width, 1.0f - u.x, a), v[1] = fmaf(width, 1.0f - u.y, a);
    v[2] = fmaf(width, 1.0f - u.z, a), v[3] = fmaf(width, 1.0f - u.w, a);
  } else {
    const float4 z = hiprand_normal4(&state);
    v[0] = fmaf(b, z.x, a), v[1] = fmaf(b, z.y, a), v[2] = fmaf(b, z.z, a), v[3] = fmaf(b, z.w, a);
  }
  for (int k = 0; k < 4; ++k) out[k] = narrow_from_float<T>(v[k]);
}

template <class T>
__global__ void fill_kernel(T* out, std::size_t n, fill_parameters p) {
  const std::size_t chunks = (n + 3) / 4;
  const bool whole_chunks = reinterpret_cast<std::uintptr_t>(out) % (4 * sizeof(T)) == 0;
  constexpr bool narrow_float = !std::is_integral_v<T> && !std::is_same_v<T, double>;
  const bool in_float = narrow_float && p.edge.none() &&
                        (p.shape == distribution::kind::uniform || p.shape == distribution::kind::normal);
  for (std::size_t chunk = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; chunk < chunks;
       chunk += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    T drawn[4];
    if constexpr (narrow_float) {
      if (in_float) {
        hiprandStatePhilox4_32_10_t state;
        hiprand_init(p.seed, chunk, 0, &state);
        draw_in_float(drawn, state, p);
        store_chunk(out, chunk, n, drawn, whole_chunks);
        continue;
      }
    }
    double v[4];
    if (p.shape == distribution::kind::arange) {
      for (int k = 0; k < 4; ++k) v[k] = p.a + p.b * static_cast<double>(chunk * 4 + k);
    } else if (p.shape == distribution::kind::constant) {
      for (int k = 0; k < 4; ++k) v[k] = p.a;
    } else {
      hiprandStatePhilox4_32_10_t state;
      hiprand_init(p.seed, chunk, 0, &state);
      if (p.shape == distribution::kind::choice) {  // any type: one of two given values
        const float4 u = hiprand_uniform4(&state);  // (0, 1]; 1 - u is in [0, 1)
        const float us[4] = {u.x, u.y, u.z, u.w};
        for (int k = 0; k < 4; ++k) v[k] = 1.0 - static_cast<double>(us[k]) < p.weight ? p.a : p.b;
      } else if constexpr (std::is_integral_v<T>) {
        // Integers: uniform over [ceil(a), floor(b)], or a rounded normal.
        if (p.shape == distribution::kind::uniform) {
          const double low = ceil(p.a);
          const double range = floor(p.b) - low + 1.0;
          const uint4 r = hiprand4(&state);
          const unsigned int words[4] = {r.x, r.y, r.z, r.w};
          for (int k = 0; k < 4; ++k) {
            // 32 random bits scaled to the range; ranges wider than 2^32 take extra bits from the next draw.
            double u = static_cast<double>(words[k]) / 4294967296.0;
            if (range > 4294967296.0) u += static_cast<double>(hiprand(&state)) / 18446744073709551616.0;
            v[k] = low + floor(u * range);
          }
        } else {
          const float4 z = hiprand_normal4(&state);
          v[0] = p.a + p.b * z.x, v[1] = p.a + p.b * z.y, v[2] = p.a + p.b * z.z, v[3] = p.a + p.b * z.w;
        }
      } else if constexpr (std::is_same_v<T, double>) {
        for (int k = 0; k < 4; k += 2) {
          const double2 d = p.shape == distribution::kind::uniform ? hiprand_uniform2_double(&state)
                                                                   : hiprand_normal2_double(&state);
          if (p.shape == distribution::kind::uniform) {
            v[k] = p.a + (p.b - p.a) * (1.0 - d.x), v[k + 1] = p.a + (p.b - p.a) * (1.0 - d.y);
          } else {
            v[k] = p.a + p.b * d.x, v[k + 1] = p.a + p.b * d.y;
          }
        }
      } else {  // an edge run's uniform or normal values: in double, which its changes need
        if (p.shape == distribution::kind::uniform) {
          const float4 u = hiprand_uniform4(&state);  // (0, 1]; 1 - u is in [0, 1)
          const float us[4] = {u.x, u.y, u.z, u.w};
          for (int k = 0; k < 4; ++k) v[k] = p.a + (p.b - p.a) * (1.0 - static_cast<double>(us[k]));
        } else {
          const float4 z = hiprand_normal4(&state);
          v[0] = p.a + p.b * z.x, v[1] = p.a + p.b * z.y, v[2] = p.a + p.b * z.z, v[3] = p.a + p.b * z.w;
        }
      }
      if constexpr (!std::is_integral_v<T>) {
        if (!p.edge.none()) {
          for (int k = 0; k < 4; ++k) v[k] = at_edge(v[k], chunk * 4 + k, p);
        }
      }
    }
    for (int k = 0; k < 4; ++k) drawn[k] = sample_cast<T>(v[k]);
    store_chunk(out, chunk, n, drawn, whole_chunks);
  }
}

// One wave of resident blocks (fewer for small inputs), sized on the first device that draws (a grid sets
// no value): each thread draws many chunks, where a grid of a block per 256 chunks spends its time starting
// blocks (the draw of 256 MiB of fp16 took 1.1 times as long).
template <class T>
void launch_fill(void* out, std::size_t n, const fill_parameters& p, hipStream_t stream) {
  constexpr unsigned int threads = 256;
  static const std::size_t full_wave = full_wave_blocks(fill_kernel<T>, threads);
  const std::size_t chunks = (n + 3) / 4;
  const std::size_t wanted = (chunks + threads - 1) / threads;
  const auto blocks = static_cast<unsigned int>(std::clamp<std::size_t>(wanted, 1, full_wave));
  hipLaunchKernelGGL(fill_kernel<T>, dim3(blocks), dim3(threads), 0, stream, static_cast<T*>(out), n, p);
  KBENCH_HIP_CHECK_LAUNCH();
}

template <class Word>
__global__ void rotate_kernel(Word* out, const Word* in, std::size_t n, std::size_t offset) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t from = i + offset;
    out[i] = in[from < n ? from : from - n];
  }
}

// A from_index input: its function is host code, so its values are evaluated on the host (every host
// thread) and copied, and the stream waited for. Per draw, a host pass over the elements and a copy of
// them where the generator costs a fraction of a copy (the pass: 1.0 s for 16384 x 8192 elements of a
// simple function on 2 host threads, 2026-12-03): drawn once per seed and once per timing run
// (timed_input_sets.hpp keeps its values in place), never in a timed region.
inline void copy_from_index(void* out, dtype type, std::size_t size, const distribution& init, std::uint64_t seed,
                            hipStream_t stream) {
  const std::size_t bytes = size * info(type).size;
  const std::unique_ptr<unsigned char[]> values(new unsigned char[bytes]);  // every byte written below
  evaluate_from_index(init, type, size, seed, values.get());
  KBENCH_HIP_CHECK(hipMemcpyAsync(out, values.get(), bytes, hipMemcpyHostToDevice, stream));
  KBENCH_HIP_CHECK(hipStreamSynchronize(stream));  // before `values` is freed
}

}  // namespace detail

template <class Unused>
void rotate_elements(void* out, const void* in, dtype type, std::size_t size, std::size_t offset, hipStream_t stream) {
  if (size == 0) return;
  visit_dtype(type, [&](auto d) {
    using Word = word_t<decltype(d)::value>;
    const auto blocks = static_cast<unsigned int>(std::min<std::size_t>((size + 255) / 256, 8192));
    hipLaunchKernelGGL(detail::rotate_kernel<Word>, dim3(blocks), dim3(256), 0, stream, static_cast<Word*>(out),
                       static_cast<const Word*>(in), size, offset);
    KBENCH_HIP_CHECK_LAUNCH();
  });
}

template <class Unused>
void fill_random(void* out, dtype type, std::size_t size, const distribution& init, std::uint64_t seed,
                 std::uint64_t stream_id, hipStream_t stream, const value_edge& edge) {
  if (size == 0) return;
  // The input's own seed: of the run's seed and the input's random stream.
  const std::uint64_t input_seed = detail::mix_seed(seed ^ detail::mix_seed(stream_id));
  if (init.shape == distribution::kind::from_index) return detail::copy_from_index(out, type, size, init, input_seed, stream);
  const bool edged = !edge.none() && info(type).is_float && init.random_values();
  const special_set special = info(type).is_float ? special_values(type) : special_set{};
  const detail::fill_parameters p{init.shape, init.a, init.b, init.weight, input_seed, edged ? edge : value_edge{}, special};
  visit_dtype(type, [&](auto d) { detail::launch_fill<element_t<decltype(d)::value>>(out, size, p, stream); });
}

}  // namespace kbench
