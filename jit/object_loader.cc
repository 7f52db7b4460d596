#include "jit/object_loader.h"

#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include <fmt/format.h>

namespace attrib::jit {
namespace {

// The three kinds of pages a loaded object has, in the order they are laid out.
enum Region : int { kCode = 0, kConst = 1, kData = 2, kRegions = 3 };

constexpr size_t kStubSize = 16;  // jmp *0(%rip); .quad target; padding
constexpr size_t kGotEntry = 8;

size_t alignUp(size_t n, size_t a) { return a <= 1 ? n : (n + a - 1) / a * a; }

template <typename T>
bool readAt(std::string_view bytes, uint64_t offset, T* out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(out, bytes.data() + offset, sizeof(T));
  return true;
}

// A section's name, or a placeholder when the string table does not hold it.
std::string sectionName(std::string_view names, uint32_t offset) {
  if (offset >= names.size()) return "<unnamed>";
  return std::string(names.substr(offset, names.substr(offset).find('\0')));
}

}  // namespace

struct LoadedObject::Impl {
  void* base = nullptr;
  size_t size = 0;
  std::map<std::string, void*, std::less<>> exports;
  ~Impl() {
    if (base) munmap(base, size);
  }
};

LoadedObject::~LoadedObject() = default;

void* LoadedObject::symbol(std::string_view name) const {
  auto it = impl_->exports.find(name);
  return it == impl_->exports.end() ? nullptr : it->second;
}

std::unique_ptr<LoadedObject> LoadedObject::load(std::string_view bytes, const Resolver& resolve, std::string* error) {
  auto fail = [&](std::string why) {
    *error = std::move(why);
    return nullptr;
  };
  Elf64_Ehdr header;
  if (!readAt(bytes, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return fail("not an ELF object");
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_machine != EM_X86_64 || header.e_type != ET_REL) {
    return fail("not a relocatable x86-64 ELF64 object");
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0 || header.e_shstrndx >= header.e_shnum) {
    return fail("unsupported section header table");
  }
  if (header.e_shoff > bytes.size() || (bytes.size() - header.e_shoff) / sizeof(Elf64_Shdr) < header.e_shnum) {
    return fail("truncated section headers");
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i) {
    if (!readAt(bytes, header.e_shoff + i * sizeof(Elf64_Shdr), &sections[i])) return fail("truncated section headers");
  }
  auto contents = [&](const Elf64_Shdr& s, std::string_view* out) {
    if (s.sh_type == SHT_NOBITS || s.sh_offset > bytes.size() || bytes.size() - s.sh_offset < s.sh_size) return false;
    *out = bytes.substr(s.sh_offset, s.sh_size);
    return true;
  };
  std::string_view names;
  if (!contents(sections[header.e_shstrndx], &names)) return fail("truncated section names");

  // Classify every section: loaded into a region, a relocation table, the symbol table, or
  // ignored (non-allocatable notes, comments, address-significance tables).
  std::vector<int> regionOf(sections.size(), -1);
  std::vector<size_t> offsetIn(sections.size(), 0);  // within its region
  std::vector<size_t> relocations;
  int symtab = -1;
  size_t regionSize[kRegions] = {0, 0, 0};
  for (size_t i = 1; i < sections.size(); ++i) {
    const Elf64_Shdr& s = sections[i];
    std::string name = sectionName(names, s.sh_name);
    if (s.sh_flags & SHF_ALLOC) {
      if (s.sh_flags & SHF_TLS) return fail(fmt::format("section {} is thread-local", name));
      if (s.sh_type != SHT_PROGBITS && s.sh_type != SHT_NOBITS) {
        return fail(fmt::format("section {} has type {:#x} (unwind tables, constructors and notes are not loaded)", name,
                                s.sh_type));
      }
      if ((s.sh_flags & SHF_EXECINSTR) && (s.sh_flags & SHF_WRITE)) return fail(fmt::format("section {} is writable code", name));
      if (s.sh_addralign > 4096 || (s.sh_addralign & (s.sh_addralign - 1))) {
        return fail(fmt::format("section {} has alignment {}", name, s.sh_addralign));
      }
      std::string_view unused;
      if (s.sh_type == SHT_PROGBITS && !contents(s, &unused)) return fail(fmt::format("section {} is truncated", name));
      int region = (s.sh_flags & SHF_EXECINSTR) ? kCode : (s.sh_flags & SHF_WRITE) ? kData : kConst;
      regionOf[i] = region;
      offsetIn[i] = alignUp(regionSize[region], s.sh_addralign);
      regionSize[region] = offsetIn[i] + s.sh_size;
    } else if (s.sh_type == SHT_RELA) {
      relocations.push_back(i);
    } else if (s.sh_type == SHT_REL) {
      return fail(fmt::format("section {} holds relocations without addends", name));
    } else if (s.sh_type == SHT_SYMTAB) {
      if (symtab >= 0) return fail("more than one symbol table");
      symtab = static_cast<int>(i);
    } else if (s.sh_type == SHT_GROUP) {
      return fail(fmt::format("section {} is a COMDAT group", name));
    }
  }
  if (symtab < 0) return fail("no symbol table");
  const Elf64_Shdr& symbolSection = sections[symtab];
  std::string_view symbolBytes, symbolNames;
  if (symbolSection.sh_entsize != sizeof(Elf64_Sym) || !contents(symbolSection, &symbolBytes) ||
      symbolSection.sh_link >= sections.size() || !contents(sections[symbolSection.sh_link], &symbolNames)) {
    return fail("malformed symbol table");
  }
  std::vector<Elf64_Sym> symbols(symbolBytes.size() / sizeof(Elf64_Sym));
  std::memcpy(symbols.data(), symbolBytes.data(), symbols.size() * sizeof(Elf64_Sym));
  auto symbolName = [&](const Elf64_Sym& s) -> std::string_view {
    if (s.st_name >= symbolNames.size()) return {};
    std::string_view rest = symbolNames.substr(s.st_name);
    return rest.substr(0, rest.find('\0'));
  };

  // Which relocations need a GOT entry or a call stub, so the regions can be sized first.
  std::vector<const Elf64_Shdr*> applied;  // relocation tables whose target is loaded
  std::vector<int> gotIndex(symbols.size(), -1), stubIndex(symbols.size(), -1);
  size_t gotEntries = 0, stubs = 0;
  for (size_t r : relocations) {
    const Elf64_Shdr& table = sections[r];
    if (table.sh_info >= sections.size() || regionOf[table.sh_info] < 0) continue;  // e.g. debug info
    std::string_view entries;
    if (table.sh_entsize != sizeof(Elf64_Rela) || !contents(table, &entries) || table.sh_link != static_cast<uint32_t>(symtab)) {
      return fail(fmt::format("malformed relocation section {}", sectionName(names, table.sh_name)));
    }
    applied.push_back(&table);
    for (size_t k = 0; k < entries.size() / sizeof(Elf64_Rela); ++k) {
      Elf64_Rela rela;
      std::memcpy(&rela, entries.data() + k * sizeof(Elf64_Rela), sizeof rela);
      uint32_t sym = ELF64_R_SYM(rela.r_info), type = ELF64_R_TYPE(rela.r_info);
      if (sym >= symbols.size()) return fail("a relocation names a symbol out of the table");
      if ((type == R_X86_64_GOTPCREL || type == R_X86_64_GOTPCRELX || type == R_X86_64_REX_GOTPCRELX) && gotIndex[sym] < 0) {
        gotIndex[sym] = static_cast<int>(gotEntries++);
      }
      if (type == R_X86_64_PLT32 && symbols[sym].st_shndx == SHN_UNDEF && stubIndex[sym] < 0) {
        stubIndex[sym] = static_cast<int>(stubs++);
      }
    }
  }
  size_t stubOffset = alignUp(regionSize[kCode], kStubSize);
  regionSize[kCode] = stubOffset + stubs * kStubSize;
  size_t gotOffset = alignUp(regionSize[kConst], kGotEntry);
  regionSize[kConst] = gotOffset + gotEntries * kGotEntry;

  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t regionStart[kRegions];
  size_t total = 0;
  for (int r = 0; r < kRegions; ++r) {
    regionStart[r] = total;
    total += alignUp(regionSize[r], page);
  }
  if (total == 0) return fail("the object holds no code");
  if (total > (size_t{1} << 30)) return fail("the object is larger than 1 GB");
  void* mapped = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return fail(fmt::format("cannot map {} bytes: {}", total, std::strerror(errno)));
  auto impl = std::make_unique<Impl>();
  impl->base = mapped;
  impl->size = total;
  auto* base = static_cast<uint8_t*>(mapped);
  auto sectionAddress = [&](size_t i) { return base + regionStart[regionOf[i]] + offsetIn[i]; };
  for (size_t i = 1; i < sections.size(); ++i) {
    if (regionOf[i] < 0 || sections[i].sh_type == SHT_NOBITS) continue;
    std::string_view data;
    contents(sections[i], &data);
    std::memcpy(sectionAddress(i), data.data(), data.size());
  }

  // Every symbol's address; an undefined one comes from `resolve`.
  std::vector<uint64_t> address(symbols.size(), 0);
  std::vector<char> known(symbols.size(), 0);
  for (size_t i = 1; i < symbols.size(); ++i) {
    const Elf64_Sym& s = symbols[i];
    if (s.st_shndx == SHN_UNDEF) {
      void* found = resolve(symbolName(s));
      if (!found && ELF64_ST_BIND(s.st_info) != STB_WEAK) {
        known[i] = 2;  // an error only if a relocation uses it
        continue;
      }
      address[i] = reinterpret_cast<uint64_t>(found);
    } else if (s.st_shndx == SHN_ABS) {
      address[i] = s.st_value;
    } else if (s.st_shndx >= SHN_LORESERVE) {
      return fail(fmt::format("symbol {} is in a reserved section {:#x}", symbolName(s), s.st_shndx));
    } else if (s.st_shndx >= sections.size() || regionOf[s.st_shndx] < 0) {
      continue;  // in a section that is not loaded (debug info): unknown
    } else {
      address[i] = reinterpret_cast<uint64_t>(sectionAddress(s.st_shndx)) + s.st_value;
      int binding = ELF64_ST_BIND(s.st_info);
      if (ELF64_ST_TYPE(s.st_info) != STT_SECTION && (binding == STB_GLOBAL || binding == STB_WEAK)) {
        impl->exports.emplace(std::string(symbolName(s)), reinterpret_cast<void*>(address[i]));
      }
    }
    known[i] = 1;
  }
  for (size_t i = 0; i < symbols.size(); ++i) {
    uint8_t* got = base + regionStart[kConst] + gotOffset;
    if (gotIndex[i] >= 0) std::memcpy(got + gotIndex[i] * kGotEntry, &address[i], 8);
    if (stubIndex[i] >= 0) {
      uint8_t* stub = base + regionStart[kCode] + stubOffset + stubIndex[i] * kStubSize;
      const uint8_t jump[6] = {0xff, 0x25, 0, 0, 0, 0};  // jmp *0(%rip): the address right after
      std::memcpy(stub, jump, sizeof jump);
      std::memcpy(stub + sizeof jump, &address[i], 8);
    }
  }

  for (const Elf64_Shdr* table : applied) {
    const Elf64_Shdr& target = sections[table->sh_info];
    uint8_t* targetBase = sectionAddress(table->sh_info);
    std::string_view entries;
    contents(*table, &entries);
    for (size_t k = 0; k < entries.size() / sizeof(Elf64_Rela); ++k) {
      Elf64_Rela rela;
      std::memcpy(&rela, entries.data() + k * sizeof(Elf64_Rela), sizeof rela);
      uint32_t sym = ELF64_R_SYM(rela.r_info), type = ELF64_R_TYPE(rela.r_info);
      if (type == R_X86_64_NONE) continue;
      size_t width = (type == R_X86_64_64 || type == R_X86_64_PC64) ? 8 : 4;
      if (rela.r_offset > target.sh_size || target.sh_size - rela.r_offset < width || target.sh_type == SHT_NOBITS) {
        return fail("a relocation is outside its section");
      }
      if (known[sym] != 1) {
        return fail(known[sym] == 2 ? fmt::format("undefined symbol {}", symbolName(symbols[sym]))
                                    : "a relocation names a symbol in a section that is not loaded");
      }
      uint8_t* place = targetBase + rela.r_offset;
      int64_t p = static_cast<int64_t>(reinterpret_cast<uint64_t>(place));
      int64_t s = static_cast<int64_t>(address[sym]), a = rela.r_addend;
      int64_t value = 0;
      switch (type) {
        case R_X86_64_64: value = s + a; break;
        case R_X86_64_PC64: value = s + a - p; break;
        case R_X86_64_PC32: value = s + a - p; break;
        case R_X86_64_PLT32:
          value = s + a - p;
          if (stubIndex[sym] >= 0 && (value < INT32_MIN || value > INT32_MAX)) {
            value = static_cast<int64_t>(reinterpret_cast<uint64_t>(base + regionStart[kCode] + stubOffset +
                                                                    stubIndex[sym] * kStubSize)) + a - p;
          }
          break;
        case R_X86_64_GOTPCREL: case R_X86_64_GOTPCRELX: case R_X86_64_REX_GOTPCRELX:
          value = static_cast<int64_t>(reinterpret_cast<uint64_t>(base + regionStart[kConst] + gotOffset +
                                                                  gotIndex[sym] * kGotEntry)) + a - p;
          break;
        case R_X86_64_32:
          value = s + a;
          if (value < 0 || value > static_cast<int64_t>(UINT32_MAX)) return fail("a 32-bit absolute relocation is out of reach");
          break;
        case R_X86_64_32S: value = s + a; break;
        default: return fail(fmt::format("relocation type {} is not handled", type));
      }
      if (width == 8) {
        std::memcpy(place, &value, 8);
      } else {
        if (type != R_X86_64_32 && (value < INT32_MIN || value > INT32_MAX)) {
          return fail(fmt::format("a 32-bit relocation (type {}) to {} is out of reach", type, symbolName(symbols[sym])));
        }
        uint32_t narrow = static_cast<uint32_t>(value);
        std::memcpy(place, &narrow, 4);
      }
    }
  }

  const int protection[kRegions] = {PROT_READ | PROT_EXEC, PROT_READ, PROT_READ | PROT_WRITE};
  for (int r = 0; r < kRegions; ++r) {
    size_t length = alignUp(regionSize[r], page);
    if (length == 0 || protection[r] == (PROT_READ | PROT_WRITE)) continue;
    if (mprotect(base + regionStart[r], length, protection[r]) != 0) {
      return fail(fmt::format("cannot protect the loaded code: {}", std::strerror(errno)));
    }
  }
  auto out = std::unique_ptr<LoadedObject>(new LoadedObject());
  out->impl_ = std::move(impl);
  return out;
}

}  // namespace attrib::jit
