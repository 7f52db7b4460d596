#include "jit/jit_compiler.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <mutex>
#include <thread>

#include "ir/codec.h"
#include "ir/sha256.h"
#include "jit/data_layout.h"
#include "jit/helpers.h"
#include "jit/host_cpu.h"
#include "jit/llvm_backend.h"
#include "jit/object_cache.h"
#include "jit/object_loader.h"

namespace attrib::jit {
namespace {

// Bump when generated code changes meaning, so stale cache entries are never linked.
constexpr const char* kCodegenVersion = "attrib-jit-7";

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string hex(std::string_view raw) {
  std::string out;
  for (unsigned char c : raw) out += fmt::format("{:02x}", c);
  return out;
}

std::string dispatchSymbol(size_t part) { return fmt::format("attrib_dispatch_{}", part); }

// Several object files in one cache entry: a count, then each object's size and bytes.
std::string packObjects(const std::vector<std::string>& objects) {
  ir::Writer w;
  w.varint(objects.size());
  for (const auto& o : objects) w.bytes(o);
  return std::move(w.str());
}

bool unpackObjects(std::string_view packed, std::vector<std::string>* objects) {
  ir::Reader r(packed);
  uint64_t count = 0;
  if (!r.varint(&count) || count > 64) return false;
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view o;
    if (!r.bytes(&o)) return false;
    objects->emplace_back(o);
  }
  return r.remaining() == 0;
}

// Splits the predicates into `parts` groups of about equal cost (largest first, each into the
// lightest group), so parallel compilation finishes together.
std::vector<int> partition(const ir::Program& program, size_t parts) {
  std::vector<std::pair<size_t, int>> costs;  // (cost, ordinal)
  int ordinal = 0;
  forEachPredicate(program, [&](const PredicateRef&, const ir::Expr& e, int32_t) {
    costs.push_back({predicateCost(e), ordinal++});
  });
  std::sort(costs.begin(), costs.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<size_t> load(parts, 0);
  std::vector<int> group(costs.size(), 0);
  for (const auto& [cost, i] : costs) {
    size_t lightest = std::min_element(load.begin(), load.end()) - load.begin();
    group[i] = static_cast<int>(lightest);
    load[lightest] += cost;
  }
  return group;
}

// Loads `objects` with the own loader (object_loader.h), binding the helpers and then the
// C library's symbols (optimised code calls memcmp and bcmp on its own), and finds `symbols`.
// False with `why` when an object uses something the loader does not handle.
bool loadObjects(const std::vector<std::string>& objects, const std::vector<std::string>& symbols,
                 std::vector<void*>* addresses, std::shared_ptr<const void>* owner, std::string* why) {
  static const std::map<std::string, void*, std::less<>> helpers = [] {
    std::map<std::string, void*, std::less<>> out;
    for (const auto& h : helperSymbols()) out.emplace(h.name, h.address);
    return out;
  }();
  auto resolve = [](std::string_view name) -> void* {
    if (auto it = helpers.find(name); it != helpers.end()) return it->second;
    return dlsym(RTLD_DEFAULT, std::string(name).c_str());
  };
  auto loaded = std::make_shared<std::vector<std::unique_ptr<LoadedObject>>>();
  for (const auto& o : objects) {
    auto object = LoadedObject::load(o, resolve, why);
    if (!object) return false;
    loaded->push_back(std::move(object));
  }
  addresses->clear();
  for (const auto& s : symbols) {
    void* address = nullptr;
    for (const auto& o : *loaded) {
      if ((address = o->symbol(s))) break;
    }
    if (!address) {
      *why = "no object defines " + s;
      return false;
    }
    addresses->push_back(address);
  }
  *owner = std::move(loaded);
  return true;
}

}  // namespace

std::string defaultCacheDir() {
  if (const char* dir = std::getenv("ATTRIB_JIT_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/attrib/jit";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/attrib/jit";
  return {};
}

std::shared_ptr<const runtime::CompiledPredicates> compilePredicates(const ir::Program& program,
                                                                     const JitOptions& options, JitReport* report,
                                                                     std::string* error) {
  auto started = Clock::now();
  JitReport local;
  if (!report) report = &local;
  *report = {};
  DataLayout layout;
  if (!probeDataLayout(&layout, error)) return nullptr;

  std::vector<std::string> names;
  forEachPredicate(program, [&](const PredicateRef& ref, const ir::Expr&, int32_t) { names.push_back(predicateSymbol(ref)); });
  report->predicates = names.size();

  // The key is made without LLVM (host_cpu.h), so a hit never loads it.
  std::string host = hostCpuIdentity();
  if (host.empty()) {
    const LlvmBackend* backend = llvmBackend(error);
    if (!backend || !backend->describeHost(&host, error)) return nullptr;
  }
  std::string key = hex(sha256(fmt::format("{}\n{}\n{}\n{}\n{}", kCodegenVersion, ATTRIB_LLVM_VERSION, host,
                                           layout.fingerprint(), ir::encode(program))));
  std::optional<ObjectCache> cache;
  if (!options.cacheDir.empty()) cache.emplace(options.cacheDir);
  std::optional<std::string> object;
  if (cache) object = cache->load(key, &report->cacheNote);

  std::vector<std::string> objects;
  if (object && !unpackObjects(*object, &objects)) {
    report->cacheNote = "ignored a JIT cache entry that does not hold object files";
    object.reset();
    objects.clear();
  }
  report->cacheHit = object.has_value();
  if (!object) {
    const LlvmBackend* backend = llvmBackend(error);
    if (!backend) return nullptr;
    // Compile in parallel: one group of predicates per core (up to 4), each its own module.
    size_t parts = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
    parts = std::min(parts, std::max<size_t>(1, names.size() / 16));
    std::vector<int> group = partition(program, parts);
    objects.assign(parts, {});
    std::vector<CompileTimes> times(parts);
    std::vector<std::string> errors(parts);
    std::vector<char> ok(parts, 0);
    std::map<std::string, int> ordinalOf;  // symbol -> position in forEachPredicate's order
    for (size_t i = 0; i < names.size(); ++i) ordinalOf[names[i]] = static_cast<int>(i);
    auto work = [&](size_t part) {
      auto include = [&](const PredicateRef& ref) {
        return group[ordinalOf.at(predicateSymbol(ref))] == static_cast<int>(part);
      };
      ok[part] = backend->compileObject(program, layout, dispatchSymbol(part), include, &objects[part], &times[part],
                                        &errors[part]);
    };
    std::vector<std::thread> threads;
    for (size_t part = 1; part < parts; ++part) threads.emplace_back(work, part);
    work(0);
    for (auto& t : threads) t.join();
    for (size_t part = 0; part < parts; ++part) {
      if (!ok[part]) {
        *error = errors[part];
        return nullptr;
      }
      report->generateMs = std::max(report->generateMs, times[part].generateMs);
      report->optimiseMs = std::max(report->optimiseMs, times[part].optimiseMs);
      report->codegenMs = std::max(report->codegenMs, times[part].codegenMs);
    }
    report->threads = parts;
    object = packObjects(objects);
    if (cache) {
      std::string note;
      if (!cache->store(key, *object, &note) && report->cacheNote.empty()) report->cacheNote = note;
    }
  }
  report->objectBytes = object->size();

  auto linkStarted = Clock::now();
  std::vector<std::string> symbols;
  for (size_t part = 0; part < objects.size(); ++part) symbols.push_back(dispatchSymbol(part));
  std::vector<void*> addresses;
  std::shared_ptr<const void> owner;
  if (options.llvmLinker || !loadObjects(objects, symbols, &addresses, &owner, &report->loaderNote)) {
    // Something the own loader does not handle: LLVM links it.
    const LlvmBackend* backend = llvmBackend(error);
    if (!backend || !backend->linkObjects(objects, helperSymbols(), symbols, &addresses, &owner, error)) return nullptr;
    report->linkedByLlvm = true;
  }
  std::vector<runtime::PredicateFn> dispatchers;
  for (void* address : addresses) dispatchers.push_back(reinterpret_cast<runtime::PredicateFn>(address));
  // Which object holds each predicate: the partition is recomputed, deterministically, from
  // the program (a cached object was built from the same partition: the key covers it).
  std::vector<int> group = partition(program, objects.size());
  auto out = std::make_shared<runtime::CompiledPredicates>();
  out->symptomWhen.assign(program.symptoms.size(), {});
  out->filterWhere.resize(program.filters.size());
  for (size_t f = 0; f < program.filters.size(); ++f) out->filterWhere[f].assign(program.filters[f].statements.size(), {});
  out->ruleWhere.assign(program.rules.size(), {});
  out->outcomeWhen.assign(program.outcomes.size(), {});
  int32_t id = 0;
  forEachPredicate(program, [&](const PredicateRef& ref, const ir::Expr&, int32_t) {
    runtime::CompiledPredicate compiled{dispatchers[group[id]], id};
    ++id;
    using K = PredicateRef::Kind;
    switch (ref.kind) {
      case K::SymptomWhen: out->symptomWhen[ref.index] = compiled; break;
      case K::FilterWhere: out->filterWhere[ref.index][ref.statement] = compiled; break;
      case K::RuleWhere: out->ruleWhere[ref.index] = compiled; break;
      case K::OutcomeWhen: out->outcomeWhen[ref.index] = compiled; break;
    }
  });
  out->owner = std::move(owner);
  report->linkMs = msSince(linkStarted);
  report->totalMs = msSince(started);
  return out;
}

bool predicateLlvmIr(const ir::Program& program, const PredicateRef& ref, bool optimised, std::string* out,
                     std::string* error) {
  DataLayout layout;
  if (!probeDataLayout(&layout, error)) return false;
  const LlvmBackend* backend = llvmBackend(error);
  return backend && backend->predicateIr(program, layout, ref, optimised, out, error);
}

}  // namespace attrib::jit
