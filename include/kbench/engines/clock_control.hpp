// kbench/engines/clock_control.hpp: how the driver sets the SM clock of a device, read once per program so
// that a run says whether its clocks were locked, and at what.
// - NVIDIA: NVML, opened at run time (libnvidia-ml.so.1 comes with the driver, not the toolkit, and
//   nothing else of kbench needs it): the SM clock now, its highest, the applications clock against its
//   default, and the reasons the driver gives for holding the clock where it is. Clocks count as locked
//   when the applications clock was moved from its default or the driver names the applications-clocks
//   setting among its reasons (nvidia-smi -ac, and -lgc as the driver reports it).
// - AMD: the amdgpu driver's files under the device's PCI folder: power_dpm_force_performance_level is
//   "auto" unless a tool (rocm-smi --setperfdeterminism, --setsclk, a profile) fixed the clock;
//   pp_dpm_sclk marks the clock level in use.
// Apart from platform.hpp for the same reason as profiler_range.hpp: only the program's probe needs it.
#pragma once

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "../contract/platform.hpp"
#include "../results/clocks.hpp"

#if defined(KBENCH_PLATFORM_NVIDIA)
#include <dlfcn.h>
#endif

namespace kbench {
namespace detail {

#if defined(KBENCH_PLATFORM_NVIDIA)
// The few NVML calls used, by their documented C signatures (nvml.h is not part of every toolkit install).
class nvml_library {
 public:
  using device_handle = void*;
  static constexpr int clock_sm = 1;                 // NVML_CLOCK_SM
  static constexpr unsigned long long reason_idle = 0x1;
  static constexpr unsigned long long reason_applications_clocks = 0x2;

  nvml_library() {
    handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle_) return;
    init_ = symbol<int (*)()>("nvmlInit_v2");
    shutdown_ = symbol<int (*)()>("nvmlShutdown");
    by_bus_id_ = symbol<int (*)(const char*, device_handle*)>("nvmlDeviceGetHandleByPciBusId_v2");
    clock_ = symbol<int (*)(device_handle, int, unsigned int*)>("nvmlDeviceGetClockInfo");
    max_clock_ = symbol<int (*)(device_handle, int, unsigned int*)>("nvmlDeviceGetMaxClockInfo");
    applications_ = symbol<int (*)(device_handle, int, unsigned int*)>("nvmlDeviceGetApplicationsClock");
    default_applications_ = symbol<int (*)(device_handle, int, unsigned int*)>("nvmlDeviceGetDefaultApplicationsClock");
    reasons_ = symbol<int (*)(device_handle, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons");
    initialized_ = init_ && shutdown_ && by_bus_id_ && clock_ && init_() == 0;
  }
  nvml_library(const nvml_library&) = delete;
  nvml_library& operator=(const nvml_library&) = delete;
  ~nvml_library() {
    if (initialized_) shutdown_();
    if (handle_) dlclose(handle_);
  }

  [[nodiscard]] bool usable() const { return initialized_; }
  [[nodiscard]] bool device(const std::string& bus_id, device_handle& d) const { return by_bus_id_(bus_id.c_str(), &d) == 0; }
  // MHz of the SM clock by one of the queries (0: not available).
  [[nodiscard]] unsigned int sm_clock(device_handle d, int (*query)(device_handle, int, unsigned int*)) const {
    unsigned int mhz = 0;
    return query && query(d, clock_sm, &mhz) == 0 ? mhz : 0;
  }
  [[nodiscard]] unsigned int current(device_handle d) const { return sm_clock(d, clock_); }
  [[nodiscard]] unsigned int highest(device_handle d) const { return sm_clock(d, max_clock_); }
  [[nodiscard]] unsigned int applications(device_handle d) const { return sm_clock(d, applications_); }
  [[nodiscard]] unsigned int default_applications(device_handle d) const { return sm_clock(d, default_applications_); }
  [[nodiscard]] bool reasons(device_handle d, unsigned long long& bits) const { return reasons_ && reasons_(d, &bits) == 0; }

 private:
  template <class Function>
  Function symbol(const char* name) const {
    return reinterpret_cast<Function>(dlsym(handle_, name));
  }

  void* handle_ = nullptr;
  bool initialized_ = false;
  int (*init_)() = nullptr;
  int (*shutdown_)() = nullptr;
  int (*by_bus_id_)(const char*, device_handle*) = nullptr;
  int (*clock_)(device_handle, int, unsigned int*) = nullptr;
  int (*max_clock_)(device_handle, int, unsigned int*) = nullptr;
  int (*applications_)(device_handle, int, unsigned int*) = nullptr;
  int (*default_applications_)(device_handle, int, unsigned int*) = nullptr;
  int (*reasons_)(device_handle, unsigned long long*) = nullptr;
};

// NVML's clock event reasons, in words.
[[nodiscard]] inline std::string clock_reasons(unsigned long long bits) {
  static constexpr std::pair<unsigned long long, const char*> names[] = {
      {0x1, "idle"}, {0x2, "applications clocks setting"}, {0x4, "software power cap"}, {0x8, "hardware slowdown"},
      {0x10, "sync boost"}, {0x20, "software thermal slowdown"}, {0x40, "hardware thermal slowdown"},
      {0x80, "power brake"}, {0x100, "display clock setting"}};
  std::string words;
  for (const auto& [bit, name] : names) {
    if (bits & bit) words += fmt::format("{}{}", words.empty() ? "" : ", ", name);
  }
  return words.empty() ? "none" : words;
}

[[nodiscard]] inline clock_control driver_clock_setting(const std::string& bus_id) {
  clock_control c;
  const nvml_library nvml;
  nvml_library::device_handle d = nullptr;
  if (!nvml.usable()) {
    c.detail = "NVML (libnvidia-ml.so.1) could not be opened: whether clocks are locked is unknown";
    return c;
  }
  if (!nvml.device(bus_id, d)) {
    c.detail = fmt::format("NVML does not know the device at PCI {}: whether clocks are locked is unknown", bus_id);
    return c;
  }
  c.source = "NVML";
  const unsigned int now = nvml.current(d), highest = nvml.highest(d);
  const unsigned int applications = nvml.applications(d), by_default = nvml.default_applications(d);
  unsigned long long bits = 0;
  const bool have_reasons = nvml.reasons(d, bits);
  c.current_hz = now * 1e6;
  const bool moved = applications != 0 && by_default != 0 && applications != by_default;
  c.locked = moved || (bits & nvml_library::reason_applications_clocks) != 0;
  if (*c.locked) c.locked_hz = (moved ? applications : now) * 1e6;
  c.detail = fmt::format("SM clock {} MHz as read (highest {} MHz), applications clock {} MHz (default {}); the "
                         "driver's reasons for the clock: {}",
                         now, highest, applications, by_default, have_reasons ? clock_reasons(bits) : "not given");
  return c;
}
#else
// The first line of a file, trimmed (empty when it cannot be read).
[[nodiscard]] inline std::string first_line(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

[[nodiscard]] inline clock_control driver_clock_setting(const std::string& bus_id) {
  clock_control c;
  std::string folder = "/sys/bus/pci/devices/" + bus_id;
  std::transform(folder.begin(), folder.end(), folder.begin(), [](unsigned char ch) { return std::tolower(ch); });
  const std::string level = first_line(folder + "/power_dpm_force_performance_level");
  if (level.empty()) {
    c.detail = fmt::format("{}/power_dpm_force_performance_level cannot be read: whether clocks are locked is unknown",
                           folder);
    return c;
  }
  c.source = "sysfs " + folder;
  c.locked = level != "auto";
  // pp_dpm_sclk: "1: 1700Mhz *", the level in use marked.
  std::ifstream levels(folder + "/pp_dpm_sclk");
  std::string line, in_use;
  while (std::getline(levels, line)) {
    if (line.find('*') != std::string::npos) in_use = line;
  }
  if (!in_use.empty()) {
    std::istringstream fields(in_use.substr(in_use.find(':') + 1));
    double mhz = 0;
    if (fields >> mhz) c.current_hz = mhz * 1e6;
  }
  if (*c.locked) c.locked_hz = c.current_hz;
  c.detail = fmt::format("performance level '{}', SM clock level in use '{}'", level, in_use.empty() ? "not given" : in_use);
  return c;
}
#endif

}  // namespace detail

// The driver's clock setting of the device at PCI `bus_id` ("0000:19:00.0"); unknown where it cannot be read.
[[nodiscard]] inline clock_control read_clock_control(const std::string& bus_id) {
  if (bus_id.empty()) {
    clock_control c;
    c.detail = "the device's PCI address is unknown: whether clocks are locked is unknown";
    return c;
  }
  return detail::driver_clock_setting(bus_id);
}

}  // namespace kbench
