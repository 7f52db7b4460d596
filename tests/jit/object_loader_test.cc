// The own loader of cached predicate objects (jit/object_loader.h) on what LLVM really emits for
// the stdlib, and on everything else: damaged bytes, truncations, another machine, relocations
// and sections it does not handle, symbols nobody defines. Each refusal is an error with a
// reason (the JIT then links with LLVM), never a crash or a half-loaded object.
#include "jit/object_loader.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "jit/data_layout.h"
#include "jit/helpers.h"
#include "jit/llvm_backend.h"
#include "runtime/engine.h"
#include "tests/runtime/engine_util.h"

namespace attrib::jit {
namespace {

// LLVM's object for a slice of the stdlib's predicates (every seventh: rules, filters and
// outcomes with captures, strings and aggregates), compiled once per process.
const std::string& stdlibObject() {
  static const std::string object = [] {
    std::string error, out;
    const LlvmBackend* backend = llvmBackend(&error);
    EXPECT_TRUE(backend) << error;
    DataLayout layout;
    EXPECT_TRUE(probeDataLayout(&layout, &error)) << error;
    int n = 0;
    auto some = [&n](const PredicateRef&) { return n++ % 7 == 0; };
    CompileTimes times;
    EXPECT_TRUE(backend->compileObject(testing::stdlibEngine()->bundle().program, layout, "attrib_dispatch_0", some,
                                       &out, &times, &error))
        << error;
    return out;
  }();
  return object;
}

void* resolveHelpers(std::string_view name) {
  for (const auto& h : helperSymbols()) {
    if (name == h.name) return h.address;
  }
  if (name == "memcmp") return reinterpret_cast<void*>(&memcmp);
  if (name == "bcmp") return reinterpret_cast<void*>(&memcmp);  // bcmp's contract is weaker than memcmp's
  if (name == "memset") return reinterpret_cast<void*>(&memset);
  if (name == "memcpy") return reinterpret_cast<void*>(&memcpy);
  return nullptr;
}

std::string refusal(std::string_view bytes, const LoadedObject::Resolver& resolve = resolveHelpers) {
  std::string error;
  auto loaded = LoadedObject::load(bytes, resolve, &error);
  EXPECT_FALSE(loaded) << "loaded what it should refuse";
  EXPECT_FALSE(error.empty());
  return error;
}

Elf64_Ehdr headerOf(const std::string& o) {
  Elf64_Ehdr h;
  std::memcpy(&h, o.data(), sizeof h);
  return h;
}

Elf64_Shdr sectionOf(const std::string& o, size_t i) {
  Elf64_Shdr s;
  std::memcpy(&s, o.data() + headerOf(o).e_shoff + i * sizeof s, sizeof s);
  return s;
}

void setSection(std::string* o, size_t i, const Elf64_Shdr& s) {
  std::memcpy(o->data() + headerOf(*o).e_shoff + i * sizeof s, &s, sizeof s);
}

// The permissions column of /proc/self/maps for the mapping holding `address`.
std::string permissionsAt(const void* address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  auto a = reinterpret_cast<uintptr_t>(address);
  while (std::getline(maps, line)) {
    uintptr_t lo = 0, hi = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%lx-%lx %4s", &lo, &hi, perms) == 3 && a >= lo && a < hi) return perms;
  }
  return "";
}

TEST(ObjectLoader, LoadsLlvmsObjectAndItsCodeIsExecutableButNeverWritable) {
  const std::string& object = stdlibObject();
  ASSERT_FALSE(object.empty());
  std::string error;
  auto loaded = LoadedObject::load(object, resolveHelpers, &error);
  ASSERT_TRUE(loaded) << error;
  void* dispatch = loaded->symbol("attrib_dispatch_0");
  ASSERT_NE(dispatch, nullptr);
  EXPECT_EQ(permissionsAt(dispatch), "r-xp");
  EXPECT_EQ(loaded->symbol("attrib_dispatch_1"), nullptr);
  EXPECT_EQ(loaded->symbol(""), nullptr);
}

TEST(ObjectLoader, GarbageAndAnotherMachinesObjectsAreRefusedWithAReason) {
  EXPECT_EQ(refusal(""), "not an ELF object");
  EXPECT_EQ(refusal("garbage log bytes\x01\x02\xff, not an object at all"), "not an ELF object");
  std::string object = stdlibObject();
  std::string arm = object;
  uint16_t aarch64 = EM_AARCH64;
  std::memcpy(arm.data() + offsetof(Elf64_Ehdr, e_machine), &aarch64, 2);
  EXPECT_EQ(refusal(arm), "not a relocatable x86-64 ELF64 object");
  std::string shared = object;
  uint16_t dyn = ET_DYN;
  std::memcpy(shared.data() + offsetof(Elf64_Ehdr, e_type), &dyn, 2);
  EXPECT_EQ(refusal(shared), "not a relocatable x86-64 ELF64 object");
}

TEST(ObjectLoader, EveryTruncationIsRefusedNeverACrash) {
  const std::string& object = stdlibObject();
  size_t step = std::max<size_t>(1, object.size() / 400);
  for (size_t n = 0; n < object.size(); n += (n < 256 ? 1 : step)) {
    std::string error;
    auto loaded = LoadedObject::load(std::string_view(object).substr(0, n), resolveHelpers, &error);
    // The section headers are at the end: any cut loses them.
    EXPECT_FALSE(loaded) << "loaded the first " << n << " of " << object.size() << " bytes";
    EXPECT_FALSE(error.empty()) << n;
  }
}

TEST(ObjectLoader, ARelocationItDoesNotHandleIsRefusedByType) {
  std::string object = stdlibObject();
  const Elf64_Ehdr h = headerOf(object);
  bool changed = false;
  for (size_t i = 1; i < h.e_shnum && !changed; ++i) {
    Elf64_Shdr s = sectionOf(object, i);
    if (s.sh_type != SHT_RELA || s.sh_size == 0) continue;
    Elf64_Rela rela;
    std::memcpy(&rela, object.data() + s.sh_offset, sizeof rela);
    rela.r_info = ELF64_R_INFO(ELF64_R_SYM(rela.r_info), R_X86_64_TPOFF64);  // thread-local: never emitted here
    std::memcpy(object.data() + s.sh_offset, &rela, sizeof rela);
    changed = true;
  }
  ASSERT_TRUE(changed) << "LLVM's object has no relocations";
  EXPECT_EQ(refusal(object), "relocation type 18 is not handled");
}

TEST(ObjectLoader, UnwindTablesAndThreadLocalSectionsAreRefusedByName) {
  std::string object = stdlibObject();
  const Elf64_Ehdr h = headerOf(object);
  size_t code = 0;
  for (size_t i = 1; i < h.e_shnum; ++i) {
    if (sectionOf(object, i).sh_flags & SHF_EXECINSTR) code = i;
  }
  ASSERT_NE(code, 0u);
  std::string unwind = object;
  Elf64_Shdr s = sectionOf(object, code);
  s.sh_type = SHT_X86_64_UNWIND;
  setSection(&unwind, code, s);
  EXPECT_NE(refusal(unwind).find("section .text has type 0x70000001"), std::string::npos) << refusal(unwind);
  std::string tls = object;
  s = sectionOf(object, code);
  s.sh_flags |= SHF_TLS;
  setSection(&tls, code, s);
  EXPECT_EQ(refusal(tls), "section .text is thread-local");
  std::string writableCode = object;
  s = sectionOf(object, code);
  s.sh_flags |= SHF_WRITE;
  setSection(&writableCode, code, s);
  EXPECT_EQ(refusal(writableCode), "section .text is writable code");
}

TEST(ObjectLoader, ASymbolNobodyDefinesIsNamed) {
  const std::string& object = stdlibObject();
  auto withoutHelpers = [](std::string_view name) -> void* {
    return name.rfind("attrib_jit_", 0) == 0 ? nullptr : resolveHelpers(name);
  };
  std::string why = refusal(object, withoutHelpers);
  EXPECT_EQ(why.rfind("undefined symbol attrib_jit_", 0), 0u) << why;
}

TEST(ObjectLoader, SectionsPointingOutsideTheFileAreRefused) {
  std::string object = stdlibObject();
  const Elf64_Ehdr h = headerOf(object);
  for (size_t i = 1; i < h.e_shnum; ++i) {
    Elf64_Shdr s = sectionOf(object, i);
    if (!(s.sh_flags & SHF_ALLOC) || s.sh_type != SHT_PROGBITS) continue;
    std::string damaged = object;
    s.sh_offset = object.size() - 1;
    s.sh_size = 4096;
    setSection(&damaged, i, s);
    EXPECT_NE(refusal(damaged).find("is truncated"), std::string::npos);
  }
  std::string badHeaders = object;
  uint64_t far = uint64_t{1} << 40;
  std::memcpy(badHeaders.data() + offsetof(Elf64_Ehdr, e_shoff), &far, 8);
  EXPECT_EQ(refusal(badHeaders), "truncated section headers");
}

}  // namespace
}  // namespace attrib::jit
