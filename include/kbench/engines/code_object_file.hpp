// kbench/engines/code_object_file.hpp: every kernel of a code object FILE, the kind a case loads at run time
// (contract/code_object.hpp), with its resources per target, read without a GPU by code_objects.hpp's
// readers, whatever the container:
//   a clang offload bundle ("__CLANG_OFFLOAD_BUNDLE__": hipcc --genco), its entries for AMD GPUs;
//   an AMDGPU ELF code object (e_machine EM_AMDGPU, 224: clang --no-gpu-bundle-output, Triton's hsaco),
//     its target from its metadata's amdhsa.target;
//   an NVIDIA fat binary (magic 0xBA55ED50: nvcc -fatbin), its cubins;
//   an NVIDIA cubin (e_machine EM_CUDA, 190: nvcc -cubin, Triton's cubin), its sm_XY from the ELF flags;
//   a host shared library (contract/shared_library.hpp), the device code it carries as a program does (its
//     .hip_fatbin or .nv_fatbin section), or none where it carries none.
// Anything else (PTX, compiled when loaded; a compressed container) is an error naming the file, never an
// empty list. HIP-free; opt-in, as code_objects.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../contract/error.hpp"
#include "../results/kernel_resources.hpp"
#include "code_objects.hpp"

namespace kbench {
namespace detail {

// The sm_XY of a cubin, from its ELF flags: the SM in bits 8-15 from ELF ABI version 8 on (CUDA 13), in
// bits 0-7 before (LLVM's BinaryFormat/ELF.h: ELFABIVERSION_CUDA_V1 = 7 and EF_CUDA_SM, ELFABIVERSION_CUDA_V2
// = 8 and EF_CUDA_SM_MASK).
inline std::string cubin_target(const byte_view& cubin) {
  const std::uint32_t flags = cubin.at<std::uint32_t>(0x30);
  const unsigned sm = cubin.at<std::uint8_t>(8) >= 8 ? (flags >> 8) & 0xffu : flags & 0xffu;
  return "sm_" + std::to_string(sm);
}

// The kernels of one AMDGPU ELF code object, its target as the offload bundles name it ("gfx90a", with the
// features it was built for: "gfx90a:xnack-"), from its metadata's amdhsa.target (code objects v4 and later).
inline std::vector<kernel_resources> amdgpu_object_kernels(const byte_view& object) {
  const nlohmann::json meta = code_object_metadata(object, object.what());
  const auto target = meta.find("amdhsa.target");
  const std::string triple = target != meta.end() && target->is_string() ? target->get<std::string>() : "";
  const std::size_t gfx = triple.find("--");
  if (gfx == std::string::npos) {
    throw error(object.what() + ": an AMDGPU code object whose metadata names no target (amdhsa.target: code "
                "objects v4 and later)");
  }
  return metadata_kernels(meta, triple.substr(gfx + 2));
}

// Whether `file` is an ELF shared object for the host (a library, not a GPU's code object).
inline bool host_shared_object(const byte_view& file) {
  constexpr std::uint16_t em_cuda = 190, em_amdgpu = 224, et_dyn = 3;
  if (file.size() < 20 || std::memcmp(file.data(), "\x7f" "ELF", 4) != 0) return false;
  const std::uint16_t machine = file.at<std::uint16_t>(0x12);
  return file.at<std::uint16_t>(0x10) == et_dyn && machine != em_cuda && machine != em_amdgpu;
}

inline std::vector<kernel_resources> code_object_file_kernels(const byte_view& file) {
  constexpr std::uint16_t em_cuda = 190, em_amdgpu = 224;
  constexpr std::uint32_t nv_fatbin_magic = 0xBA55ED50;
  const std::string_view start(reinterpret_cast<const char*>(file.data()), std::min<std::size_t>(file.size(), 1024));
  if (start.substr(0, bundle_magic.size()) == bundle_magic || start.substr(0, compressed_bundle_magic.size()) == compressed_bundle_magic) {
    int bundles = 0;
    return fatbin_kernels(file, bundles);
  }
  if (file.size() >= 4 && file.at<std::uint32_t>(0) == nv_fatbin_magic) {
    int cubins = 0;
    std::vector<kernel_resources> kernels = nv_fatbin_kernels(file, cubins);
    if (cubins == 0) {
      throw error(file.what() + ": a fat binary of PTX only (compiled when loaded), no cubin whose resources kbench "
                  "can read: build it for real architectures (sm_90, not compute_90)");
    }
    return kernels;
  }
  if (file.size() >= 20 && std::memcmp(file.data(), "\x7f" "ELF", 4) == 0) {
    const std::uint16_t machine = file.at<std::uint16_t>(0x12);
    if (machine == em_cuda) return cubin_kernels(file, cubin_target(file));
    if (machine == em_amdgpu) return amdgpu_object_kernels(file);
    // A host file: a shared library a case opens (contract/shared_library.hpp), whose device code is read as
    // a program's; one with none of its own (a launcher of kernels that live elsewhere) lists none.
    if (std::optional<std::vector<kernel_resources>> carried = host_elf_kernels(file)) return std::move(*carried);
    if (host_shared_object(file)) return {};
    throw error(file.what() + ": an ELF file for machine " + std::to_string(machine) + ", neither an NVIDIA cubin (" +
                std::to_string(em_cuda) + ") nor an AMDGPU code object (" + std::to_string(em_amdgpu) + ")");
  }
  if (start.find("\n.version ") != std::string_view::npos && start.find("\n.target ") != std::string_view::npos) {
    throw error(file.what() + ": PTX (compiled when loaded), whose resources only the device's compiler knows: "
                "load a cubin or a fat binary with one to list them");
  }
  throw error(file.what() + ": not a code object kbench can read (an offload bundle, an AMDGPU code object, an NVIDIA "
              "fat binary or a cubin)");
}

}  // namespace detail

// Every kernel of every target in the code object file at `path` (or the device code a shared library
// carries). A file kbench cannot read, or a code object that holds no kernel, is an error that names it.
inline std::vector<kernel_resources> read_code_object_file(const std::string& path) {
  const std::vector<unsigned char> bytes = detail::file_bytes(path);
  const detail::byte_view file(bytes.data(), bytes.size(), path);
  std::vector<kernel_resources> kernels;
  try {
    kernels = detail::code_object_file_kernels(file);
  } catch (const error& e) {
    const std::string what = e.what();
    if (what.rfind(path, 0) == 0) throw;
    throw error(path + ": " + what);
  }
  if (kernels.empty() && !detail::host_shared_object(file)) {
    throw error(path + ": holds no kernel kbench can read (no code object for a GPU in it?)");
  }
  return kernels;
}

namespace detail {

// The explicit parameters the code object file at `path` records for kernel `kernel` on the device target
// `target` (its features after ':' aside), for contract/code_object.hpp's check of a launch (its
// file_argument_reader on AMD). None where the file cannot be read, holds no such kernel for the target,
// or records no parameters: the launch then goes unchecked, as before.
inline std::optional<std::vector<argument_slot>> recorded_arguments(const std::string& path, const std::string& kernel,
                                                                   const std::string& target) {
  std::vector<kernel_resources> kernels;
  try {
    kernels = read_code_object_file(path);
  } catch (const error&) {
    return std::nullopt;  // the load reports a file it cannot use
  }
  auto base = [](const std::string& t) { return t.substr(0, t.find(':')); };
  for (const kernel_resources& k : kernels) {
    if (k.name == kernel && base(k.target) == base(target) && k.arguments) return k.arguments;
  }
  return std::nullopt;
}

}  // namespace detail
}  // namespace kbench
