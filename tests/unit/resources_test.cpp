// occupancy.hpp, code_objects.hpp and code_object_file.hpp: waves per SIMD (warps per SM) by each target's
// rule, and the readers of the code objects and cubins a program carries and of the code object files its
// cases load, on containers made here (the AMD and NVIDIA builds run them on real programs and files:
// kbench.resources.*, and example 7's `resources` test).
#include <kbench/contract/code_object_files.hpp>
#include <kbench/decisions/census_judge.hpp>
#include <kbench/decisions/occupancy.hpp>
#include <kbench/decisions/resource_check.hpp>
#include <kbench/engines/code_object_file.hpp>
#include <kbench/engines/code_objects.hpp>
#include <kbench/program/resource_listing.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "../catch.hpp"

namespace unit_resources_test {  // one per file: the unit tests compile in unity batches

using kbench_test::contains;

namespace {

int waves(const char* target, int vgprs, int agprs = -1, int sgprs = 32, long long lds = 0, int group = 256) {
  return kbench::amd_waves_per_simd(*kbench::occupancy_rule(target), vgprs, agprs, sgprs, lds, group).waves;
}

template <class T>
void put(std::vector<unsigned char>& bytes, std::size_t at, T value) {
  if (bytes.size() < at + sizeof(T)) bytes.resize(at + sizeof(T));
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

// A little-endian ELF64 file whose only sections are a note section (one note) and the section names.
std::vector<unsigned char> elf_with_note(const std::string& owner, std::uint32_t type, const std::vector<std::uint8_t>& desc) {
  std::vector<unsigned char> note;
  put<std::uint32_t>(note, 0, static_cast<std::uint32_t>(owner.size() + 1));
  put<std::uint32_t>(note, 4, static_cast<std::uint32_t>(desc.size()));
  put<std::uint32_t>(note, 8, type);
  note.resize(12 + (owner.size() + 1 + 3) / 4 * 4, 0);
  std::memcpy(note.data() + 12, owner.c_str(), owner.size());
  note.insert(note.end(), desc.begin(), desc.end());
  const std::string names = std::string("\0.note\0.shstrtab\0", 17);
  std::vector<unsigned char> elf(64, 0);
  elf.reserve(64 + note.size() + names.size() + 8 + 3 * 64);  // GCC 12 warns of an overread where it grows
  std::memcpy(elf.data(), "\x7f" "ELF", 4);
  elf[4] = 2;  // 64-bit
  elf[5] = 1;  // little-endian
  const std::size_t note_at = elf.size();
  elf.insert(elf.end(), note.begin(), note.end());
  const std::size_t names_at = elf.size();
  elf.insert(elf.end(), names.begin(), names.end());
  const std::size_t table = (elf.size() + 7) / 8 * 8;
  elf.resize(table + 3 * 64, 0);
  put<std::uint64_t>(elf, 0x28, table);
  put<std::uint16_t>(elf, 0x3A, 64);
  put<std::uint16_t>(elf, 0x3C, 3);
  put<std::uint16_t>(elf, 0x3E, 2);
  auto section = [&](int i, std::uint32_t name, std::uint32_t kind, std::size_t at, std::size_t size) {
    put<std::uint32_t>(elf, table + i * 64, name);
    put<std::uint32_t>(elf, table + i * 64 + 4, kind);
    put<std::uint64_t>(elf, table + i * 64 + 0x18, at);
    put<std::uint64_t>(elf, table + i * 64 + 0x20, size);
  };
  section(1, 1, 7, note_at, note.size());
  section(2, 7, 3, names_at, names.size());
  return elf;
}

// An offload bundle of a host entry and one code object for `target`.
std::vector<unsigned char> bundle(const std::string& target, const std::vector<unsigned char>& object) {
  const std::string host = "host-x86_64-unknown-linux", device = "hipv4-amdgcn-amd-amdhsa--" + target;
  std::vector<unsigned char> b(kbench::detail::bundle_magic.begin(), kbench::detail::bundle_magic.end());
  put<std::uint64_t>(b, b.size(), 2);
  const std::size_t data = 4096;
  for (const std::string* id : {&host, &device}) {
    const std::size_t at = b.size();
    put<std::uint64_t>(b, at, data);
    put<std::uint64_t>(b, at + 8, id == &host ? 0 : object.size());
    put<std::uint64_t>(b, at + 16, id->size());
    b.insert(b.end(), id->begin(), id->end());
  }
  b.resize(data, 0);
  b.insert(b.end(), object.begin(), object.end());
  return b;
}

std::vector<std::uint8_t> metadata(const char* target) {
  nlohmann::json kernel = {{".name", "_Z6kernelPf"}, {".vgpr_count", 101}, {".sgpr_count", 24},
                           {".vgpr_spill_count", 2}, {".sgpr_spill_count", 0}, {".group_segment_fixed_size", 2048},
                           {".private_segment_fixed_size", 16}, {".wavefront_size", 64}, {".max_flat_workgroup_size", 256}};
  return nlohmann::json::to_msgpack(nlohmann::json{{"amdhsa.kernels", {kernel}}, {"amdhsa.target", target}});
}


// A little-endian ELF64 file of the given sections (name, type, contents; NOBITS sections give a size
// and no contents), after the null section and before the section names, which come last.
struct elf_part {
  std::string name;
  std::uint32_t type;
  std::vector<unsigned char> bytes;
  std::size_t nobits_size = 0;
  std::uint32_t link = 0;
};
std::vector<unsigned char> elf_of(const std::vector<elf_part>& parts) {
  std::string names(1, '\0');
  std::vector<std::size_t> name_at;
  for (const elf_part& part : parts) {
    name_at.push_back(names.size());
    names += part.name + '\0';
  }
  const std::size_t names_name = names.size();
  names += std::string(".shstrtab") + '\0';
  std::vector<unsigned char> elf(64, 0);
  std::memcpy(elf.data(), "\x7f" "ELF", 4);
  elf[4] = 2;
  elf[5] = 1;
  std::vector<std::size_t> at;
  for (const elf_part& part : parts) {
    elf.resize((elf.size() + 7) / 8 * 8, 0);
    at.push_back(elf.size());
    elf.insert(elf.end(), part.bytes.begin(), part.bytes.end());
  }
  const std::size_t names_at = elf.size();
  elf.insert(elf.end(), names.begin(), names.end());
  const std::size_t table = (elf.size() + 7) / 8 * 8, count = parts.size() + 2;
  elf.resize(table + count * 64, 0);
  put<std::uint64_t>(elf, 0x28, table);
  put<std::uint16_t>(elf, 0x3A, 64);
  put<std::uint16_t>(elf, 0x3C, static_cast<std::uint16_t>(count));
  put<std::uint16_t>(elf, 0x3E, static_cast<std::uint16_t>(count - 1));
  auto section = [&](std::size_t i, std::size_t name, std::uint32_t type, std::size_t offset, std::size_t size, std::uint32_t link) {
    put<std::uint32_t>(elf, table + i * 64, static_cast<std::uint32_t>(name));
    put<std::uint32_t>(elf, table + i * 64 + 4, type);
    put<std::uint64_t>(elf, table + i * 64 + 0x18, offset);
    put<std::uint64_t>(elf, table + i * 64 + 0x20, size);
    put<std::uint32_t>(elf, table + i * 64 + 0x28, link);
  };
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const elf_part& part = parts[i];
    section(i + 1, name_at[i], part.type, at[i], part.bytes.empty() ? part.nobits_size : part.bytes.size(), part.link);
  }
  section(count - 1, names_name, 3, names_at, names.size(), 0);
  return elf;
}

// A cubin for sm_90 with an entry function _Z6kernelPf (40 registers, a 16-byte frame, a 32-byte stack with
// its callees, 4096 bytes of static shared memory plus the 1 KiB reserved, launch bound 256) and a
// function it calls, which is no kernel.
std::vector<unsigned char> cubin() {
  const std::string strings = std::string("\0_Z6kernelPf\0_Z6helperv\0", 25);
  std::vector<unsigned char> symbols(3 * 24, 0);
  put<std::uint32_t>(symbols, 24, 1);
  symbols[24 + 4] = 0x12;  // global function
  symbols[24 + 5] = 0x10;  // STO_CUDA_ENTRY
  put<std::uint32_t>(symbols, 48, 13);
  symbols[48 + 4] = 0x02;  // local function, no entry
  std::vector<unsigned char> info;
  auto attribute = [&](std::vector<unsigned char>& to, std::uint8_t id, std::vector<std::uint32_t> words) {
    const std::size_t at = to.size();
    put<std::uint8_t>(to, at, 0x04);
    put<std::uint8_t>(to, at + 1, id);
    put<std::uint16_t>(to, at + 2, static_cast<std::uint16_t>(4 * words.size()));
    for (std::size_t i = 0; i < words.size(); ++i) put<std::uint32_t>(to, at + 4 + 4 * i, words[i]);
  };
  put<std::uint32_t>(info, 0, 0x00080301);  // a value without payload (format 3): skipped
  attribute(info, 0x2f, {1, 40});
  attribute(info, 0x2f, {2, 200});  // the helper's registers: not the kernel's
  attribute(info, 0x11, {1, 16});
  attribute(info, 0x12, {1, 32});
  std::vector<unsigned char> own;
  attribute(own, 0x05, {256, 1, 1});
  return elf_of({{".strtab", 3, std::vector<unsigned char>(strings.begin(), strings.end())},
                 {".symtab", 2, symbols, 0, 1},
                 {".nv.info", 0x70000000, info},
                 {".nv.info._Z6kernelPf", 0x70000000, own},
                 {".nv.shared._Z6kernelPf", 8, {}, 4096 + 1024},
                 {".nv.shared.reserved.0", 8, {}, 0},
                 {".text._Z6kernelPf", 1, std::vector<unsigned char>(16, 0)}});
}

// A fat binary of one PTX entry and one cubin entry for sm_90 (`flags` on the cubin's).
std::vector<unsigned char> fatbin_of(const std::vector<unsigned char>& cubin_bytes) {
  std::vector<unsigned char> entries;
  auto entry = [&](std::uint16_t kind, const std::vector<unsigned char>& payload) {
    const std::size_t at = entries.size();
    put<std::uint16_t>(entries, at, kind);
    put<std::uint32_t>(entries, at + 4, 64);
    put<std::uint64_t>(entries, at + 8, payload.size());
    put<std::uint32_t>(entries, at + 28, 90);
    entries.resize(at + 64, 0);
    entries.insert(entries.end(), payload.begin(), payload.end());
  };
  entry(1, std::vector<unsigned char>(24, 'p'));
  entry(2, cubin_bytes);
  std::vector<unsigned char> fatbin;
  put<std::uint32_t>(fatbin, 0, 0xBA55ED50);
  put<std::uint16_t>(fatbin, 4, 1);
  put<std::uint16_t>(fatbin, 6, 16);
  put<std::uint64_t>(fatbin, 8, entries.size());
  fatbin.insert(fatbin.end(), entries.begin(), entries.end());
  return fatbin;
}

// `bytes` written to a file of this test's own, removed when it goes.
class temporary_file {
 public:
  temporary_file(const std::string& name, const std::vector<unsigned char>& bytes) : path_("kbench_resources_test_" + name) {
    std::ofstream(path_, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  temporary_file(const temporary_file&) = delete;
  temporary_file& operator=(const temporary_file&) = delete;
  ~temporary_file() { std::remove(path_.c_str()); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// An ELF file made an NVIDIA cubin (EM_CUDA) for sm_90, with the flags of ELF ABI version `abi`.
std::vector<unsigned char> raw_cubin(std::uint8_t abi) {
  std::vector<unsigned char> c = cubin();
  c[8] = abi;
  put<std::uint16_t>(c, 0x12, 190);
  put<std::uint32_t>(c, 0x30, abi >= 8 ? 0x06005a04u : 0x005a055au);  // CUDA 13's sm_90 flags, and CUDA 12's
  return c;
}

// An ELF file made an AMDGPU code object (EM_AMDGPU) whose metadata names `target` ("" none).
std::vector<unsigned char> raw_amdgpu_object(const std::string& target) {
  // scale_kernel(const float*, float*, int): 8, 8 and 4 bytes, then the runtime's hidden arguments.
  const nlohmann::json args = nlohmann::json::array(
      {{{".offset", 0}, {".size", 8}, {".value_kind", "global_buffer"}},
       {{".offset", 8}, {".size", 8}, {".value_kind", "global_buffer"}},
       {{".offset", 16}, {".size", 4}, {".value_kind", "by_value"}},
       {{".offset", 24}, {".size", 4}, {".value_kind", "hidden_block_count_x"}}});
  nlohmann::json kernel = {{".name", "scale_kernel"}, {".vgpr_count", 9}, {".sgpr_count", 19}, {".wavefront_size", 64},
                           {".args", args}};
  nlohmann::json meta = {{"amdhsa.kernels", {kernel}}};
  if (!target.empty()) meta["amdhsa.target"] = target;
  std::vector<unsigned char> object = elf_with_note("AMDGPU", 32, nlohmann::json::to_msgpack(meta));
  put<std::uint16_t>(object, 0x12, 224);
  return object;
}
}  // namespace

TEST_CASE("waves per SIMD by each target's register rule, and the registers of the next step", "[occupancy]") {
  CHECK(waves("gfx906", 48) == 5);
  CHECK(waves("gfx906", 64) == 4);
  CHECK(waves("gfx906", 80) == 3);
  CHECK(waves("gfx906", 101) == 2);  // softmax_cached_kernel<8, 8> on gfx906
  CHECK(waves("gfx906", 24) == 10);
  CHECK(waves("gfx90a", 64) == 8);
  CHECK(waves("gfx90a", 80) == 6);
  CHECK(waves("gfx90a", 96) == 5);
  CHECK(waves("gfx90a", 100) == 4);  // the same kernel on gfx90a
  CHECK(waves("gfx942:sramecc+:xnack-", 64) == 8);
  CHECK(waves("gfx950", 128) == 4);
  CHECK(waves("gfx908", 64, 128) == 2);  // its AGPRs have a file of their own: the larger count rules
  const kbench::kernel_occupancy softmax = kbench::amd_waves_per_simd(*kbench::occupancy_rule("gfx906"), 101, -1, 32, 0, 256);
  CHECK(softmax.limiter == "VGPRs");
  CHECK(softmax.vgprs_for_next_wave == 84);  // 3 waves: 256 / 3 = 85, in granules of 4
  const kbench::kernel_occupancy eight = kbench::amd_waves_per_simd(*kbench::occupancy_rule("gfx90a"), 64, 0, 32, 0, 256);
  CHECK(eight.limiter == "the target's maximum");
  CHECK(eight.vgprs_for_next_wave == -1);
  CHECK_FALSE(kbench::occupancy_rule("gfx1100").has_value());
}

TEST_CASE("SGPRs and static LDS limit the waves too", "[occupancy]") {
  CHECK(waves("gfx906", 24, -1, 96) == 8);
  CHECK(waves("gfx906", 24, -1, 102) == 7);
  // The groups that fit a CU's LDS, their waves spread over its 4 SIMDs.
  const kbench::kernel_occupancy lds = kbench::amd_waves_per_simd(*kbench::occupancy_rule("gfx906"), 24, -1, 32, 45056, 256);
  CHECK(lds.waves == 1);  // one group of 4 waves fits in 64 KiB
  CHECK(lds.limiter == "LDS");
  CHECK(waves("gfx90a", 134, 0, 108, 45056, 256) == 1);   // kbench's compare kernel (LLVM 22 agrees; LLVM 15 says 3)
  CHECK(waves("gfx906", 24, -1, 32, 8192, 256) == 8);     // eight groups of 4 waves
  CHECK(waves("gfx950", 24, -1, 32, 32768, 256) == 5);    // 160 KiB of LDS: five groups
  CHECK(waves("gfx906", 24, -1, 32, 100000, 1024) == 4);  // more than fits: counted as one group
}

TEST_CASE("the code objects of a program: every target's kernels from its metadata", "[resources]") {
  const std::vector<unsigned char> fatbin = bundle("gfx906", elf_with_note("AMDGPU", 32, metadata("amdgcn-amd-amdhsa--gfx906")));
  int bundles = 0;
  const std::vector<kbench::kernel_resources> kernels =
      kbench::detail::fatbin_kernels(kbench::detail::byte_view(fatbin.data(), fatbin.size(), "test"), bundles);
  CHECK(bundles == 1);
  REQUIRE(kernels.size() == 1);
  const kbench::kernel_resources& k = kernels.front();
  CHECK(k.target == "gfx906");
  CHECK(k.name == "_Z6kernelPf");
  CHECK(k.vgprs == 101);
  CHECK(k.agprs == -1);
  CHECK(k.sgprs == 24);
  CHECK(k.vgpr_spills == 2);
  CHECK(k.lds_bytes == 2048);
  CHECK(k.scratch_bytes == 16);
  CHECK(k.max_workgroup_size == 256);
  const std::string table = kbench::detail::format_resources(kernels);
  CHECK_THAT(table, contains("kernel(float*)"));
  CHECK_THAT(table, contains("VGPRs"));
  CHECK_THAT(table, contains("<= 84"));
  const auto json = kbench::detail::resources_json("p", kernels);
  CHECK(json["kernels"][0]["waves_per_simd"] == 2);
  CHECK(json["kernels"][0]["agprs"].is_null());
}

TEST_CASE("a container the reader does not know is an error, never an empty list", "[resources]") {
  auto read = [](const std::vector<unsigned char>& bytes) {
    int bundles = 0;
    return kbench::detail::fatbin_kernels(kbench::detail::byte_view(bytes.data(), bytes.size(), "test"), bundles);
  };
  std::vector<unsigned char> compressed = {'C', 'C', 'O', 'B', 1, 0, 0, 0};
  CHECK_THROWS_WITH(read(compressed), contains("compressed offload bundle"));
  const std::vector<unsigned char> yaml = bundle("gfx906", elf_with_note("AMD", 10, {1, 2, 3}));
  CHECK_THROWS_WITH(read(yaml), contains("no MessagePack metadata note"));
  std::vector<unsigned char> cut = bundle("gfx906", elf_with_note("AMDGPU", 32, metadata("gfx906")));
  cut.resize(cut.size() - 40);
  CHECK_THROWS_WITH(read(cut), contains("past"));
  const std::string path = "kbench_resources_test_not_elf.bin";
  std::ofstream(path) << "not an executable";
  CHECK_THROWS_WITH(kbench::read_kernel_resources(path), contains("not an ELF file"));
  std::remove(path.c_str());
  CHECK_THROWS_WITH(kbench::read_kernel_resources("/proc/self/exe"), contains("neither a .hip_fatbin nor a .nv_fatbin"));
}

TEST_CASE("a case's resource bounds: each failure names kernel, target, figure and bound", "[resources]") {
  kbench::kernel_resources heavy;
  heavy.target = "gfx906";
  heavy.name = "_Z6kernelPf";
  heavy.vgprs = 101;
  heavy.sgprs = 30;
  heavy.vgpr_spills = 3;
  heavy.lds_bytes = 256;
  heavy.max_workgroup_size = 256;
  kbench::kernel_resources wide = heavy;
  wide.target = "gfx90a:xnack-";
  wide.vgprs = 100;
  wide.vgpr_spills = 0;
  const std::vector<kbench::kernel_resources> kernels{heavy, wide};
  auto check = [&](const kbench::resource_bound& b) { return kbench::check_resource_bound("c/n=1", b, kernels); };
  kbench::resource_bound b;
  b.kernels = "kernel(";
  const std::vector<std::string> vgprs = check(kbench::resource_bound(b).vgprs_at_most(100));
  REQUIRE(vgprs.size() == 1);  // gfx90a's 100 are within the bound
  CHECK(vgprs.front() == "c/n=1: kernel(float*) on gfx906: 101 VGPRs, bound at most 100");
  const std::vector<std::string> spills = check(kbench::resource_bound(b).spills_none());
  REQUIRE(spills.size() == 1);
  CHECK_THAT(spills.front(), contains("3 VGPRs and 0 SGPRs spilled, bound no spills"));
  const std::vector<std::string> waves = check(kbench::resource_bound(b).waves_at_least(4));
  REQUIRE(waves.size() == 1);
  CHECK_THAT(waves.front(), contains("on gfx906: 2 waves per SIMD, limited by VGPRs (101 VGPRs; 84 VGPRs give one more), "
                                     "bound at least 4"));
  CHECK(check(kbench::resource_bound(b).lds_at_most(256).scratch_at_most(0)).empty());
  kbench::resource_bound on_gfx90a = b;
  on_gfx90a.target = "gfx90a";
  CHECK(check(kbench::resource_bound(on_gfx90a).waves_at_least(4)).empty());  // gfx906's 2 waves are not its business
  kbench::resource_bound elsewhere = b;
  elsewhere.target = "gfx942";
  CHECK(check(kbench::resource_bound(elsewhere).vgprs_at_most(8)).empty());  // not built here: its own build checks it
  kbench::resource_bound misspelt;
  misspelt.kernels = "kernle";
  const std::vector<std::string> none = check(misspelt);
  REQUIRE(none.size() == 2);
  CHECK_THAT(none.front(), contains("the resource bound on 'kernle' names no kernel of gfx906"));
  CHECK_THROWS_WITH(kbench::resource_bound(b).vgprs_at_most(0), contains("vgprs_at_most() needs a count > 0"));
  CHECK_THROWS_WITH(kbench::resource_bound(b).waves_at_least(11), contains("1 to 10 waves"));
}

TEST_CASE("warps per SM by each NVIDIA architecture's rule", "[occupancy]") {
  const kbench::nvidia_occupancy_rule hopper = *kbench::nvidia_rule("sm_90");
  CHECK(kbench::nvidia_warps_per_sm(hopper, 64, 0, 256).waves == 32);
  CHECK(kbench::nvidia_warps_per_sm(hopper, 128, 0, 256).waves == 16);
  CHECK(kbench::nvidia_warps_per_sm(hopper, 255, 0, 256).waves == 8);  // 8160 registers a warp, 8192 allocated
  const kbench::kernel_occupancy o = kbench::nvidia_warps_per_sm(hopper, 56, 0, 256);
  CHECK(o.waves == 36);  // 1792 registers a warp
  CHECK(o.limiter == "registers");
  CHECK(o.vgprs_for_next_wave == 48);  // 37 warps need 1771 or fewer a warp: 1536, 48 a thread
  CHECK(kbench::nvidia_warps_per_sm(hopper, 32, 0, 256).limiter == "the target's maximum");
  // 48 KiB of static shared memory and the 1 KiB reserved: 4 blocks of 8 warps in 228 KiB.
  const kbench::kernel_occupancy shared = kbench::nvidia_warps_per_sm(hopper, 32, 49152, 256);
  CHECK(shared.waves == 32);
  CHECK(shared.limiter == "shared memory");
  CHECK(kbench::nvidia_warps_per_sm(*kbench::nvidia_rule("sm_75"), 32, 0, 256).waves == 32);
  CHECK(kbench::nvidia_warps_per_sm(*kbench::nvidia_rule("sm_86"), 32, 0, 256).waves == 48);
  CHECK(kbench::nvidia_rule("sm_90a").has_value());
  CHECK_FALSE(kbench::nvidia_rule("sm_52").has_value());
}

TEST_CASE("the cubins of a program: every entry function with its registers, stack and shared memory", "[resources]") {
  const std::vector<unsigned char> fatbin = fatbin_of(cubin());
  int cubins = 0;
  const std::vector<kbench::kernel_resources> kernels =
      kbench::detail::nv_fatbin_kernels(kbench::detail::byte_view(fatbin.data(), fatbin.size(), "test"), cubins);
  CHECK(cubins == 1);
  REQUIRE(kernels.size() == 1);  // the helper is no entry
  const kbench::kernel_resources& k = kernels.front();
  CHECK(k.target == "sm_90");
  CHECK(k.name == "_Z6kernelPf");
  CHECK(k.vgprs == 40);
  CHECK(k.sgprs == -1);
  CHECK(k.vgpr_spills == -1);
  CHECK(k.scratch_bytes == 32);  // the stack with its callees, beyond its own frame
  CHECK(k.lds_bytes == 4096);    // the reserved 1 KiB left out, as ptxas and the runtime do
  CHECK(k.max_workgroup_size == 256);
  CHECK(k.wavefront_size == 32);
  const std::string table = kbench::detail::format_resources(kernels);
  CHECK_THAT(table, contains("warps"));
  CHECK_THAT(table, contains("kernel(float*)"));
  const auto json = kbench::detail::resources_json("p", kernels);
  CHECK(json["kernels"][0]["registers"] == 40);
  CHECK(json["kernels"][0]["warps_per_sm"] == 51);  // 40 registers: 1280 a warp
}

TEST_CASE("a fat binary the reader does not know is an error, never an empty list", "[resources]") {
  auto read = [](const std::vector<unsigned char>& bytes, int& cubins) {
    return kbench::detail::nv_fatbin_kernels(kbench::detail::byte_view(bytes.data(), bytes.size(), "test"), cubins);
  };
  int cubins = 0;
  std::vector<unsigned char> compressed = cubin();
  compressed[1] = 'Z';  // no ELF magic where the cubin begins
  CHECK_THROWS_WITH(read(fatbin_of(compressed), cubins), contains("is compressed"));
  std::vector<unsigned char> other = fatbin_of(cubin());
  put<std::uint32_t>(other, 0, 0x12345678);
  CHECK_THROWS_WITH(read(other, cubins), contains("no magic 0xBA55ED50"));
  std::vector<unsigned char> cut = fatbin_of(cubin());
  cut.resize(cut.size() - 40);
  CHECK_THROWS_WITH(read(cut, cubins), contains("past"));
  std::vector<unsigned char> empty_entry = fatbin_of(cubin());
  put<std::uint32_t>(empty_entry, 16 + 4, 0);  // an entry header of 0 bytes would never advance
  CHECK_THROWS_WITH(read(empty_entry, cubins), contains("entry whose header is 0 bytes"));
}

TEST_CASE("resource bounds on NVIDIA: registers, the stack for spills, warps per SM", "[resources]") {
  kbench::kernel_resources k;
  k.target = "sm_90";
  k.name = "_Z6kernelPf";
  k.vgprs = 128;
  k.sgprs = k.vgpr_spills = k.sgpr_spills = -1;
  k.scratch_bytes = 64;
  k.wavefront_size = 32;
  const std::vector<kbench::kernel_resources> kernels{k};
  auto check = [&](const kbench::resource_bound& b) { return kbench::check_resource_bound("c/n=1", b, kernels); };
  kbench::resource_bound b;
  b.kernels = "kernel(";
  const std::vector<std::string> registers = check(kbench::resource_bound(b).vgprs_at_most(96));
  REQUIRE(registers.size() == 1);
  CHECK(registers.front() == "c/n=1: kernel(float*) on sm_90: 128 registers, bound at most 96");
  const std::vector<std::string> spills = check(kbench::resource_bound(b).spills_none());
  REQUIRE(spills.size() == 1);
  CHECK_THAT(spills.front(), contains("64 bytes of stack a thread (a cubin does not tell spills from local arrays), bound no spills"));
  const std::vector<std::string> warps = check(kbench::resource_bound(b).warps_at_least(24));
  REQUIRE(warps.size() == 1);
  CHECK_THAT(warps.front(), contains("16 warps per SM, limited by registers (128 registers; 120 registers give one more), "
                                     "bound at least 24"));
  CHECK(check(kbench::resource_bound(b).waves_at_least(10)).empty());  // waves per SIMD bound AMD targets only
  kbench::resource_bound on_amd = b;
  on_amd.target = "gfx90a";
  CHECK(check(kbench::resource_bound(on_amd).vgprs_at_most(8)).empty());
  CHECK_THROWS_WITH(kbench::resource_bound(b).warps_at_least(65), contains("1 to 64 warps"));
}

TEST_CASE("resources lists the program's kernels first, then kbench's own under a line of their own", "[resources]") {
  kbench::kernel_resources own, user;
  own.target = user.target = "gfx90a";
  own.name = "_ZN6kbench6detail4fillEv";                       // kbench::detail::fill()
  user.name = "_ZN5quant6kernelIN6kbench8fp8_e4m3EEEvv";      // quant::kernel<kbench::fp8_e4m3>(): the program's
  const std::string table = kbench::detail::format_resources({own, user});
  const std::size_t mine = table.find("quant::kernel"), line = table.find("kbench's own kernels"),
                    theirs = table.find("kbench::detail::fill");
  REQUIRE(mine != std::string::npos);
  REQUIRE(line != std::string::npos);
  REQUIRE(theirs != std::string::npos);
  CHECK(mine < line);
  CHECK(line < theirs);
}

TEST_CASE("a code object file: every kernel of every target, whatever its container", "[resources]") {
  for (const std::uint8_t abi : {std::uint8_t{7}, std::uint8_t{8}}) {
    const temporary_file cubin_file("raw.cubin", raw_cubin(abi));
    const std::vector<kbench::kernel_resources> kernels = kbench::read_code_object_file(cubin_file.path());
    REQUIRE(kernels.size() == 1);
    CHECK(kernels.front().target == "sm_90");  // from the ELF flags, either ABI
    CHECK(kernels.front().vgprs == 40);
  }
  const temporary_file fatbin_file("k.fatbin", fatbin_of(cubin()));  // nvcc -fatbin writes the fat binary alone
  const std::vector<kbench::kernel_resources> fat = kbench::read_code_object_file(fatbin_file.path());
  REQUIRE(fat.size() == 1);
  CHECK(fat.front().target == "sm_90");
  CHECK(fat.front().name == "_Z6kernelPf");
  const temporary_file bundle_file("k.co", bundle("gfx906", elf_with_note("AMDGPU", 32, metadata("amdgcn-amd-amdhsa--gfx906"))));
  const std::vector<kbench::kernel_resources> bundled = kbench::read_code_object_file(bundle_file.path());
  REQUIRE(bundled.size() == 1);
  CHECK(bundled.front().target == "gfx906");
  CHECK(bundled.front().vgprs == 101);
  const temporary_file hsaco("k.hsaco", raw_amdgpu_object("amdgcn-amd-amdhsa--gfx90a:xnack-"));
  const std::vector<kbench::kernel_resources> raw = kbench::read_code_object_file(hsaco.path());
  REQUIRE(raw.size() == 1);
  CHECK(raw.front().target == "gfx90a:xnack-");  // as the offload bundles name it
  CHECK(raw.front().name == "scale_kernel");
  CHECK(raw.front().vgprs == 9);
  CHECK(raw.front().sgprs == 19);
}

TEST_CASE("a kernel's parameters from an AMD code object's metadata, for the check of a launch by name", "[resources]") {
  const temporary_file hsaco("args.hsaco", raw_amdgpu_object("amdgcn-amd-amdhsa--gfx90a:xnack-"));
  namespace d = kbench::detail;
  // The device's target with its features (gcnArchName) finds the file's, whatever features either names.
  const std::optional<std::vector<d::argument_slot>> found = d::recorded_arguments(hsaco.path(), "scale_kernel", "gfx90a:sramecc+:xnack-");
  REQUIRE(found);
  CHECK(*found == std::vector<d::argument_slot>{{0, 8}, {8, 8}, {16, 4}});  // the hidden argument left out
  CHECK_FALSE(d::recorded_arguments(hsaco.path(), "scale_kernel", "gfx942"));  // no code for that target
  CHECK_FALSE(d::recorded_arguments(hsaco.path(), "other_kernel", "gfx90a"));
  CHECK_FALSE(d::recorded_arguments("kbench_resources_test_absent.co", "scale_kernel", "gfx90a"));
  // A launch that gives (float*, float*, double) is refused before it runs.
  const d::argument_slot given[] = {{0, 8}, {8, 8}, {16, 8}};
  CHECK_THROWS_WITH(d::check_argument_layout("scale_kernel", hsaco.path(), given, 3, *found),
                    contains("argument 2 is 8 bytes at 16, the kernel's 4 at 16"));
}

TEST_CASE("a shared library a case opens: the device code it carries, or none without an error", "[resources]") {
  auto host_library = [](std::vector<elf_part> parts) {
    std::vector<unsigned char> elf = elf_of(parts);
    put<std::uint16_t>(elf, 0x10, 3);   // ET_DYN
    put<std::uint16_t>(elf, 0x12, 62);  // x86-64
    return elf;
  };
  const temporary_file carrying("libcarrying.so", host_library({{".text", 1, {0x90}}, {".nv_fatbin", 1, fatbin_of(cubin())}}));
  const std::vector<kbench::kernel_resources> kernels = kbench::read_code_object_file(carrying.path());
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].name == "_Z6kernelPf");
  CHECK(kernels[0].target == "sm_90");
  CHECK(kernels[0].vgprs == 40);  // NVIDIA's registers
  const temporary_file launcher_only("liblauncher.so", host_library({{".text", 1, {0x90}}}));
  CHECK(kbench::read_code_object_file(launcher_only.path()).empty());
}

TEST_CASE("a code object file the reader does not know is an error naming it, never an empty list", "[resources]") {
  auto fails = [](const std::string& name, const std::vector<unsigned char>& bytes) {
    const temporary_file file(name, bytes);
    try {
      (void)kbench::read_code_object_file(file.path());
    } catch (const kbench::error& e) {
      const std::string what = e.what();
      CHECK(what.rfind(file.path() + ": ", 0) == 0);  // the file's path first, once
      CHECK(what.find(file.path(), 1) == std::string::npos);
      return what;
    }
    FAIL("no error");
    return std::string();
  };
  const std::string ptx = "//\n// Generated by NVIDIA NVVM Compiler\n.version 9.0\n.target sm_90\n.address_size 64\n";
  CHECK_THAT(fails("k.ptx", {ptx.begin(), ptx.end()}), contains("PTX (compiled when loaded)"));
  const std::string text = "__global__ void k() {}\n";
  CHECK_THAT(fails("k.cu", {text.begin(), text.end()}), contains("not a code object kbench can read"));
  std::vector<unsigned char> x86 = cubin();
  put<std::uint16_t>(x86, 0x12, 62);
  CHECK_THAT(fails("k.o", x86), contains("an ELF file for machine 62, neither an NVIDIA cubin (190)"));
  CHECK_THAT(fails("untargeted.hsaco", raw_amdgpu_object("")), contains("names no target (amdhsa.target"));
  CHECK_THAT(fails("compressed.co", {'C', 'C', 'O', 'B', 1, 0, 0, 0}), contains("compressed offload bundle"));
  std::vector<unsigned char> cut = raw_amdgpu_object("amdgcn-amd-amdhsa--gfx90a");
  cut.resize(cut.size() - 100);
  CHECK_THAT(fails("cut.hsaco", cut), contains("past"));
  std::vector<unsigned char> ptx_only = fatbin_of(cubin());
  put<std::uint16_t>(ptx_only, 16 + 64 + 24, 1);  // the cubin entry made a second PTX one
  CHECK_THAT(fails("ptx.fatbin", ptx_only), contains("a fat binary of PTX only"));
  std::vector<unsigned char> no_entry = raw_cubin(8);
  const std::size_t table = no_entry.size() - 9 * 64;  // the section headers come last: 9 of them
  std::uint64_t symbols = 0;
  std::memcpy(&symbols, no_entry.data() + table + 2 * 64 + 0x18, sizeof symbols);  // .symtab's offset
  no_entry[symbols + 24 + 5] = 0;  // the kernel no longer an entry
  CHECK_THAT(fails("no_entry.cubin", no_entry), contains("holds no kernel"));
  CHECK_THROWS_WITH(kbench::read_code_object_file("kbench_resources_test_absent.co"),
                    contains("cannot read kbench_resources_test_absent.co"));
}

TEST_CASE("the code object files the cases load: each once, in the order declared", "[resources]") {
  kbench::detail::code_object_files& files = kbench::detail::code_object_files::instance();
  const std::size_t before = files.paths().size();
  files.add("kbench_resources_test_a.co");
  files.add("kbench_resources_test_b.co");
  files.add("kbench_resources_test_a.co");
  const std::vector<std::string> paths = files.paths();
  REQUIRE(paths.size() == before + 2);
  CHECK(paths[before] == "kbench_resources_test_a.co");
  CHECK(paths[before + 1] == "kbench_resources_test_b.co");
}

TEST_CASE("a code object file's kernels in the JSON listing and in the census's build figures", "[resources]") {
  kbench::kernel_resources loaded;
  loaded.target = "sm_90";
  loaded.name = "scale_kernel";
  loaded.vgprs = 24;
  loaded.scratch_bytes = 0;
  loaded.wavefront_size = 32;
  kbench::built_listing built;
  built.code_objects.push_back({"scale.fatbin", {loaded}, ""});
  built.code_objects.push_back({"other.ptx", {}, "other.ptx: PTX (compiled when loaded)"});
  const auto json = kbench::detail::resources_json("p", {}, built.code_objects);
  REQUIRE(json["kernels"].size() == 1);
  CHECK(json["kernels"][0]["code_object"] == "scale.fatbin");
  CHECK(json["kernels"][0]["warps_per_sm"] == 64);
  CHECK(json["code_object_problems"][0]["code_object"] == "other.ptx");
  kbench::case_census measured;
  measured.optimized.captured = true;
  kbench::census_kernel& k = measured.optimized.kernels.emplace_back();
  k.name = k.symbol = "scale_kernel";
  k.registers = 24;
  k.static_shared_bytes = 0;
  const kbench::case_census joined = kbench::assemble_census(measured, {}, &built, "sm_90");
  CHECK(joined.optimized.kernels[0].built_registers == 24);
  CHECK(joined.optimized.kernels[0].built_local_bytes == 0);
  CHECK(joined.findings.empty());  // every kernel joined: an unreadable file is no matter here
  measured.optimized.kernels.push_back(k);
  measured.optimized.kernels.back().symbol = "unknown_kernel";
  const kbench::case_census unjoined = kbench::assemble_census(measured, {}, &built, "sm_90");
  REQUIRE(unjoined.findings.size() == 1);
  CHECK_THAT(unjoined.findings[0].text, contains("no figures of a code object a case loads: other.ptx: PTX"));
  CHECK(kbench::assemble_census(measured, {}, &built, "sm_80").optimized.kernels[0].built_registers == -1);
}

}  // namespace unit_resources_test
