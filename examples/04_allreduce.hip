// Example 4: an allreduce over N GPUs, the tensor-parallel step of a model split across devices. Every
// GPU holds its own x; afterwards every GPU holds y = x[0] + x[1] + ... + x[N-1].
//
//   reference  host-mediated: each x copied to the host, summed there, the sum copied back to each GPU
//   optimized  peer to peer: each GPU reads every other GPU's x over the links and adds on the device
//
// Both add in device order, in fp32, so they agree to the bit; the tolerance is the procedure's cosine
// similarity against the reference, with an elementwise bound beside it (cosine alone would pass an
// output scaled by any constant). bytes_moved() is one device's traffic, link_bytes() what crosses between
// the GPUs. On a machine with fewer GPUs than a shape asks for, that shape is skipped, saying so.
#include <cstdint>
#include <memory>
#include <vector>

#include <kbench/compare.hpp>

namespace {

constexpr int most_devices = 8;

struct peer_inputs {
  const float* x[most_devices];
};

// y[i] = the sum of every device's x[i], read where it lives (peer memory over the links).
__global__ void peer_sum(peer_inputs in, int devices, float* y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    float sum = 0.0f;
    for (int d = 0; d < devices; ++d) sum += in.x[d][i];
    y[i] = sum;
  }
}

}  // namespace

static void allreduce(kbench::kernel_case& c) {
  const int gpus = c.devices(static_cast<int>(c.dim("gpus")));
  const auto n = c.dim("n");
  if (gpus > most_devices) throw kbench::usage_error("allreduce: at most 8 GPUs");
  auto x = c.input_on_each<float>("x", {n}, kbench::uniform(-1, 1));
  auto y = c.output_on_each<float>("y", {n});
  const auto bytes = static_cast<std::size_t>(n) * sizeof(float);

  auto staging = std::make_shared<std::vector<float>>();  // the host side of the reference, sized on first use
  c.reference([=](const kbench::device_streams& s) {
    std::vector<float>& host = *staging;
    host.resize(static_cast<std::size_t>(gpus + 1) * static_cast<std::size_t>(n));
    for (int d = 0; d < gpus; ++d) {
      KBENCH_HIP_CHECK(hipMemcpyAsync(host.data() + d * n, x[d], bytes, hipMemcpyDeviceToHost, s.use(d)));
    }
    for (int d = 0; d < gpus; ++d) KBENCH_HIP_CHECK(hipStreamSynchronize(s[d]));
    float* sum = host.data() + gpus * n;
    for (std::int64_t i = 0; i < n; ++i) {
      float acc = 0.0f;
      for (int d = 0; d < gpus; ++d) acc += host[static_cast<std::size_t>(d * n + i)];
      sum[i] = acc;
    }
    for (int d = 0; d < gpus; ++d) KBENCH_HIP_CHECK(hipMemcpyAsync(y[d], sum, bytes, hipMemcpyHostToDevice, s.use(d)));
    for (int d = 0; d < gpus; ++d) KBENCH_HIP_CHECK(hipStreamSynchronize(s[d]));  // `host` is reused next call
  });
  c.optimized([=](const kbench::device_streams& s) {
    peer_inputs in{};
    for (int d = 0; d < gpus; ++d) in.x[d] = x[d];
    const auto blocks = static_cast<unsigned int>(std::min<std::int64_t>((n + 255) / 256, 4096));
    for (int d = 0; d < gpus; ++d) {
      hipLaunchKernelGGL(peer_sum, dim3(blocks), dim3(256), 0, s.use(d), in, gpus, y[d], n);
      KBENCH_HIP_CHECK_LAUNCH();
    }
  });
  c.requires_peer_access();
  c.tolerance(kbench::tol::cosine{0.99999} && kbench::tol::allclose{1e-5, 1e-6});
  c.bytes_moved(static_cast<double>(gpus + 1) * static_cast<double>(bytes));  // per device: N reads, one write
  c.link_bytes(static_cast<double>(gpus) * (gpus - 1) * static_cast<double>(bytes));
  c.allow_speedup_up_to(1000.0);  // the host round trip is slow by design
}
KBENCH_REGISTER(allreduce)
    .shape({{"gpus", 2}, {"n", 1 << 24}})
    .shape({{"gpus", 4}, {"n", 1 << 24}})
    .shape({{"gpus", 2}, {"n", 100003}});
