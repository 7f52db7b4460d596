#include "tools/attribc/lsp_server.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "attribc_version.h"
#include "compiler/diagnostic_render.h"
#include "compiler/vocabulary.h"
#include "ir/sha256.h"
#include "tools/stdlib/embedded_stdlib.h"

namespace attrib::tools {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// JSON-RPC and LSP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kServerNotInitialized = -32002;

// LSP enumerations used here.
constexpr int kSeverityError = 1, kSeverityWarning = 2;
constexpr int kCompletionProperty = 10, kCompletionKeyword = 14, kCompletionReference = 18, kCompletionValue = 20;

// Bounds that keep a huge or hostile workspace from stalling the editor.
constexpr size_t kMaxWorkspaceFiles = 5000;

struct RequestError {
  int code;
  std::string message;
};

std::string percentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

size_t utf16Length(std::string_view bytes) {
  size_t n = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    unsigned char c = bytes[i];
    if ((c & 0xC0) == 0x80) continue;  // continuation byte
    n += c >= 0xF0 ? 2 : 1;            // a 4-byte sequence is a surrogate pair
  }
  return n;
}

std::string defaultStdlibDir() {
  std::string all;
  for (const auto& f : embeddedStdlib()) all += std::string(f.name) + '\0' + std::string(f.text) + '\0';
  std::string digest = sha256(all).substr(0, 6);
  std::string hex;
  for (unsigned char c : digest) hex += fmt::format("{:02x}", c);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fmt::format("{}/attrib/stdlib-{}", xdg, hex);
  if (const char* home = std::getenv("HOME"); home && *home) return fmt::format("{}/.cache/attrib/stdlib-{}", home, hex);
  return (fs::temp_directory_path() / fmt::format("attrib-stdlib-{}-{}", ::getuid(), hex)).string();
}

// ---- completion context: where in the text the cursor is

struct CursorContext {
  std::string block;   // "symptom", "filter", "rule", "outcome", "test", or "" at the top level
  std::string prefix;  // the name being typed, up to the cursor
  std::string head;    // the line before the prefix, trimmed
};

// Scans to the cursor skipping strings, comments and regexes, so that braces inside them (a
// `{3}` in a pattern) do not count.
CursorContext contextAt(std::string_view text, size_t cursor) {
  CursorContext ctx;
  int depth = 0;
  std::string lastKeyword, lastWord, pending;
  for (size_t i = 0; i < cursor && i < text.size();) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < cursor && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? cursor : end + 2;
    } else if (c == '"') {
      for (++i; i < cursor && text[i] != '"' && text[i] != '\n'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
    } else if (c == '/' && (lastWord == "match" || lastWord == "=~" || lastWord == "!~")) {
      bool inClass = false;
      for (++i; i < cursor && text[i] != '\n'; ++i) {
        if (text[i] == '\\') { ++i; continue; }
        if (inClass) { inClass = text[i] != ']'; continue; }
        if (text[i] == '[') inClass = true;
        else if (text[i] == '/') break;
      }
      ++i;
      lastWord.clear();
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = i;
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
      lastWord = std::string(text.substr(start, i - start));
      if (depth == 0 && (lastWord == "symptom" || lastWord == "filter" || lastWord == "rule" || lastWord == "outcome" ||
                         lastWord == "test")) {
        pending = lastWord;
      }
    } else {
      if (c == '{') {
        if (depth == 0) ctx.block = pending;
        ++depth;
      } else if (c == '}' && depth > 0) {
        if (--depth == 0) ctx.block.clear();
      } else if (c == '=' || c == '!') {
        if (i + 1 < text.size() && text[i + 1] == '~') lastWord = std::string(1, c) + "~";
      } else if (!std::isspace(static_cast<unsigned char>(c))) {
        lastWord.clear();
      }
      ++i;
    }
  }
  if (depth == 0) ctx.block.clear();
  size_t lineStart = text.rfind('\n', cursor == 0 ? 0 : cursor - 1);
  lineStart = lineStart == std::string_view::npos || cursor == 0 ? 0 : lineStart + 1;
  std::string_view line = text.substr(lineStart, cursor - lineStart);
  size_t p = line.size();
  while (p > 0 && (std::isalnum(static_cast<unsigned char>(line[p - 1])) || line[p - 1] == '_' || line[p - 1] == '.' ||
                   line[p - 1] == '-')) {
    --p;
  }
  ctx.prefix = std::string(line.substr(p));
  std::string head(line.substr(0, p));
  size_t b = head.find_first_not_of(" \t"), e = head.find_last_not_of(" \t");
  ctx.head = b == std::string::npos ? "" : head.substr(b, e - b + 1);
  return ctx;
}

std::string firstWord(const std::string& s) {
  size_t end = 0;
  while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_')) ++end;
  return s.substr(0, end);
}

bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const std::vector<std::string>& metadataNames() {
  static const std::vector<std::string> v = {"title", "description", "ref", "tags", "status", "author", "id"};
  return v;
}

// What starts an item of each block, then its properties.
std::vector<std::pair<std::string, int>> itemsOf(const std::string& block) {
  std::vector<std::pair<std::string, int>> out;
  auto keywords = [&](std::initializer_list<const char*> names) {
    for (const char* n : names) out.emplace_back(n, kCompletionKeyword);
  };
  auto properties = [&](std::initializer_list<const char*> names) {
    for (const char* n : names) out.emplace_back(n, kCompletionProperty);
  };
  if (block == "symptom") {
    keywords({"on", "match", "when", "let"});
    properties({"family", "severity", "blame", "role", "action", "message"});
  } else if (block == "outcome") {
    keywords({"when"});
    properties({"family", "action", "confidence"});
  } else if (block == "rule") {
    keywords({"when", "where", "then"});
    properties({"phase"});
  } else if (block == "filter") {
    keywords({"drop", "keep"});
  } else if (block == "test") {
    keywords({"workload", "log", "metric", "expect"});
    return out;
  } else {
    keywords({"package", "import", "symptom", "filter", "rule", "outcome", "test", "override", "disable"});
    return out;
  }
  for (const auto& m : metadataNames()) out.emplace_back(m, kCompletionProperty);
  return out;
}

const std::vector<std::string>* vocabularyOf(const std::string& property) {
  if (property == "family") return &failureFamilies();
  if (property == "action") return &knownActions();
  if (property == "severity") return &severities();
  if (property == "blame") return &blames();
  if (property == "role") return &roles();
  if (property == "status") return &ruleStatuses();
  if (property == "phase") return &rulePhases();
  return nullptr;
}

}  // namespace

std::optional<std::string> pathOfFileUri(const std::string& uri) {
  static constexpr std::string_view kScheme = "file://";
  if (uri.rfind(kScheme, 0) != 0) return std::nullopt;
  std::string rest = uri.substr(kScheme.size());
  if (rest.rfind("localhost/", 0) == 0) rest = rest.substr(9);
  if (rest.empty() || rest[0] != '/') return std::nullopt;
  return percentDecode(rest);
}

std::string fileUriOf(const std::string& path) {
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::string_view("/-._~").find(static_cast<char>(c)) != std::string_view::npos) out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

int LspServer::run() {
  while (!exited_) {
    json message;
    std::string error;
    LspTransport::Read r = transport_.read(&message, &error);
    if (r == LspTransport::Read::End) break;
    if (r == LspTransport::Read::Malformed) {
      transport_.write({{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", kParseError}, {"message", error}}}});
      continue;
    }
    handle(message);
    // Diagnostics "as you type": one check once the client pauses, not one per keystroke.
    if (dirty_ && !exited_ && !transport_.pending(40)) recheck();
  }
  return shutdown_ && exited_ ? 0 : 1;
}

void LspServer::handle(const json& message) {
  if (!message.contains("method") || !message["method"].is_string()) return;  // a response to us: none expected
  std::string method = message["method"];
  json params = message.value("params", json::object());
  if (!message.contains("id")) {
    notification(method, params);
    return;
  }
  json reply = {{"jsonrpc", "2.0"}, {"id", message["id"]}};
  try {
    bool handled = true;
    json result = request(method, params, &handled);
    if (!handled) throw RequestError{kMethodNotFound, fmt::format("attribc lsp does not implement '{}'", method)};
    reply["result"] = std::move(result);
  } catch (const RequestError& e) {
    reply["error"] = {{"code", e.code}, {"message", e.message}};
  } catch (const json::exception& e) {
    reply["error"] = {{"code", kInvalidParams}, {"message", fmt::format("bad parameters for '{}': {}", method, e.what())}};
  }
  transport_.write(reply);
}

json LspServer::request(const std::string& method, const json& params, bool* handled) {
  if (method == "initialize") {
    if (compilation_) throw RequestError{kInvalidRequest, "initialize was already called"};
    return initialize(params);
  }
  if (!compilation_) throw RequestError{kServerNotInitialized, "the first request must be initialize"};
  if (shutdown_) throw RequestError{kInvalidRequest, "the server is shutting down"};
  if (dirty_) recheck();  // answers see the text as it is now
  if (method == "shutdown") {
    shutdown_ = true;
    return nullptr;
  }
  if (method == "textDocument/definition") return definition(params);
  if (method == "textDocument/hover") return hover(params);
  if (method == "textDocument/completion") return completion(params);
  *handled = false;
  return nullptr;
}

void LspServer::notification(const std::string& method, const json& params) {
  if (method == "exit") {
    exited_ = true;
    return;
  }
  if (!compilation_ || shutdown_) return;
  if (method == "textDocument/didOpen" || method == "textDocument/didChange" || method == "textDocument/didClose") {
    const json& doc = params.at("textDocument");
    auto path = pathOfFileUri(doc.value("uri", ""));
    if (!path) return;
    if (method == "textDocument/didOpen") {
      open_[*path] = doc.value("text", "");
    } else if (method == "textDocument/didChange") {
      // Full synchronisation: the last change holds the whole text.
      const json& changes = params.at("contentChanges");
      if (!changes.empty() && changes.back().contains("text")) open_[*path] = changes.back()["text"];
    } else {
      open_.erase(*path);  // the file on disk counts again
    }
    dirty_ = true;
  } else if (method == "textDocument/didSave" || method == "workspace/didChangeWatchedFiles") {
    dirty_ = true;
  }
}

json LspServer::initialize(const json& params) {
  std::string rootUri;
  if (params.contains("rootUri") && params["rootUri"].is_string()) rootUri = params["rootUri"];
  if (rootUri.empty() && params.contains("workspaceFolders") && params["workspaceFolders"].is_array() &&
      !params["workspaceFolders"].empty()) {
    rootUri = params["workspaceFolders"][0].value("uri", "");
  }
  if (auto path = pathOfFileUri(rootUri)) root_ = fs::path(*path).lexically_normal().string();
  else if (params.contains("rootPath") && params["rootPath"].is_string()) root_ = params["rootPath"];
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (options_.stdlib) {
    if (options_.stdlibDir.empty()) options_.stdlibDir = defaultStdlibDir();
    std::error_code ec;
    if (!fs::exists(fs::path(options_.stdlibDir) / ".complete", ec)) {
      size_t written = 0;
      std::string error;
      if (exportStdlib(options_.stdlibDir, &written, &error)) {
        std::ofstream(fs::path(options_.stdlibDir) / ".complete") << ATTRIB_VERSION << "\n";
      } else {
        transport_.write({{"jsonrpc", "2.0"},
                          {"method", "window/logMessage"},
                          {"params", {{"type", 2}, {"message", "definitions in the stdlib cannot be opened: " + error}}}});
      }
    }
  }
  sink_ = std::make_unique<DiagnosticSink>();
  compilation_ = std::make_unique<Compilation>(*sink_);
  dirty_ = true;
  return {{"capabilities",
           {{"textDocumentSync", {{"openClose", true}, {"change", 1}, {"save", true}}},
            {"definitionProvider", true},
            {"hoverProvider", true},
            {"completionProvider", {{"triggerCharacters", {"."}}, {"resolveProvider", false}}}}},
          {"serverInfo", {{"name", "attribc"}, {"version", ATTRIB_VERSION}}}};
}

std::vector<std::string> LspServer::workspaceFiles() const {
  std::set<std::string> files;
  if (!root_.empty()) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root_, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator() && files.size() < kMaxWorkspaceFiles; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (it->is_directory(ec) && (name.rfind('.', 0) == 0 || name == "node_modules")) {
        it.disable_recursion_pending();
        continue;
      }
      if (it->path().extension() == ".attr" && it->is_regular_file(ec)) files.insert(it->path().lexically_normal().string());
    }
  }
  for (const auto& [path, _] : open_) files.insert(path);
  return {files.begin(), files.end()};
}

void LspServer::recheck() {
  dirty_ = false;
  sink_ = std::make_unique<DiagnosticSink>();
  compilation_ = std::make_unique<Compilation>(*sink_);
  if (options_.stdlib) addStdlibLayer(*compilation_);
  compilation_->beginLayer(root_.empty() ? "the open files" : root_);
  for (const auto& path : workspaceFiles()) {
    if (auto it = open_.find(path); it != open_.end()) {
      compilation_->addSource(path, it->second);
      continue;
    }
    std::error_code ec;
    if (fs::file_size(path, ec) > kMaxRuleFileBytes || ec) continue;
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (in) compilation_->addSource(path, text.str());
  }
  compilation_->check();
  symbols_ = collectSymbols(*compilation_);
  publishDiagnostics();
}

void LspServer::publishDiagnostics() {
  std::map<std::string, json> byUri;
  for (const auto& d : sink_->diagnostics()) {
    FileId file = d.range.valid() ? d.range.file : d.file;
    if (file == kNoFile) continue;
    json item;
    item["range"] = d.range.valid() ? rangeOf(d.range) : json{{"start", {{"line", 0}, {"character", 0}}},
                                                               {"end", {{"line", 0}, {"character", 0}}}};
    item["severity"] = d.severity == Severity::Error ? kSeverityError : kSeverityWarning;
    item["code"] = std::string(info(d.kind).code);
    item["source"] = "attribc";
    std::string message = d.message;
    json related = json::array();
    for (const auto& n : d.notes) {
      if (n.range.valid()) related.push_back({{"location", {{"uri", uriOf(compilation_->sources().file(n.range.file).path())},
                                                            {"range", rangeOf(n.range)}}},
                                              {"message", n.message}});
      else message += "\nnote: " + n.message;
    }
    item["message"] = message;
    if (!related.empty()) item["relatedInformation"] = std::move(related);
    json fixes = json::array();
    for (const auto& f : d.fixits) fixes.push_back({{"range", rangeOf(f.range)}, {"newText", f.replacement}, {"safe", f.safe}});
    if (!fixes.empty()) item["data"] = {{"fixits", std::move(fixes)}};
    byUri[uriOf(compilation_->sources().file(file).path())].push_back(std::move(item));
  }
  for (const auto& uri : published_) {
    if (!byUri.count(uri)) byUri[uri] = json::array();
  }
  published_.clear();
  for (auto& [uri, items] : byUri) {
    if (!items.empty()) published_.insert(uri);
    transport_.write({{"jsonrpc", "2.0"},
                      {"method", "textDocument/publishDiagnostics"},
                      {"params", {{"uri", uri}, {"diagnostics", std::move(items)}}}});
  }
}

std::string LspServer::uriOf(const std::string& path) const {
  if (path.rfind(kStdlibPrefix, 0) == 0 && !options_.stdlibDir.empty()) {
    return fileUriOf(options_.stdlibDir + "/" + path.substr(kStdlibPrefix.size()));
  }
  return fileUriOf(path);
}

std::optional<FileId> LspServer::fileOfUri(const std::string& uri) const {
  auto path = pathOfFileUri(uri);
  if (!path) return std::nullopt;
  std::string name = fs::path(*path).lexically_normal().string();
  if (!options_.stdlibDir.empty() && name.rfind(options_.stdlibDir + "/", 0) == 0) {
    name = std::string(kStdlibPrefix) + name.substr(options_.stdlibDir.size() + 1);
  }
  const SourceManager& sources = compilation_->sources();
  for (FileId id = 0; id < sources.size(); ++id) {
    if (sources.file(id).path() == name) return id;
  }
  return std::nullopt;
}

std::optional<uint32_t> LspServer::offsetOf(FileId file, const json& position) const {
  const SourceFile& f = compilation_->sources().file(file);
  uint32_t line = position.at("line").get<uint32_t>() + 1;
  size_t character = position.at("character").get<size_t>();
  if (line > f.lineCount()) return static_cast<uint32_t>(f.text().size());
  std::string_view text = f.line(line);
  size_t start = static_cast<size_t>(text.data() - f.text().data());
  size_t i = 0, units = 0;
  while (i < text.size() && units < character) {
    unsigned char c = text[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
    units += len == 4 ? 2 : 1;
    i = std::min(text.size(), i + len);
  }
  return static_cast<uint32_t>(start + i);
}

json LspServer::positionOf(FileId file, uint32_t offset) const {
  const SourceFile& f = compilation_->sources().file(file);
  LineColumn lc = f.lineColumn(offset);
  std::string_view line = f.line(lc.line);
  size_t bytes = std::min<size_t>(lc.column - 1, line.size());
  return {{"line", lc.line - 1}, {"character", utf16Length(line.substr(0, bytes))}};
}

json LspServer::rangeOf(const SourceRange& range) const {
  return {{"start", positionOf(range.file, range.begin)}, {"end", positionOf(range.file, range.end)}};
}

std::optional<std::pair<FileId, uint32_t>> LspServer::locate(const json& params) const {
  auto file = fileOfUri(params.at("textDocument").at("uri").get<std::string>());
  if (!file) return std::nullopt;
  auto offset = offsetOf(*file, params.at("position"));
  if (!offset) return std::nullopt;
  return std::pair{*file, *offset};
}

json LspServer::definition(const json& params) {
  auto at = locate(params);
  if (!at) return nullptr;
  auto symbol = symbolAt(symbols_, at->first, at->second);
  if (!symbol) return nullptr;
  auto where = definitionOf(*compilation_, symbol->kind, symbol->target);
  if (!where) return nullptr;
  return {{"uri", uriOf(compilation_->sources().file(where->file).path())}, {"range", rangeOf(*where)}};
}

json LspServer::hover(const json& params) {
  auto at = locate(params);
  if (!at) return nullptr;
  auto symbol = symbolAt(symbols_, at->first, at->second);
  if (!symbol) return nullptr;
  std::string text = describeSymbol(*compilation_, symbol->kind, symbol->target);
  if (text.empty()) return nullptr;
  return {{"contents", {{"kind", "markdown"}, {"value", text}}}, {"range", rangeOf(symbol->range)}};
}

json LspServer::completion(const json& params) {
  auto at = locate(params);
  if (!at) return json::array();
  const SourceFile& file = compilation_->sources().file(at->first);
  CursorContext ctx = contextAt(file.text(), at->second);
  const ProgramIndex& index = compilation_->index();
  // Every item replaces the name typed so far, dots included (editors split words at '.').
  json cursor = positionOf(at->first, at->second);
  json start = positionOf(at->first, at->second - static_cast<uint32_t>(ctx.prefix.size()));
  json items = json::array();
  std::set<std::string> seen;
  auto add = [&](const std::string& label, int kind, const std::string& detail = "") {
    if (label.rfind(ctx.prefix, 0) != 0 || !seen.insert(label).second) return;
    json item = {{"label", label}, {"kind", kind}, {"textEdit", {{"range", {{"start", start}, {"end", cursor}}}, {"newText", label}}}};
    if (!detail.empty()) item["detail"] = detail;
    items.push_back(std::move(item));
  };
  const ast::Module* module = nullptr;
  for (const auto& p : compilation_->parsed()) {
    if (p.module->file == at->first) module = p.module.get();
  }
  std::string own = module ? module->packageName() : "";
  auto symptomNames = [&] {
    for (const auto& [q, info] : index.symptoms) {
      std::string detail = info.decl->title.value_or("");
      add(q, kCompletionReference, detail);
      if (info.package == own) add(info.decl->name.text, kCompletionReference, detail);
      if (!module) continue;
      for (const auto& imp : module->imports) {
        std::string pkg = imp.package.str(), alias = imp.alias ? imp.alias->text : imp.package.parts.back().text;
        if (q.rfind(pkg + ".", 0) == 0) add(alias + q.substr(pkg.size()), kCompletionReference, detail);
      }
    }
  };
  std::string key = firstWord(ctx.head);
  if (ctx.block.empty()) {
    if (ctx.head.empty()) {
      for (const auto& [name, kind] : itemsOf("")) add(name, kind);
    } else if (ctx.head == "import") {
      for (const auto& p : index.packages) {
        if (!p.empty() && p != own) add(p, kCompletionReference);
      }
    } else if (key == "disable" || key == "override") {
      std::string kind = ctx.head.substr(ctx.head.rfind(' ') + 1);
      auto names = [&](const auto& map) {
        for (const auto& [q, _] : map) add(q, kCompletionReference);
      };
      if (kind == "symptom") names(index.symptoms);
      else if (kind == "filter") names(index.filters);
      else if (kind == "rule") names(index.rules);
      else if (kind == "outcome") names(index.outcomes);
      else for (const char* k : {"symptom", "filter", "rule", "outcome"}) add(k, kCompletionKeyword);
    }
  } else if (ctx.head.empty()) {
    for (const auto& [name, kind] : itemsOf(ctx.block)) add(name, kind);
  } else if (const auto* values = vocabularyOf(key); values && (ctx.head == key || endsWith(ctx.head, ","))) {
    for (const auto& v : *values) add(v, kCompletionValue);
  } else if (ctx.head.find("source") != std::string::npos &&
             (endsWith(ctx.head, "[") || endsWith(ctx.head, ",") || endsWith(ctx.head, "=="))) {
    for (const auto& s : logSources()) add(s, kCompletionValue);
  } else if (ctx.block == "test" && ctx.head == "expect") {
    for (const char* k : {"outcome", "root", "bad_nodes", "interesting_nodes", "downstream", "family", "state",
                          "confidence", "action", "symptom"}) {
      add(k, kCompletionKeyword);
    }
  } else if (ctx.block == "test" && ctx.head == "expect outcome") {
    for (const auto& [q, o] : index.outcomes) add(q, kCompletionReference, o->title.value_or(""));
  } else if (ctx.block == "test" && (key == "expect") && ctx.head.find("family") != std::string::npos) {
    for (const auto& v : failureFamilies()) add(v, kCompletionValue);
  } else {
    symptomNames();
  }
  return items;
}

}  // namespace attrib::tools
