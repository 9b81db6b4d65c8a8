// kbench/engines/elf_reader.hpp: bounded little-endian reads of a file's bytes, and the sections of an ELF64
// file: what the readers of device code (code_objects.hpp: a program's executable, an AMDGPU code object, an
// NVIDIA cubin) stand on. A read past the end is an error naming the file, never a crash. HIP-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../contract/error.hpp"

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
  std::uint32_t link = 0;       // a symbol table's strings
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
    s.link = file.at<std::uint32_t>(at + 0x28);
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

// A NUL-terminated string at `offset` of a string table.
inline std::string elf_string(const byte_view& strings, std::size_t offset) {
  std::size_t end = offset;
  while (end < strings.size() && strings.data()[end] != 0) ++end;
  return std::string(strings.text(offset, end - offset));
}

}  // namespace detail
}  // namespace kbench
