// The device comparison's element loop timed alone, for several element types; prints its tallies and
// hashes of the element readers' values and ulps, so that two trees' headers can be checked for the same
// results (against.sh).
#include <kbench/engines/device_compare_loop.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace kbench;

__device__ unsigned long long mix(unsigned long long x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
  return x;
}

// e: random bits (mode 0-2: finite only); a: e (mode 0), e a few ulps away (1), mostly that and sometimes
// anything (2, 3: any bits, NaN and Inf included).
template <class R>
__global__ void fill(typename R::storage* e, typename R::storage* a, std::size_t n, int mode, unsigned long long seed) {
  using S = typename R::storage;
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n; i += (std::size_t)gridDim.x * blockDim.x) {
    unsigned long long h = mix(i * 0x9E3779B97F4A7C15ull + seed);
    S ev = static_cast<S>(h);
    while (mode < 3 && !R::finite_bits(ev)) { h = mix(h); ev = static_cast<S>(h); }
    if constexpr (sizeof(S) == 4) { if (mode == 0) ev = (ev & 0x80FFFFFFu) | 0x3F000000u; }  // values near 1
    S av = ev;
    const unsigned long long g = mix(h + 1);
    if (mode >= 1) av = static_cast<S>(ev + (g & 3) - 1);
    if (mode >= 2 && (g >> 8) % 1009 == 3) av = static_cast<S>(g >> 16);
    if (mode < 3 && !R::finite_bits(av)) av = ev;
    e[i] = ev;
    a[i] = av;
  }
}

template <class R>
__global__ void hash_readers(std::size_t count, unsigned long long* out) {
  using S = typename R::storage;
  unsigned long long hv = 0, hu = 0;
  for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < count; i += (std::size_t)gridDim.x * blockDim.x) {
    const S w = static_cast<S>(sizeof(S) <= 2 ? i : mix(i));
    const double v = R::value(w);  // integers: exact below 2^53
    const unsigned long long bits = isnan(v) ? 0x7FF8000000000000ull : __double_as_longlong(v);
    hv += mix(bits + i);
    const S b = static_cast<S>(mix(i + 77));
    hu += mix(static_cast<unsigned long long>(R::ulps(w, b)) + i);
    hu += mix(static_cast<unsigned long long>(R::ulps(w, static_cast<S>(w + 1))) * 3 + i);
  }
  atomicAdd(out, hv);
  atomicAdd(out + 1, hu);
}

template <dtype D>
void study(const char* name) {
  using R = detail::device_reader_of<D>;
  using S = typename R::storage;
  const std::size_t bytes = std::size_t{1} << 30, n = bytes / sizeof(S);
  S *a, *e;
  KBENCH_HIP_CHECK(hipMalloc(&a, bytes));
  KBENCH_HIP_CHECK(hipMalloc(&e, bytes));
  unsigned long long* h;
  KBENCH_HIP_CHECK(hipMalloc(&h, 16));
  KBENCH_HIP_CHECK(hipMemset(h, 0, 16));
  hipLaunchKernelGGL(hash_readers<R>, dim3(1024), dim3(256), 0, 0, std::size_t{1} << (sizeof(S) == 1 ? 8 : 20), h);
  unsigned long long hh[2];
  KBENCH_HIP_CHECK(hipMemcpy(hh, h, 16, hipMemcpyDeviceToHost));
  std::printf("%s readers: values %016llx ulps %016llx\n", name, hh[0], hh[1]);
  hipStream_t s;
  KBENCH_HIP_CHECK(hipStreamCreate(&s));
  const tolerance rules[] = {make_tolerance(tol::allclose{1e-3, 1e-5}),
                             make_tolerance(tol::allclose{1e-3, 1e-5} && tol::ulp{3}),
                             make_tolerance(tol::allclose{1e-3, 1e-5} && tol::allclose{1e-2, 0.0} && tol::allclose{0.0, 1e-2}),
                             make_tolerance(tol::exact{})};
  for (int mode = 0; mode < 4; ++mode) {
    hipLaunchKernelGGL(fill<R>, dim3(4096), dim3(256), 0, s, e, a, n, mode, 1234ull + mode);
    KBENCH_HIP_CHECK(hipStreamSynchronize(s));
    for (int r = 0; r < 4; ++r) {
      std::vector<double> seconds;
      element_tally t{};
      for (int i = 0; i < (mode == 0 && r == 0 ? 21 : 2); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        t = detail::run_compare<R>(a, e, n - 3, 0, D, rules[r], true, s);  // n - 3: a scalar tail too
        if (i) seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(seconds.begin(), seconds.end());
      const double med = seconds[seconds.size() / 2];
      if (mode == 0 && r == 0) std::printf("TIME %s: %.3f ms %.2f TB/s\n", name, med * 1e3, 2.0 * bytes / med / 1e12);
      std::printf("%s mode %d rules %d | mm %llu nw %llu nf %llu nanE %llu nanA %llu fp %llu fnw %llu fnf %llu fne %llu "
                  "maxabs %.17g@%llu maxrel %.17g@%llu exp %.17g dot %.17g na %.17g ne %.17g nd %.17g b %.17g %.17g %.17g "
                  "u %llu %llu %llu max %llu\n",
                  name, mode, r, (unsigned long long)t.mismatches, (unsigned long long)t.never_written,
                  (unsigned long long)t.nonfinite, (unsigned long long)t.nan_expected, (unsigned long long)t.nan_actual,
                  (unsigned long long)t.finite_pairs, (unsigned long long)t.first_never_written,
                  (unsigned long long)t.first_nonfinite, (unsigned long long)t.first_nan_expected, t.max_abs,
                  (unsigned long long)t.max_abs_index, t.max_rel, (unsigned long long)t.max_rel_index, t.max_abs_expected,
                  t.dot, t.norm_a, t.norm_e, t.norm_diff, t.bias_error, t.bias_toward, t.bias_magnitude,
                  (unsigned long long)t.ulps_equal, (unsigned long long)t.ulps_one, (unsigned long long)t.ulps_two,
                  (unsigned long long)t.max_ulps);
    }
  }
  KBENCH_HIP_CHECK(hipFree(a));
  KBENCH_HIP_CHECK(hipFree(e));
  KBENCH_HIP_CHECK(hipFree(h));
}

int main() {
  study<dtype::f32>("fp32");
  study<dtype::f64>("fp64");
  study<dtype::f16>("fp16");
  study<dtype::bf16>("bf16");
  study<dtype::f8e4m3>("fp8");
  study<dtype::i8>("int8");
  study<dtype::u8>("uint8");
  study<dtype::i32>("int32");
  study<dtype::i64>("int64");
  return 0;
}
