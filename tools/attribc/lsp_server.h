// `attribc lsp`: a Language Server for .attr files over stdin/stdout (LSP 3.17, the parts an
// editor needs): diagnostics as the text changes, go to definition across files and into the
// stdlib, hover with a declaration's title, description and references, and completion of
// symptom names, item and property names, and the family, action and other vocabularies.
//
// The workspace's rule set is every .attr file below the root the client names, layered on the
// embedded stdlib as `attribc check` layers it; open documents count with their unsaved text.
// The stdlib's files are written once to a cache directory so that a definition in them can be
// opened (read-only) by the editor.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/compilation.h"
#include "compiler/symbols.h"
#include "tools/attribc/lsp_transport.h"

namespace attrib::tools {

struct LspServerOptions {
  bool stdlib = true;       // layer the workspace on the embedded stdlib
  std::string stdlibDir;    // where the stdlib is written for definitions; empty: a cache default
};

class LspServer {
 public:
  LspServer(LspTransport& transport, LspServerOptions options) : transport_(transport), options_(std::move(options)) {}

  // Serves until `exit`; returns the process exit code (0 after shutdown, 1 otherwise).
  int run();

 private:
  using json = nlohmann::json;

  void handle(const json& message);
  json request(const std::string& method, const json& params, bool* handled);
  void notification(const std::string& method, const json& params);

  json initialize(const json& params);
  json definition(const json& params);
  json hover(const json& params);
  json completion(const json& params);

  // Compiles the workspace again (after changes) and publishes every file's diagnostics.
  void recheck();
  void publishDiagnostics();
  std::vector<std::string> workspaceFiles() const;

  // Conversions between LSP's (URI, line, UTF-16 character) and the compilation's (file, byte).
  std::string uriOf(const std::string& path) const;
  std::optional<FileId> fileOfUri(const std::string& uri) const;
  std::optional<uint32_t> offsetOf(FileId file, const json& position) const;
  json positionOf(FileId file, uint32_t offset) const;
  json rangeOf(const SourceRange& range) const;
  std::optional<std::pair<FileId, uint32_t>> locate(const json& params) const;

  LspTransport& transport_;
  LspServerOptions options_;
  std::string root_;                            // workspace directory; empty: open documents only
  std::map<std::string, std::string> open_;     // path -> unsaved text of open documents
  std::unique_ptr<DiagnosticSink> sink_;
  std::unique_ptr<Compilation> compilation_;
  std::vector<SymbolRef> symbols_;
  std::set<std::string> published_;             // URIs that have diagnostics on the client
  bool dirty_ = false;
  bool shutdown_ = false;
  bool exited_ = false;
};

// file:///a%20b/c.attr -> /a b/c.attr; nullopt for other schemes.
std::optional<std::string> pathOfFileUri(const std::string& uri);
std::string fileUriOf(const std::string& path);

}  // namespace attrib::tools
