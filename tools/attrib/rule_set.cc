#include "tools/attrib/rule_set.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hs/hs.h>
#include <link.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "attrib_version.h"
#include "compiler/bundle_writer.h"
#include "compiler/compilation.h"
#include "compiler/diagnostic_render.h"
#include "ir/codec.h"
#include "ir/sha256.h"
#include "driver/engine_build.h"
#include "jit/object_cache.h"
#include "orchestrator/blueprint.h"
#include "runtime/bundle.h"
#include "tools/stdlib/embedded_stdlib.h"

// The stdlib bundle, compiled at build time by attribc and linked in (stdlib_bundle.S).
extern "C" const char attrib_stdlib_bundle[];
extern "C" const char attrib_stdlib_bundle_end[];

namespace attrib::tools {
namespace {

// Bump when what a cache entry holds changes shape.
constexpr std::string_view kRulesCacheFormat = "attrib-rules-cache-1";

std::shared_ptr<const runtime::Engine> engineFrom(std::string_view bytes, const std::string& what,
                                                  const RuleSetOptions& options, std::string* error) {
  driver::EngineOptions engine;
  engine.jit = options.jit;
  engine.jitCacheDir = options.jitCacheDir;
  std::string why;
  auto built = driver::engineFromBytes(bytes, engine, &why);
  if (!built) *error = fmt::format("{}: {}", what, why);
  return built;
}

// The GNU build id of this executable: it changes whenever the compiler inside it does, which
// the version number alone does not (a developer's rebuild). Empty when the linker wrote none.
std::string buildId() {
  static const std::string id = [] {
    std::string out;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
          auto* found = static_cast<std::string*>(data);
          for (int i = 0; i < info->dlpi_phnum && found->empty(); ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_NOTE) continue;
            const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
            const char* end = p + ph.p_memsz;
            while (p + sizeof(ElfW(Nhdr)) <= end) {
              const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
              const char* name = p + sizeof(ElfW(Nhdr));
              const char* desc = name + ((note->n_namesz + 3) & ~3u);
              if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                found->assign(desc, note->n_descsz);
                break;
              }
              p = desc + ((note->n_descsz + 3) & ~3u);
            }
          }
          return 1;  // the first object is the executable itself
        },
        &out);
    return out;
  }();
  return id;
}

std::string hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

// A cache entry: the text of the warnings of the compile (replayed on a hit), then the bundle.
std::string cacheEntry(const std::string& diagnostics, const std::string& bundle) {
  ir::Writer w;
  w.bytes(diagnostics);
  w.bytes(bundle);
  return w.str();
}

bool readCacheEntry(const std::string& entry, std::string* diagnostics, std::string* bundle) {
  ir::Reader r(entry);
  return r.string(diagnostics) && r.string(bundle) && r.remaining() == 0;
}

std::string layerName(const std::vector<std::string>& paths) {
  std::string name = "stdlib";
  for (const auto& p : paths) {
    std::filesystem::path path(p);
    std::string base = path.filename().string();
    if (base.empty() || base == ".") base = path.parent_path().filename().string();
    name += "+" + (base.empty() ? p : base);
  }
  return name;
}

}  // namespace

std::string defaultRulesCacheDir() {
  if (const char* dir = std::getenv("ATTRIB_RULES_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/attrib/rules";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/attrib/rules";
  return {};
}

std::vector<std::string> rulePaths(const std::vector<std::string>& fromCommandLine) {
  return fromCommandLine.empty() ? orchestrator::rulesFromEnvironment() : fromCommandLine;
}

std::shared_ptr<const runtime::Engine> loadRuleSet(const std::vector<std::string>& paths, const RuleSetOptions& options,
                                                   std::string* error) {
  if (paths.empty()) {
    std::string_view stdlib(attrib_stdlib_bundle, static_cast<size_t>(attrib_stdlib_bundle_end - attrib_stdlib_bundle));
    return engineFrom(stdlib, "the embedded stdlib bundle", options, error);
  }
  for (const auto& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    std::ifstream in(path, std::ios::binary);
    std::string head(8, '\0');
    in.read(head.data(), 8);
    if (!runtime::looksLikeBundle(head)) continue;
    if (paths.size() > 1) {
      *error = fmt::format("{} is a bundle, a whole rule set: give it alone, or layer the .attr sources it was "
                           "built from",
                           path);
      return nullptr;
    }
    // Read in one piece into a buffer of the file's size: a bundle is megabytes, and a stream
    // copied into a string copied it twice (about 3 ms of every run's start).
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    std::string bytes(size > 0 ? static_cast<size_t>(size) : 0, '\0');
    in.seekg(0);
    if (size < 0 || !in.read(bytes.data(), size)) {
      *error = fmt::format("{}: cannot read the bundle: {}", path, std::strerror(errno));
      return nullptr;
    }
    return engineFrom(bytes, path, options, error);
  }

  DiagnosticSink sink;
  Compilation compilation(sink);
  addStdlibLayer(compilation);
  for (const auto& path : paths) {
    compilation.beginLayer(path);
    if (!compilation.addPath(path, error)) return nullptr;
  }
  std::string what = fmt::format("the rules in {}", fmt::join(paths, ", "));

  // The key: everything a compile reads (every file's path, layer and text), and the compiler.
  ir::Writer key;
  key.bytes(kRulesCacheFormat);
  key.bytes(ATTRIB_VERSION);
  key.bytes(buildId());
  key.bytes(hs_version());
  for (FileId id = 0; id < compilation.sources().size(); ++id) {
    const SourceFile& f = compilation.sources().file(id);
    key.varint(compilation.layerOf(id));
    key.bytes(f.path());
    key.bytes(f.text());
  }
  std::string name = hex(sha256(key.str()));
  jit::ObjectCache cache(options.rulesCacheDir, "the rules cache", ".attrb");
  if (!options.rulesCacheDir.empty()) {
    std::string note;
    if (auto entry = cache.load(name, &note)) {
      std::string diagnostics, bundle;
      if (readCacheEntry(*entry, &diagnostics, &bundle)) {
        fmt::print(stderr, "{}", diagnostics);
        return engineFrom(bundle, what, options, error);
      }
      note = fmt::format("ignored the rules cache entry {}: not a cache entry", cache.pathOf(name));
    }
    if (!note.empty()) fmt::print(stderr, "attrib: note: {}\n", note);
  }

  compilation.check();
  std::string diagnostics;
  for (const auto& d : sink.diagnostics()) diagnostics += renderText(d, compilation.sources());
  fmt::print(stderr, "{}", diagnostics);
  if (sink.errorCount() > 0) {
    *error = fmt::format("{} have errors (see above); run 'attribc check {}'", what, fmt::join(paths, " "));
    return nullptr;
  }
  BundleResult built = buildBundle(compilation, {layerName(paths), "0.0.0"}, ATTRIB_VERSION);
  if (!built.ok) {
    *error = built.error;
    return nullptr;
  }
  if (!options.rulesCacheDir.empty()) {
    // The cache only saves time: a failure to store is a note, never an error.
    std::string note;
    if (!cache.store(name, cacheEntry(diagnostics, built.bytes), &note)) fmt::print(stderr, "attrib: note: {}\n", note);
  }
  return engineFrom(built.bytes, what, options, error);
}

}  // namespace attrib::tools
