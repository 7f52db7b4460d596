// Helpers for compiler tests: run the front end over in-memory files.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compilation.h"

namespace attrib::testing {

// A compilation of in-memory files, checked. Files are (path, text) pairs.
struct Checked {
  std::unique_ptr<DiagnosticSink> sink = std::make_unique<DiagnosticSink>();
  std::unique_ptr<Compilation> compilation;

  // "path:line:col: severity: message [code]" for each diagnostic, and "note: ..." lines
  // ("path:line:col: note: ..." when the note has a place) right after it, then its fix-its as
  // fix-it:"path":{L:C-L:C}:"replacement", with " (safe)" for those --fix applies.
  std::vector<std::string> lines() const;
  size_t errors() const { return sink->errorCount(); }
  size_t warnings() const { return sink->warningCount(); }
  const ast::Module& module(size_t i = 0) const { return *compilation->parsed().at(i).module; }
};

Checked check(const std::vector<std::pair<std::string, std::string>>& files);
// Files in layers, lowest first (Compilation::beginLayer); with more than one, the lowest is
// named "stdlib".
Checked checkLayers(const std::vector<std::vector<std::pair<std::string, std::string>>>& layers);
inline Checked check(const std::string& text) { return check({{"t.attr", text}}); }

// Parses and checks one file that must be clean; fails the current test otherwise.
Checked checkClean(const std::string& text);

// Every .attr file in the repository (stdlib-rules/, examples/, tests/) and the stdlib's generated
// ones (ATTRIB_STDLIB_GENERATED_DIR).
std::vector<std::string> repositoryRuleFiles();

}  // namespace attrib::testing
