// kbench/program/options.hpp: how a kbench program is told what to do (the options themselves, as data:
// run_options.hpp). Every option has an environment variable;
// the command line wins over the environment, which wins over the defaults. Bad values are a usage_error
// with one line naming the option, the variable and the value. HIP-free.
//
//   rmsnorm_test correctness [--seed 0x1234,42] [--seed-count 3] [Catch2 options...]
//   rmsnorm_test perf [--warmup 10] [--iterations 100] [--timing auto|cold|hot|batch]
//                     [--input-sets auto|beyond-cache|<n>] [--json out.json] [Google Benchmark options...]
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "../contract/error.hpp"
#include "../decisions/run_options.hpp"
#include "../decisions/sweep.hpp"
#include "../results/outcome.hpp"

namespace kbench {

namespace detail {

inline std::uint64_t parse_seed(const std::string& text) {
  std::size_t used = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &used, 0);  // decimal, 0x hex or 0 octal
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text.front() == '-') {
    throw usage_error("--seed / KBENCH_SEEDS: '" + text + "' is not an unsigned integer (decimal or 0x hex)");
  }
  return value;
}

// Every option with its default and its environment variable, for --help.
inline std::string describe_options(const CLI::App& app) {
  std::string text =
      "usage: <program> correctness|perf|census|list|resources [options] [Catch2 or Google Benchmark options]\n"
      "  correctness  check every case at every shape (Catch2)\n"
      "  perf         check, time, census, check again (Google Benchmark)\n"
      "  census       check, then list the kernels each side launches, their resources and times\n"
      "  list         the cases, their shapes and buffers (no GPU needed)\n"
      "  resources    every kernel's registers, shared memory (LDS), stack (scratch) and occupancy, per target,\n"
      "               read from the program itself, and the cases' resource bounds (no GPU needed)\n"
      "exit status: 0 passed, 1 failed, 2 bad usage, 77 skipped (no usable GPU, or nothing left to run)\n\n"
      "kbench options (the command line wins over the environment):\n";
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_lnames().empty()) continue;
    std::string name = "--" + option->get_lnames().front();
    const std::string type = option->get_type_name().substr(0, option->get_type_name().find(':'));  // "INT:INT in [..]"
    if (option->get_expected_min() > 0) name += " " + (type.empty() ? std::string("VALUE") : type);
    std::string line = "  " + name;
    line += std::string(line.size() < 30 ? 30 - line.size() : 1, ' ') + option->get_description();
    std::string extra;
    const std::string fallback = option->get_default_str();
    if (!fallback.empty() && fallback != "[]" && option->get_expected_min() > 0) extra += "default " + fallback;
    if (!option->get_envname().empty()) extra += std::string(extra.empty() ? "" : ", ") + "env " + option->get_envname();
    if (!extra.empty()) line += " [" + extra + "]";
    text += line + "\n";
  }
  return text;
}

// The GPU CTest assigned to resource group `group` of this test ("id:1,slots:1"), if any.
inline int ctest_resource_gpu(int fallback, int group = 0) {
  const std::string variable = "CTEST_RESOURCE_GROUP_" + std::to_string(group) + "_GPUS";
  const char* spec = std::getenv(variable.c_str());
  if (!spec) return fallback;
  const std::string s(spec);
  const auto id = s.find("id:");
  if (id == std::string::npos) throw usage_error(variable + "='" + s + "' names no id");
  try {
    return std::stoi(s.substr(id + 3));
  } catch (const std::exception&) {
    throw usage_error(variable + "='" + s + "' has no numeric id");
  }
}

// Every GPU CTest assigned to this test, one per resource group (a test that asks for "4,gpus:1" gets
// four); empty outside CTest's resource allocation.
inline std::vector<int> ctest_resource_gpus() {
  const char* count = std::getenv("CTEST_RESOURCE_GROUP_COUNT");
  if (!count) return {};
  int groups = 0;
  try {
    groups = std::stoi(count);
  } catch (const std::exception&) {
    throw usage_error(std::string("CTEST_RESOURCE_GROUP_COUNT='") + count + "' is not a number");
  }
  std::vector<int> gpus;
  for (int g = 0; g < groups; ++g) {
    const int id = ctest_resource_gpu(-1, g);
    if (id < 0) {
      throw usage_error("CTEST_RESOURCE_GROUP_COUNT=" + std::to_string(groups) + " but group " + std::to_string(g) +
                        " has no GPUs");
    }
    gpus.push_back(id);
  }
  return gpus;
}

// "0,1,2,3": GPU ordinals, each once.
inline std::vector<int> parse_device_list(const std::string& text) {
  std::vector<int> out;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, comma - begin);
    std::size_t used = 0;
    int ordinal = -1;
    try {
      ordinal = std::stoi(item, &used);
    } catch (const std::exception&) {
    }
    if (used != item.size() || ordinal < 0 || ordinal > 1023) {
      throw usage_error("--devices / KBENCH_DEVICES: '" + item + "' in '" + text + "' is not a GPU ordinal (0 to 1023)");
    }
    if (std::find(out.begin(), out.end(), ordinal) != out.end()) {
      throw usage_error("--devices / KBENCH_DEVICES: GPU " + item + " is listed twice in '" + text + "'");
    }
    out.push_back(ordinal);
    begin = comma + 1;
  }
  if (out.empty()) throw usage_error("--devices / KBENCH_DEVICES: no GPU listed");
  return out;
}


// Options that CLI11 reads as text, which parse_options turns into run_options' values.
struct option_texts {
  std::string mode;
  std::string seeds;
  std::string device_list;
  std::string timing = "auto";
  std::string input_sets = "auto";
  std::vector<std::string> shapes, axes;
};

// The mode, the seeds, the GPUs, and how to time.
inline void declare_run_options(CLI::App& app, run_options& o, option_texts& t) {
  app.add_option("mode", t.mode, "correctness | perf | census | list | resources")->required();
  app.add_option("--seed", t.seeds, "pin the seeds (comma-separated, decimal or 0x hex)")->envname("KBENCH_SEEDS");
  app.add_option("--seed-count", o.seed_count, "fresh seeds per correctness run")
      ->envname("KBENCH_SEED_COUNT")
      ->check(CLI::Range(1, 1000));
  app.add_option("--warmup", o.warmup, "launches of each kernel before timing")
      ->envname("KBENCH_WARMUP")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--iterations", o.iterations, "timed launches of each kernel")
      ->envname("KBENCH_ITERATIONS")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--device", o.device, "GPU ordinal")->envname("KBENCH_DEVICE")->check(CLI::Range(0, 1023));
  app.add_option("--devices", t.device_list, "GPU ordinals of a case that spans devices, in order (0,1,2,3)")
      ->envname("KBENCH_DEVICES");
  app.add_flag("--share-devices", o.share_devices,
               "run a case that spans more devices than the machine shows on fewer GPUs (tests the harness; its "
               "timings say nothing of links)")
      ->envname("KBENCH_SHARE_DEVICES");
  app.add_option("--device-count", o.device_count,
                 "run only the shapes whose case spans this many GPUs (a CTest entry per GPU count)")
      ->check(CLI::Range(0, 64));
  app.add_option("--timing", t.timing, "auto | cold | hot | batch")
      ->envname("KBENCH_TIMING")
      ->check(CLI::IsMember({"auto", "cold", "hot", "batch"}));
  app.add_option("--precision", o.precision, "relative precision of the medians to stop at")
      ->envname("KBENCH_PRECISION")
      ->check(CLI::Range(1e-6, 0.5));
  app.add_option("--max-time", o.max_time, "seconds of sampling per case at most")
      ->envname("KBENCH_MAX_TIME")
      ->check(CLI::Range(1e-3, 86400.0));
  app.add_option("--max-iterations", o.max_iterations, "samples per case at most")
      ->envname("KBENCH_MAX_ITERATIONS")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--warmup-time", o.warmup_time,
                 "after --warmup launches, seconds of warm-up at most: it ends once the SM clock is up")
      ->envname("KBENCH_WARMUP_TIME")
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--flush-mib", o.flush_mib, "MiB read to flush the caches in cold mode (0: automatic)")
      ->envname("KBENCH_FLUSH_MIB")
      ->check(CLI::Range(0.0, 65536.0));
  app.add_option("--batch-below-us", o.batch_below_us, "automatic timing batches kernels shorter than this")
      ->envname("KBENCH_BATCH_BELOW_US")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--throttle-threshold", o.throttle_threshold,
                 "leave out samples whose SM clock was below this share of the device's highest (0: keep all)")
      ->envname("KBENCH_THROTTLE_THRESHOLD")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--input-sets", t.input_sets,
                 "input sets drawn anew before each sample: auto (1, or 1 per launch of a batch), beyond-cache, or a count")
      ->envname("KBENCH_INPUT_SETS");
}

// What to write, what to compare with, and which shapes to run.
inline void declare_output_options(CLI::App& app, run_options& o, option_texts& t) {
  app.add_option("--json", o.json_path, "write the results as JSON to this file")->envname("KBENCH_JSON");
  app.add_option("--max-elements", o.max_elements, "run only shapes with at most this many elements in all buffers")
      ->envname("KBENCH_MAX_ELEMENTS")
      ->check(CLI::Range(0.0, 1e18));
  app.add_flag("--require-gpu", o.require_gpu, "fail, instead of skipping, when no GPU is usable")
      ->envname("KBENCH_REQUIRE_GPU");
  app.add_flag("--quick", o.quick, "skip the extended checks (the shapes around the declared ones, the inputs at the edges, "
                 "most misalignments); in a perf run, check each case before timing it as a later seed is checked")
      ->envname("KBENCH_QUICK");
  app.add_option("--markdown", o.markdown_path, "write a table of the results as Markdown to this file")
      ->envname("KBENCH_MARKDOWN");
  app.add_option("--csv", o.csv_path, "write the results as CSV to this file")->envname("KBENCH_CSV");
  app.add_option("--baseline", o.baseline_path, "compare each case with this earlier perf run's JSON; a slower one fails")
      ->envname("KBENCH_BASELINE");
  app.add_option("--baseline-threshold", o.baseline_threshold, "slowdown against the baseline that fails (0.05: 5%)")
      ->envname("KBENCH_BASELINE_THRESHOLD")
      ->check(CLI::Range(0.0, 10.0));
  app.add_flag("--intended-change", o.intended_change,
               "the test changed on purpose: a reference whose time moved against --baseline is noted, not a failure")
      ->envname("KBENCH_INTENDED_CHANGE");
  app.add_option("--shape", t.shapes, "run at this shape instead of the registered ones: rows=4096,cols=8192 (repeatable)")
      ->envname("KBENCH_SHAPE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->delimiter(';');
  app.add_option("--axis", t.axes, "sweep a dimension: cols=1024:65536:x2, cols=1024:4096:+1024 or cols=1000,4096 (repeatable)")
      ->envname("KBENCH_AXIS")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->delimiter(';');
}

// Every environment variable enters as an option placed before the command line's, whose value is taken
// last and so wins: environment values meet the same checks as options in every CLI11 version (2.4 and
// later skip an environment value that does not parse, instead of failing).
inline void parse_with_environment(CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> args{argc > 0 ? argv[0] : "kbench"};
  for (const CLI::Option* option : app.get_options()) {
    const std::string variable = option->get_envname();
    const char* value = variable.empty() ? nullptr : std::getenv(variable.c_str());
    if (value && !option->get_lnames().empty()) args.push_back("--" + option->get_lnames().front() + "=" + value);
  }
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<const char*> pointers;
  for (const std::string& a : args) pointers.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (what.empty()) what = e.get_name();
    throw usage_error("bad option or environment variable: " + what);
  }
}

// --help anywhere: kbench's options, then those of the mode's framework (none for list).
inline bool help_asked(int argc, const char* const* argv, const CLI::App& app, run_options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help" || a == "-?") o.help = true;
  }
  if (!o.help) return false;
  o.passthrough = {"--help"};
  o.mode = argc > 1 && std::string(argv[1]) == "perf" ? run_mode::perf
           : argc > 1 && std::string(argv[1]) == "correctness" ? run_mode::correctness
                                                                : run_mode::list;
  o.help_text = describe_options(app);
  return true;
}

inline run_mode parse_mode(const std::string& mode) {
  if (mode == "correctness") return run_mode::correctness;
  if (mode == "perf") return run_mode::perf;
  if (mode == "census") return run_mode::census;
  if (mode == "list") return run_mode::list;
  if (mode == "resources") return run_mode::resources;
  throw usage_error("unknown mode '" + mode + "': expected correctness, perf, census, list or resources");
}

inline timing_mode parse_timing(const std::string& timing) {
  return timing == "cold"    ? timing_mode::cold
         : timing == "hot"   ? timing_mode::hot
         : timing == "batch" ? timing_mode::batch
                             : timing_mode::automatic;
}

// auto, beyond-cache, or a count from 1 to 4096.
inline int parse_input_sets(const std::string& input_sets) {
  if (input_sets == "auto") return input_sets_auto;
  if (input_sets == "beyond-cache") return input_sets_beyond_cache;
  std::size_t used = 0;
  int count = 0;
  try {
    count = std::stoi(input_sets, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != input_sets.size() || count < 1 || count > 4096) {
    throw usage_error("--input-sets / KBENCH_INPUT_SETS: '" + input_sets +
                      "' is not auto, beyond-cache or a count from 1 to 4096");
  }
  return count;
}

inline std::vector<std::uint64_t> parse_seeds(const std::string& seeds) {
  std::vector<std::uint64_t> out;
  for (std::size_t begin = 0; begin < seeds.size();) {
    const std::size_t comma = std::min(seeds.find(',', begin), seeds.size());
    out.push_back(parse_seed(seeds.substr(begin, comma - begin)));
    begin = comma + 1;
  }
  return out;
}

// The program's GPU and a spanning case's GPUs: --device, --devices (whose first is the program's), or a
// CTest resource group; and which of them decided.
inline void assign_devices(const CLI::App& app, const std::string& device_list, run_options& o) {
  if (!device_list.empty()) o.devices = parse_device_list(device_list);
  if (app.count("--device") == 0 && o.devices.empty()) {
    o.device = ctest_resource_gpu(o.device);
    o.devices = ctest_resource_gpus();
    const char* assigned = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
    o.device_source = assigned ? std::string("CTest resource group (CTEST_RESOURCE_GROUP_0_GPUS=") + assigned + ")" : "default";
  } else if (app.count("--device") == 0) {
    o.device = o.devices.front();
    o.device_source = "--devices / KBENCH_DEVICES";
  } else {
    if (!o.devices.empty() && o.devices.front() != o.device) {
      throw usage_error("--device " + std::to_string(o.device) + " and --devices " + device_list +
                        " disagree: the first of --devices is the program's device");
    }
    o.device_source = "--device / KBENCH_DEVICE";
  }
}

}  // namespace detail

// Parses argv[1..] (argv[0] is the program). Throws usage_error on a bad value; unknown arguments are
// passed through to the test framework of the mode.
[[nodiscard]] inline run_options parse_options(int argc, const char* const* argv) {
  run_options o;
  detail::option_texts t;
  CLI::App app{"kbench: checks an optimized kernel against its reference, then times both"};
  app.allow_extras();
  app.set_help_flag();  // --help goes to Catch2 / Google Benchmark too; `kbench list` shows the cases
  // The last value of an option wins: see parse_with_environment.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->always_capture_default();
  detail::declare_run_options(app, o, t);
  detail::declare_output_options(app, o, t);
  if (detail::help_asked(argc, argv, app, o)) return o;
  detail::parse_with_environment(app, argc, argv);
  o.timing = detail::parse_timing(t.timing);
  o.input_sets = detail::parse_input_sets(t.input_sets);
  if (o.max_iterations < o.iterations) {
    throw usage_error("--max-iterations (" + std::to_string(o.max_iterations) + ") is below --iterations (" +
                      std::to_string(o.iterations) + ")");
  }
  o.mode = detail::parse_mode(t.mode);
  o.seeds = detail::parse_seeds(t.seeds);
  detail::assign_devices(app, t.device_list, o);
  for (const std::string& text : t.shapes) o.shapes.shapes.push_back(parse_shape(text));
  for (const std::string& text : t.axes) o.shapes.axes.push_back(parse_axis(text));
  o.passthrough = app.remaining();
  return o;
}

}  // namespace kbench
