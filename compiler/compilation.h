// A compilation: the set of rule files checked together, and the pipeline over them:
// read -> parse (parser.h) -> check (check.h). Names resolve across every file added, so a
// file's imports can only be satisfied by files of the same compilation.
//
// Files come in layers (docs/language.md, "Layers"): the stdlib, then a site's rules, then a
// team's. A layer sees every package of the layers below it; a package it declares itself
// replaces a lower layer's package of the same name (those files are then inactive: neither
// checked nor compiled); and its `override` and `disable` declarations change single
// declarations of the layers below.
#pragma once

#include <string>
#include <vector>

#include "compiler/check.h"
#include "compiler/diagnostic.h"
#include "compiler/parser.h"
#include "compiler/source.h"

namespace attrib {

// Rule files larger than this are refused as an I/O error rather than read.
inline constexpr size_t kMaxRuleFileBytes = 64u << 20;

class Compilation {
 public:
  explicit Compilation(DiagnosticSink& diagnostics) : diagnostics_(diagnostics) {}

  // Starts a layer above every file added so far and returns its number; files added from now
  // on belong to it. Files added before the first call are in layer 0. `name` is what messages
  // call the layer ("stdlib", "site/").
  size_t beginLayer(std::string name);
  size_t layerCount() const { return layers_.size(); }
  const std::string& layerName(size_t layer) const { return layers_.at(layer); }
  size_t layerOf(FileId file) const { return layerOfFile_.at(file); }

  // Adds a file, or every *.attr file below a directory (recursively, in sorted order).
  // Returns false with a one-line reason for problems that are not about rule text: a
  // missing path, an unreadable file, a directory without rule files.
  bool addPath(const std::string& path, std::string* error);
  // Adds text that did not come from the file system (tests, stdin, the fuzzer).
  FileId addSource(std::string path, std::string text);
  // Attaches a file a test may name as its fixture but that is not on disk (SourceManager::attach).
  void attachFile(std::string path, std::string text) { sources_.attach(std::move(path), std::move(text)); }

  // Parses every file not parsed yet, then checks all of them together.
  void check();

  const SourceManager& sources() const { return sources_; }
  const std::vector<ParseResult>& parsed() const { return parsed_; }
  // After check(): false for a file whose package a higher layer declares too (replaced).
  bool isActive(FileId file) const { return file < active_.size() && active_[file]; }
  // After check(): the modules of the active files in the order their declarations take effect
  // (filters run, rules break ties, the first outcome that holds is primary): the highest
  // layer first, by path within a layer. Lowering and tests read the program in this order.
  std::vector<const ast::Module*> declarationOrder() const;
  const ProgramIndex& index() const { return index_; }
  DiagnosticSink& diagnostics() { return diagnostics_; }

 private:
  bool addFile(const std::string& path, std::string* error);
  // Marks the files of replaced packages inactive and warns where a replacement changes
  // something.
  void replacePackages();

  DiagnosticSink& diagnostics_;
  SourceManager sources_;
  std::vector<ParseResult> parsed_;  // parsed_[i] is file i
  std::vector<std::string> layers_;
  std::vector<size_t> layerOfFile_;  // by FileId
  std::vector<bool> active_;         // by FileId, set by check()
  ProgramIndex index_;
};

}  // namespace attrib
