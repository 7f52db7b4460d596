#include <fmt/format.h>
#include <fnmatch.h>

#include <filesystem>
#include <map>
#include <memory>

#include "attribc_version.h"
#include "compiler/bundle_writer.h"
#include "compiler/compilation.h"
#include "driver/engine_build.h"
#include "runtime/bundle.h"
#include "tools/attribc/commands.h"
#include "tools/attribc/output.h"
#include "tools/attribc/rule_tests.h"
#include "tools/stdlib/embedded_stdlib.h"

namespace attrib::tools {
namespace {

namespace fs = std::filesystem;

// The engine of a checked compilation, or nullptr with `error`.
std::shared_ptr<const runtime::Engine> engineOf(const Compilation& compilation, std::string* error) {
  return driver::engineFromCompilation(compilation, {"test", "0.0.0"}, ATTRIB_VERSION, {}, error);
}

// The same files up to `layer`, compiled without the layers above: what a lower layer's test
// sees when nothing overrides it. Built only when a lower layer's test fails.
class LowerLayers {
 public:
  explicit LowerLayers(const Compilation& full) : full_(full) {}

  struct Built {
    DiagnosticSink sink;
    std::unique_ptr<Compilation> compilation;
    std::shared_ptr<const runtime::Engine> engine;
    std::string whyNot;  // when engine is null: the first error of the lower layers alone
  };

  // nullptr when the lower layers alone do not compile (then nothing can be said about them, and
  // whyNot(layer) says why).
  const Built* upTo(size_t layer) {
    auto [it, inserted] = built_.try_emplace(layer);
    if (!inserted) return it->second.get() && it->second->engine ? it->second.get() : nullptr;
    auto b = std::make_unique<Built>();
    b->compilation = std::make_unique<Compilation>(b->sink);
    for (const auto& [path, text] : full_.sources().attached()) b->compilation->attachFile(path, text);
    size_t current = SIZE_MAX;
    for (FileId id = 0; id < full_.sources().size(); ++id) {
      size_t l = full_.layerOf(id);
      if (l > layer) continue;
      if (l != current) {
        b->compilation->beginLayer(full_.layerName(l));
        current = l;
      }
      const SourceFile& f = full_.sources().file(id);
      b->compilation->addSource(f.path(), f.text());
    }
    b->compilation->check();
    std::string error;
    if (b->sink.errorCount() == 0) b->engine = engineOf(*b->compilation, &error);
    if (!b->engine) {
      b->whyNot = error;
      for (const auto& d : b->sink.diagnostics()) {
        if (d.severity != Severity::Error) continue;
        b->whyNot = d.file == kNoFile ? d.message
                                      : fmt::format("{}: {}", b->compilation->sources().file(d.file).path(), d.message);
        break;
      }
    }
    it->second = std::move(b);
    return it->second->engine ? it->second.get() : nullptr;
  }

  std::string whyNot(size_t layer) const {
    auto it = built_.find(layer);
    return it != built_.end() && it->second ? it->second->whyNot : std::string();
  }

 private:
  const Compilation& full_;
  std::map<size_t, std::unique_ptr<Built>> built_;
};

bool nameMatches(const std::string& pattern, const std::string& name) {
  if (pattern.empty()) return true;
  if (pattern.find_first_of("*?[") != std::string::npos) return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
  return name.find(pattern) != std::string::npos;
}

// `--only PATH`: the file itself or anything below the directory. Embedded files are named
// <stdlib>/...; real paths are compared absolute and normalised.
std::string normalised(const std::string& path) {
  if (path.rfind(kStdlibPrefix.substr(0, kStdlibPrefix.size() - 1), 0) == 0) return path;
  std::error_code ec;
  std::string out = fs::absolute(path, ec).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool under(const std::string& file, const std::vector<std::string>& roots) {
  if (roots.empty()) return true;
  std::string f = normalised(file);
  for (const auto& r : roots) {
    if (f == r || (f.size() > r.size() && f.compare(0, r.size(), r) == 0 && (f[r.size()] == '/' || r.back() == '/')))
      return true;
  }
  return false;
}

std::string place(const Compilation& c, const LayerChange& change) {
  const SourceFile& f = c.sources().file(change.file);
  return fmt::format("{}:{}", f.path(), f.lineColumn(change.range.begin).line);
}

}  // namespace

int runTest(const TestOptions& options) {
  std::vector<std::string> only;
  for (const auto& p : options.only) {
    std::error_code ec;
    if (p.rfind("<stdlib>", 0) != 0 && !fs::exists(p, ec)) {
      printError(fmt::format("--only {}: no such file or directory", p));
      return kExitUsage;
    }
    only.push_back(normalised(p));
  }
  DiagnosticSink sink;
  Compilation compilation(sink);
  if (int status = readAndCheck(compilation, options.rules, options.color, "tests were not run"); status != kExitOk) {
    return status;
  }
  std::string error;
  std::shared_ptr<const runtime::Engine> engine = engineOf(compilation, &error);
  if (!engine) {
    printError(error);
    return kExitProblems;
  }
  size_t total = 0;
  auto selected = [&](const std::string& file, const std::string& name) {
    ++total;
    return nameMatches(options.filter, name) && under(file, only);
  };
  std::vector<RuleTestResult> results = runRuleTests(compilation, *engine, selected);
  const ProgramIndex& index = compilation.index();
  LowerLayers lower(compilation);
  size_t passed = 0, failed = 0, changed = 0;
  for (const auto& r : results) {
    if (r.passed) {
      ++passed;
      if (options.verbose) fmt::print("ok    {}:{}: {}\n", r.file, r.line, r.name);
      continue;
    }
    // A lower layer's test that passes without the layers above was changed by them. It is no
    // failure when an override or disable of theirs touches what the test looks at: the site
    // said it changes that. Anything else the layers above do to it is a failure.
    std::vector<std::string> overrides, others;
    bool passesBelow = false;
    std::string belowUnknown;  // why the test could not be re-run without the layers above
    if (r.layer + 1 < compilation.layerCount()) {
      const auto* below = lower.upTo(r.layer);
      if (!below) belowUnknown = lower.whyNot(r.layer);
      if (below) {
        auto again = runRuleTests(*below->compilation, *below->engine,
                                  [&](const std::string& file, const std::string& name) {
                                    return file == r.file && name == r.name;
                                  });
        if (again.size() == 1 && again[0].passed) {
          passesBelow = true;
          std::set<std::string> names = r.names;
          names.insert(again[0].names.begin(), again[0].names.end());
          for (const auto& c : index.changes) {
            if (c.layer > r.layer && (names.count(c.name) || c.kind == "filter")) {
              overrides.push_back(fmt::format("{} {} {} ({})", c.disable ? "disable of" : "override of", c.kind, c.name,
                                              place(compilation, c)));
            }
          }
          for (const auto& n : r.names) {
            auto f = index.files.find(n);
            if (f != index.files.end() && compilation.layerOf(f->second) > r.layer) others.push_back(n);
          }
        }
      }
    }
    if (passesBelow && !overrides.empty()) {
      ++changed;
      fmt::print("CHANGED {}:{}: {}\n", r.file, r.line, r.name);
      for (const auto& o : overrides) fmt::print("      changed by site {}\n", o);
      for (const auto& f : r.failures) fmt::print("      {}\n", f);
      continue;
    }
    ++failed;
    fmt::print("FAIL  {}:{}: {}\n", r.file, r.line, r.name);
    for (const auto& f : r.failures) fmt::print("      {}\n", f);
    if (!belowUnknown.empty()) {
      fmt::print("      cannot tell whether the rules layered above change it: {} alone does not compile ({})\n",
                 compilation.layerName(r.layer), belowUnknown);
    }
    if (passesBelow) {
      fmt::print("      it passes with {} alone: the rules layered above change it{}\n",
                 compilation.layerName(r.layer),
                 others.empty() ? "" : fmt::format(" ({}); 'override' or 'disable' what should change", fmt::join(others, ", ")));
    }
  }
  std::string summary = fmt::format("{} passed, {} failed", passed, failed);
  if (changed) summary += fmt::format(", {} changed by site overrides", changed);
  if (results.size() < total) summary += fmt::format(" ({} of {} tests selected)", results.size(), total);
  fmt::print("{}\n", summary);
  if (results.empty() && total > 0) printError("no test matches --filter/--only");
  return failed || (results.empty() && total > 0) ? kExitProblems : kExitOk;
}

}  // namespace attrib::tools
