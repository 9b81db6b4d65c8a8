// kbench/engines/code_objects.hpp: every AMD kernel's resources, read from the code objects a program
// carries, without a GPU and without ROCm's tools. HIP-free; opt-in (it pulls in nlohmann/json, whose
// MessagePack reader decodes the metadata), included by main.hpp only.
//
// Where they are: hipcc puts each translation unit's device code in a clang offload bundle
// ("__CLANG_OFFLOAD_BUNDLE__", then the entries: offset, size and a target such as
// "hipv4-amdgcn-amd-amdhsa--gfx90a"), all in the executable's .hip_fatbin section. Each entry is an AMDGPU
// ELF code object whose note "AMDGPU" of type 32 (NT_AMDGPU_METADATA, code objects v3 and later) holds the
// MessagePack metadata: per kernel .name, .vgpr_count (on gfx90a and later the unified total, AGPRs
// included), .agpr_count, .sgpr_count, the spill counts, .group_segment_fixed_size (LDS),
// .private_segment_fixed_size (scratch), .wavefront_size and .max_flat_workgroup_size. A container this
// reader does not know (a compressed bundle, another metadata format) is an error, never an empty list.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "../contract/error.hpp"
#include "../results/kernel_resources.hpp"

namespace kbench {

namespace detail {

// Little-endian fixed-width reads within bounds; a read past the end is a malformed container.
class byte_view {
 public:
  byte_view(const unsigned char* data, std::size_t size, std::string what)
      : data_(data), size_(size), what_(std::move(what)) {}
  template <class T>
  [[nodiscard]] T at(std::size_t offset) const {
    if (offset > size_ || size_ - offset < sizeof(T)) throw error(what_ + ": truncated (a read past its end)");
    T value;
    std::memcpy(&value, data_ + offset, sizeof(T));
    return value;
  }
  [[nodiscard]] byte_view sub(std::size_t offset, std::size_t size, const std::string& what) const {
    if (offset > size_ || size_ - offset < size) throw error(what_ + ": " + what + " lies past its end");
    return byte_view(data_ + offset, size, what);
  }
  [[nodiscard]] std::string_view text(std::size_t offset, std::size_t size) const {
    (void)sub(offset, size, "a string");
    return {reinterpret_cast<const char*>(data_ + offset), size};
  }
  [[nodiscard]] const unsigned char* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const std::string& what() const { return what_; }

 private:
  const unsigned char* data_;
  std::size_t size_;
  std::string what_;
};

struct elf_section {
  std::string name;
  std::uint32_t type = 0;
  std::size_t offset = 0, size = 0;
  std::size_t name_offset = 0;  // in the section names
};

// The sections of a little-endian ELF64 file (the host executable, an AMDGPU code object).
inline std::vector<elf_section> elf_sections(const byte_view& file) {
  if (file.size() < 64 || std::memcmp(file.data(), "\x7f" "ELF", 4) != 0) throw error(file.what() + ": not an ELF file");
  if (file.at<std::uint8_t>(4) != 2 || file.at<std::uint8_t>(5) != 1) {
    throw error(file.what() + ": not a little-endian 64-bit ELF file");
  }
  const auto table = static_cast<std::size_t>(file.at<std::uint64_t>(0x28));
  const std::size_t entry = file.at<std::uint16_t>(0x3A), count = file.at<std::uint16_t>(0x3C);
  const std::size_t names_index = file.at<std::uint16_t>(0x3E);
  if (entry < 64 || names_index >= count) throw error(file.what() + ": malformed section header table");
  auto header = [&](std::size_t i) {
    elf_section s;
    const std::size_t at = table + i * entry;
    s.type = file.at<std::uint32_t>(at + 4);
    s.offset = static_cast<std::size_t>(file.at<std::uint64_t>(at + 0x18));
    s.size = static_cast<std::size_t>(file.at<std::uint64_t>(at + 0x20));
    s.name_offset = file.at<std::uint32_t>(at);
    return s;
  };
  const elf_section names = header(names_index);
  const byte_view strings = file.sub(names.offset, names.size, "the section names");
  std::vector<elf_section> sections;
  for (std::size_t i = 0; i < count; ++i) {
    elf_section s = header(i);
    std::size_t end = s.name_offset;
    while (end < strings.size() && strings.data()[end] != 0) ++end;
    s.name = std::string(strings.text(s.name_offset, end - s.name_offset));
    sections.push_back(s);
  }
  return sections;
}

inline int metadata_int(const nlohmann::json& kernel, const char* key, int absent) {
  const auto it = kernel.find(key);
  return it != kernel.end() && it->is_number_integer() ? it->get<int>() : absent;
}

// The kernels of one AMDGPU code object, from its metadata note.
inline std::vector<kernel_resources> code_object_kernels(const byte_view& object, const std::string& target) {
  constexpr std::uint32_t note_type = 7, nt_amdgpu_metadata = 32;
  for (const elf_section& s : elf_sections(object)) {
    if (s.type != note_type) continue;
    const byte_view notes = object.sub(s.offset, s.size, "a note section");
    for (std::size_t at = 0; at + 12 <= notes.size();) {
      const std::size_t name_size = notes.at<std::uint32_t>(at), desc_size = notes.at<std::uint32_t>(at + 4);
      const std::uint32_t type = notes.at<std::uint32_t>(at + 8);
      const std::size_t desc = at + 12 + (name_size + 3) / 4 * 4;
      const std::string_view name = notes.text(at + 12, name_size);
      if (type == nt_amdgpu_metadata && name.substr(0, 6) == "AMDGPU") {
        const byte_view packed = notes.sub(desc, desc_size, "the metadata");
        const nlohmann::json meta = nlohmann::json::from_msgpack(packed.data(), packed.data() + packed.size());
        std::vector<kernel_resources> kernels;
        for (const nlohmann::json& k : meta.at("amdhsa.kernels")) {
          kernel_resources r;
          r.target = target;
          r.name = k.at(".name").get<std::string>();
          r.vgprs = metadata_int(k, ".vgpr_count", 0);
          r.agprs = metadata_int(k, ".agpr_count", -1);
          r.sgprs = metadata_int(k, ".sgpr_count", 0);
          r.vgpr_spills = metadata_int(k, ".vgpr_spill_count", 0);
          r.sgpr_spills = metadata_int(k, ".sgpr_spill_count", 0);
          r.lds_bytes = metadata_int(k, ".group_segment_fixed_size", 0);
          r.scratch_bytes = metadata_int(k, ".private_segment_fixed_size", 0);
          r.dynamic_stack = k.value(".uses_dynamic_stack", false);
          r.wavefront_size = metadata_int(k, ".wavefront_size", 64);
          r.max_workgroup_size = metadata_int(k, ".max_flat_workgroup_size", 1024);
          kernels.push_back(std::move(r));
        }
        return kernels;
      }
      at = desc + (desc_size + 3) / 4 * 4;
    }
  }
  throw error("the code object for " + target + " has no MessagePack metadata note (a code object older than v3?)");
}

inline constexpr std::string_view bundle_magic = "__CLANG_OFFLOAD_BUNDLE__";
inline constexpr std::string_view compressed_bundle_magic = "CCOB";

// Every bundle in a .hip_fatbin section, each entry for an AMD GPU read. `bundles` counts them.
inline std::vector<kernel_resources> fatbin_kernels(const byte_view& fatbin, int& bundles) {
  std::vector<kernel_resources> kernels;
  const std::string_view all(reinterpret_cast<const char*>(fatbin.data()), fatbin.size());
  if (all.substr(0, compressed_bundle_magic.size()) == compressed_bundle_magic) {
    throw error("the device code is in a compressed offload bundle, which kbench cannot read (built with "
                "--offload-compress?): build without it to list the resources");
  }
  for (std::size_t at = all.find(bundle_magic); at != std::string_view::npos; at = all.find(bundle_magic, at + 1)) {
    ++bundles;
    const std::size_t count = fatbin.at<std::uint64_t>(at + bundle_magic.size());
    std::size_t entry = at + bundle_magic.size() + 8;
    for (std::size_t i = 0; i < count; ++i) {
      const auto offset = static_cast<std::size_t>(fatbin.at<std::uint64_t>(entry));
      const auto size = static_cast<std::size_t>(fatbin.at<std::uint64_t>(entry + 8));
      const auto id_size = static_cast<std::size_t>(fatbin.at<std::uint64_t>(entry + 16));
      const std::string id(fatbin.text(entry + 24, id_size));
      entry += 24 + id_size;
      const std::size_t gfx = id.find("--");
      if (size == 0 || id.find("amdgcn") == std::string::npos || gfx == std::string::npos) continue;
      const std::string target = id.substr(gfx + 2);
      const byte_view object = fatbin.sub(at + offset, size, "the code object for " + target);
      for (kernel_resources& k : code_object_kernels(object, target)) {
        // A template instantiated in several translation units is one kernel to the loader.
        const bool seen = std::any_of(kernels.begin(), kernels.end(), [&](const kernel_resources& other) {
          return other.target == k.target && other.name == k.name && other.vgprs == k.vgprs && other.sgprs == k.sgprs &&
                 other.lds_bytes == k.lds_bytes && other.scratch_bytes == k.scratch_bytes;
        });
        if (!seen) kernels.push_back(std::move(k));
      }
    }
  }
  return kernels;
}

}  // namespace detail

// Every AMD kernel of every target in the executable at `path` (a program reads its own:
// /proc/self/exe). An executable without AMD device code is an error that says so.
inline std::vector<kernel_resources> read_kernel_resources(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error("cannot read " + path);
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const detail::byte_view file(bytes.data(), bytes.size(), path);
  for (const detail::elf_section& s : detail::elf_sections(file)) {
    if (s.name != ".hip_fatbin") continue;
    int bundles = 0;
    std::vector<kernel_resources> kernels = detail::fatbin_kernels(file.sub(s.offset, s.size, ".hip_fatbin"), bundles);
    if (bundles == 0) throw error(path + ": its .hip_fatbin section holds no offload bundle kbench can read");
    return kernels;
  }
  throw error(path + " has no .hip_fatbin section: no AMD device code (kbench does not read NVIDIA builds yet; "
              "`nvcc -Xptxas -v` prints their registers, spills and shared memory at build time)");
}

}  // namespace kbench
