// kbench/engines/code_objects.hpp: every kernel's resources, read from the device code a program carries,
// without a GPU and without the platform's tools. HIP-free; opt-in (it pulls in nlohmann/json, whose
// MessagePack reader decodes AMD's metadata), included by main.hpp only.
//
// AMD: hipcc puts each translation unit's device code in a clang offload bundle
// ("__CLANG_OFFLOAD_BUNDLE__", then the entries: offset, size and a target such as
// "hipv4-amdgcn-amd-amdhsa--gfx90a"), all in the executable's .hip_fatbin section. Each entry is an AMDGPU
// ELF code object whose note "AMDGPU" of type 32 (NT_AMDGPU_METADATA, code objects v3 and later) holds the
// MessagePack metadata: per kernel .name, .vgpr_count (on gfx90a and later the unified total, AGPRs
// included), .agpr_count, .sgpr_count, the spill counts, .group_segment_fixed_size (LDS),
// .private_segment_fixed_size (scratch), .wavefront_size and .max_flat_workgroup_size.
// NVIDIA: nvcc puts each translation unit's fat binary (magic 0xBA55ED50; entries of PTX or of a cubin for
// one sm_XY) in the .nv_fatbin section. A cubin is an ELF file: its kernels are the functions marked as
// entries (STO_CUDA_ENTRY), their registers and stack in the .nv.info section's attributes (REGCOUNT 0x2f,
// FRAME_SIZE 0x11, MIN_STACK_SIZE 0x12: symbol, value), their static shared memory the size of
// .nv.shared.<kernel>, their launch bound in .nv.info.<kernel> (MAX_THREADS 0x05). These agree with
// `nvcc --resource-usage` (tests/harness/resources_check.py), but for shared memory on sm_90, whose cubins fold the
// 1 KiB that the architecture reserves in each block's shared memory into every kernel's section (marked by
// a .nv.shared.reserved section): kbench leaves it out, as ptxas and the runtime do. A cubin does not
// record spills apart from the stack.
// A container this reader does not know (a compressed bundle or cubin, another metadata format) is an
// error, never an empty list.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "../contract/error.hpp"
#include "../results/kernel_resources.hpp"
#include "elf_reader.hpp"

namespace kbench {

namespace detail {

inline int metadata_int(const nlohmann::json& kernel, const char* key, int absent) {
  const auto it = kernel.find(key);
  return it != kernel.end() && it->is_number_integer() ? it->get<int>() : absent;
}

// The MessagePack metadata of one AMDGPU code object (`what` names it in errors), from its note.
inline nlohmann::json code_object_metadata(const byte_view& object, const std::string& what) {
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
        return nlohmann::json::from_msgpack(packed.data(), packed.data() + packed.size());
      }
      at = desc + (desc_size + 3) / 4 * 4;
    }
  }
  throw error(what + " has no MessagePack metadata note (a code object older than v3?)");
}

// A kernel's explicit parameters from its metadata's .args (code objects v3 and later), in order: the
// hidden arguments the runtime appends (.value_kind "hidden_...") are no launch's to give. None where the
// metadata records no .args.
inline std::optional<std::vector<argument_slot>> metadata_arguments(const nlohmann::json& kernel) {
  const auto args = kernel.find(".args");
  if (args == kernel.end() || !args->is_array()) return std::nullopt;
  std::vector<argument_slot> slots;
  for (const nlohmann::json& a : *args) {
    if (a.value(".value_kind", std::string()).rfind("hidden_", 0) == 0) continue;
    slots.push_back({a.value(".offset", std::size_t{0}), a.value(".size", std::size_t{0})});
  }
  return slots;
}

// The kernels a code object's metadata describes, for `target`.
inline std::vector<kernel_resources> metadata_kernels(const nlohmann::json& meta, const std::string& target) {
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
    r.arguments = metadata_arguments(k);
    kernels.push_back(std::move(r));
  }
  return kernels;
}

// The kernels of one AMDGPU code object for `target`, from its metadata note.
inline std::vector<kernel_resources> code_object_kernels(const byte_view& object, const std::string& target) {
  return metadata_kernels(code_object_metadata(object, "the code object for " + target), target);
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


// ---- NVIDIA ----------------------------------------------------------------------------------------

// The attributes of a .nv.info section (format, attribute, size; then the payload), as (attribute, payload)
// pairs; those whose format keeps a value in the size field (all but EIFMT_SVAL, 0x04) carry none.
inline std::vector<std::pair<std::uint8_t, byte_view>> nv_info_attributes(const byte_view& info) {
  constexpr std::uint8_t value_with_payload = 0x04;
  std::vector<std::pair<std::uint8_t, byte_view>> found;
  for (std::size_t at = 0; at + 4 <= info.size();) {
    const auto format = info.at<std::uint8_t>(at), attribute = info.at<std::uint8_t>(at + 1);
    const std::size_t size = info.at<std::uint16_t>(at + 2);
    if (format != value_with_payload) {
      at += 4;
      continue;
    }
    found.emplace_back(attribute, info.sub(at + 4, size, "an attribute of " + info.what()));
    at += 4 + size;
  }
  return found;
}

// The kernels of one cubin for `target` ("sm_90").
inline std::vector<kernel_resources> cubin_kernels(const byte_view& cubin, const std::string& target) {
  constexpr std::uint32_t symbol_table = 2;
  constexpr std::uint8_t function = 2, cuda_entry = 0x10;
  constexpr std::uint8_t regcount = 0x2f, frame_size = 0x11, min_stack_size = 0x12, max_threads = 0x05;
  constexpr long long reserved_shared = 1024;  // a block's shared memory that sm_80 and later reserve
  const std::vector<elf_section> sections = elf_sections(cubin);
  auto section_named = [&](const std::string& name) -> const elf_section* {
    for (const elf_section& s : sections) {
      if (s.name == name) return &s;
    }
    return nullptr;
  };
  auto attributes = [&](const elf_section& s) { return nv_info_attributes(cubin.sub(s.offset, s.size, s.name)); };
  const bool reserves_shared = std::any_of(sections.begin(), sections.end(), [](const elf_section& s) {
    return s.name.rfind(".nv.shared.reserved", 0) == 0;
  });
  std::vector<kernel_resources> kernels;
  std::vector<std::uint32_t> symbols;  // of the kernels, by index in the symbol table
  for (const elf_section& table : sections) {
    if (table.type != symbol_table) continue;
    if (table.link >= sections.size()) throw error(cubin.what() + ": a symbol table without its strings");
    const elf_section& names = sections[table.link];
    const byte_view strings = cubin.sub(names.offset, names.size, "the symbol names");
    const byte_view entries = cubin.sub(table.offset, table.size, "the symbol table");
    for (std::size_t i = 0; (i + 1) * 24 <= entries.size(); ++i) {
      const std::size_t at = i * 24;
      if ((entries.at<std::uint8_t>(at + 4) & 0xf) != function || (entries.at<std::uint8_t>(at + 5) & cuda_entry) == 0) continue;
      kernel_resources k;
      k.target = target;
      k.name = elf_string(strings, entries.at<std::uint32_t>(at));
      k.agprs = -1;
      k.sgprs = -1;
      k.vgpr_spills = -1;
      k.sgpr_spills = -1;
      k.wavefront_size = 32;
      if (const elf_section* shared = section_named(".nv.shared." + k.name)) {
        const auto bytes = static_cast<long long>(shared->size);
        k.lds_bytes = reserves_shared && bytes >= reserved_shared ? bytes - reserved_shared : bytes;
      }
      if (const elf_section* own = section_named(".nv.info." + k.name)) {
        for (const auto& [attribute, payload] : attributes(*own)) {
          if (attribute == max_threads && payload.size() >= 12) {
            k.max_workgroup_size = static_cast<int>(payload.at<std::uint32_t>(0) * payload.at<std::uint32_t>(4) *
                                                    payload.at<std::uint32_t>(8));
          }
        }
      }
      kernels.push_back(std::move(k));
      symbols.push_back(static_cast<std::uint32_t>(i));
    }
  }
  if (const elf_section* info = section_named(".nv.info")) {
    for (const auto& [attribute, payload] : attributes(*info)) {
      if (payload.size() < 8) continue;
      const std::uint32_t symbol = payload.at<std::uint32_t>(0), value = payload.at<std::uint32_t>(4);
      const auto it = std::find(symbols.begin(), symbols.end(), symbol);
      if (it == symbols.end()) continue;
      kernel_resources& k = kernels[static_cast<std::size_t>(it - symbols.begin())];
      if (attribute == regcount) k.vgprs = static_cast<int>(value);
      // The stack a thread needs: its own frame, or with the functions it calls, whichever is larger.
      if (attribute == frame_size || attribute == min_stack_size) {
        k.scratch_bytes = std::max(k.scratch_bytes, static_cast<long long>(value));
      }
    }
  }
  return kernels;
}

// Every cubin in a .nv_fatbin section (its fat binaries one after another), each read. `cubins` counts
// them; a fat binary of PTX alone (compiled at load) has none.
inline std::vector<kernel_resources> nv_fatbin_kernels(const byte_view& section, int& cubins) {
  constexpr std::uint32_t fatbin_magic = 0xBA55ED50;
  constexpr std::uint16_t cubin_kind = 2;
  std::vector<kernel_resources> kernels;
  for (std::size_t at = 0; at + 16 <= section.size();) {
    if (section.at<std::uint32_t>(at) == 0) {  // padding between fat binaries
      at += 4;
      continue;
    }
    if (section.at<std::uint32_t>(at) != fatbin_magic) {
      throw error(section.what() + ": a fat binary kbench cannot read (no magic 0xBA55ED50 where one begins)");
    }
    const std::size_t header = section.at<std::uint16_t>(at + 6);
    const auto size = static_cast<std::size_t>(section.at<std::uint64_t>(at + 8));
    if (header < 16) throw error(section.what() + ": a fat binary whose header is " + std::to_string(header) + " bytes");
    const byte_view fatbin = section.sub(at, header + size, "a fat binary");
    for (std::size_t entry = header; entry + 64 <= fatbin.size();) {
      const std::uint16_t kind = fatbin.at<std::uint16_t>(entry);
      const std::size_t entry_header = fatbin.at<std::uint32_t>(entry + 4);
      const auto payload = static_cast<std::size_t>(fatbin.at<std::uint64_t>(entry + 8));
      const std::uint32_t sm = fatbin.at<std::uint32_t>(entry + 28);
      if (entry_header < 64) throw error(section.what() + ": a fat binary entry whose header is " + std::to_string(entry_header) + " bytes");
      if (kind == cubin_kind) {
        const std::string target = "sm_" + std::to_string(sm);
        const byte_view cubin = fatbin.sub(entry + entry_header, payload, "the cubin for " + target);
        if (cubin.size() < 4 || std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0) {
          throw error("the cubin for " + target + " is compressed (or in a format kbench does not know): build with "
                      "nvcc --no-compress (or --compress-mode=none) to list the resources");
        }
        ++cubins;
        for (kernel_resources& k : cubin_kernels(cubin, target)) {
          const bool seen = std::any_of(kernels.begin(), kernels.end(), [&](const kernel_resources& other) {
            return other.target == k.target && other.name == k.name && other.vgprs == k.vgprs &&
                   other.lds_bytes == k.lds_bytes && other.scratch_bytes == k.scratch_bytes;
          });
          if (!seen) kernels.push_back(std::move(k));
        }
      }
      entry += entry_header + payload;
    }
    at += header + size;
  }
  return kernels;
}

// The whole file, in one read.
inline std::vector<unsigned char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw error("cannot read " + path);
  const std::streamoff length = in.tellg();
  if (length < 0) throw error("cannot tell the size of " + path);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(length));
  in.seekg(0);
  if (length > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), length)) throw error("cannot read " + path);
  return bytes;
}

// Every kernel of every target in a host ELF file (a program, a shared library): AMD's from its .hip_fatbin
// section, NVIDIA's from its .nv_fatbin; none where it has neither section (no device code of its own).
inline std::optional<std::vector<kernel_resources>> host_elf_kernels(const byte_view& file) {
  for (const elf_section& s : elf_sections(file)) {
    if (s.name == ".hip_fatbin") {
      int bundles = 0;
      std::vector<kernel_resources> kernels = fatbin_kernels(file.sub(s.offset, s.size, ".hip_fatbin"), bundles);
      if (bundles == 0) throw error(file.what() + ": its .hip_fatbin section holds no offload bundle kbench can read");
      return kernels;
    }
    if (s.name == ".nv_fatbin") {
      int cubins = 0;
      std::vector<kernel_resources> kernels = nv_fatbin_kernels(file.sub(s.offset, s.size, ".nv_fatbin"), cubins);
      if (cubins == 0) {
        throw error(file.what() + ": its fat binaries hold PTX only (compiled when loaded), no cubin whose resources "
                    "kbench can read: build for real architectures (CMAKE_CUDA_ARCHITECTURES=90, not 90-virtual)");
      }
      return kernels;
    }
  }
  return std::nullopt;
}

}  // namespace detail

// Every kernel of every target in the executable at `path` (a program reads its own: /proc/self/exe). An
// executable without device code kbench can read is an error that says so.
inline std::vector<kernel_resources> read_kernel_resources(const std::string& path) {
  // One read of the whole file: an iterator per byte took 1.0 s for an 11 MB program (the runner is built
  // at -O0), inside the first census's wall time.
  const std::vector<unsigned char> bytes = detail::file_bytes(path);
  const detail::byte_view file(bytes.data(), bytes.size(), path);
  std::optional<std::vector<kernel_resources>> kernels = detail::host_elf_kernels(file);
  if (!kernels) throw error(path + " has neither a .hip_fatbin nor a .nv_fatbin section: no device code");
  return std::move(*kernels);
}

}  // namespace kbench
