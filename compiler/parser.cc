#include "compiler/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "AttrLexer.h"
#include "AttrParser.h"
#include "antlr4-runtime-subset.h"
#include "compiler/literals.h"

namespace attrib {
namespace {

using attrib_antlr::AttrLexer;
using attrib_antlr::AttrParser;
using antlr4::Token;
using antlr4::tree::TerminalNode;

// Feeds raw bytes to ANTLR, one "character" per byte, so every token index is a byte offset
// into the file. Non-ASCII bytes can only appear inside strings, regexes and comments (the
// grammar admits them nowhere else), so nothing is lost; invalid UTF-8 is reported separately.
class ByteInputStream : public antlr4::ANTLRInputStream {
 public:
  explicit ByteInputStream(std::string_view bytes) {
    _data.reserve(bytes.size());
    for (unsigned char c : bytes) _data.push_back(static_cast<char32_t>(c));
    p = 0;
  }
};

// Offsets of invalid UTF-8 sequences (overlongs, surrogates and values past U+10FFFF count).
std::vector<std::pair<size_t, size_t>> invalidUtf8(std::string_view s) {
  std::vector<std::pair<size_t, size_t>> bad;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; ok && k < n; ++k) {
      unsigned char cc = s[i + k];
      if ((cc & 0xC0) != 0x80) ok = false;
      cp = cp << 6 | (cc & 0x3F);
    }
    if (ok) {
      static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) ok = false;
    }
    if (!ok) {
      size_t start = i++;
      while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
      bad.emplace_back(start, i);
    } else {
      i += n;
    }
  }
  return bad;
}

std::string printable(std::string_view bytes, size_t max = 40) {
  std::string out;
  for (unsigned char c : bytes.substr(0, max)) {
    if (c >= 0x20 && c < 0x7F) out += static_cast<char>(c);
    else if (c >= 0x80) out += static_cast<char>(c);  // part of a UTF-8 sequence
    else out += fmt::format("\\x{:02x}", c);
  }
  if (bytes.size() > max) out += "...";
  return out;
}

std::string describeTokenType(const antlr4::dfa::Vocabulary& vocab, size_t type) {
  switch (type) {
    case Token::EOF: return "end of file";
    case AttrLexer::IDENT: return "a name";
    case AttrLexer::INT: return "an integer";
    case AttrLexer::FLOAT: return "a number";
    case AttrLexer::STRING: return "a string";
    case AttrLexer::REGEX: return "a regex";
    case AttrLexer::DURATION: return "a duration";
    case AttrLexer::TIMESTAMP: return "a timestamp";
    case AttrLexer::TIMEOFDAY: return "a time of day";
    default: return vocab.getDisplayName(type);
  }
}

// Soft keywords double as names; when a name is expected they are not listed one by one.
bool isSoftKeyword(size_t type) {
  switch (type) {
    case AttrLexer::NODE: case AttrLexer::RANK: case AttrLexer::GPU: case AttrLexer::LOG:
    case AttrLexer::METRIC: case AttrLexer::SCHEDULER: case AttrLexer::WORKLOAD: case AttrLexer::FIRST:
    case AttrLexer::LAST: case AttrLexer::TEST: case AttrLexer::DROP: case AttrLexer::KEEP: case AttrLexer::MARK:
    case AttrLexer::EXPLAIN: case AttrLexer::EXPECT: case AttrLexer::AT: case AttrLexer::BY: case AttrLexer::PER:
    case AttrLexer::FROM:
      return true;
    default:
      return false;
  }
}

class SyntaxErrorListener : public antlr4::BaseErrorListener {
 public:
  SyntaxErrorListener(const SourceFile& file, FileId id, DiagnosticSink& sink, std::vector<uint32_t>& errorOffsets)
      : file_(file), id_(id), sink_(sink), errorOffsets_(errorOffsets) {}

  void syntaxError(antlr4::Recognizer* recognizer, Token* offending, size_t, size_t, const std::string& msg,
                   std::exception_ptr) override {
    auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
    uint32_t size = static_cast<uint32_t>(file_.text().size());
    SourceRange range{id_, size, size};
    std::string found = "end of file";
    if (offending && offending->getType() != Token::EOF && offending->getStartIndex() != INVALID_INDEX) {
      range = {id_, static_cast<uint32_t>(offending->getStartIndex()),
               static_cast<uint32_t>(offending->getStopIndex() + 1)};
      found = "'" + printable(std::string_view(file_.text()).substr(range.begin, range.end - range.begin)) + "'";
    }
    errorOffsets_.push_back(range.begin);
    std::string expected;
    if (parser) {
      antlr4::misc::IntervalSet set = parser->getExpectedTokens();
      bool wantsName = set.contains(static_cast<size_t>(AttrLexer::IDENT));
      std::vector<std::string> names;
      for (size_t t : set.toList()) {
        if (wantsName && isSoftKeyword(t)) continue;
        names.push_back(describeTokenType(parser->getVocabulary(), t));
      }
      if (!names.empty() && names.size() <= 8) {
        expected = names.size() == 1 ? names[0] : "one of " + fmt::format("{}", fmt::join(names, ", "));
      }
    }
    std::string message;
    if (msg.rfind("missing ", 0) == 0 && !expected.empty()) {
      message = fmt::format("missing {} before {}", expected, found);
    } else if (!expected.empty()) {
      message = fmt::format("unexpected {}; expected {}", found, expected);
    } else {
      message = fmt::format("unexpected {}", found);
    }
    sink_.report(DiagKind::SyntaxError, range, std::move(message));
  }

 private:
  const SourceFile& file_;
  FileId id_;
  DiagnosticSink& sink_;
  std::vector<uint32_t>& errorOffsets_;
};

// Depth of a parse tree, iteratively: hostile input must not overflow the stack here either.
size_t treeDepth(antlr4::tree::ParseTree* root, size_t limit) {
  std::vector<std::pair<antlr4::tree::ParseTree*, size_t>> stack{{root, 1}};
  size_t deepest = 0;
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, depth);
    if (deepest > limit) return deepest;
    for (auto* child : node->children) stack.emplace_back(child, depth + 1);
  }
  return deepest;
}

// Converts the parse tree to the AST, reporting malformed literals on the way. Every accessor
// may return null after error recovery, so every step checks.
class AstBuilder {
 public:
  AstBuilder(const SourceFile& file, FileId id, DiagnosticSink& sink, const std::vector<uint32_t>& errorOffsets,
             std::vector<LayoutToken>& layout)
      : file_(file), id_(id), sink_(sink), errorOffsets_(errorOffsets), layout_(layout) {}

  std::unique_ptr<ast::Module> build(AttrParser::FileContext* ctx) {
    auto module = std::make_unique<ast::Module>();
    module->file = id_;
    if (!ctx) return module;
    if (auto* pkg = ctx->packageDecl()) {
      startItem(pkg);
      if (pkg->qualifiedName()) module->package = qualifiedName(pkg->qualifiedName());
    }
    for (auto* imp : ctx->importDecl()) {
      startItem(imp);
      if (!imp->qualifiedName()) continue;
      ast::Import import;
      import.package = qualifiedName(imp->qualifiedName());
      if (imp->ident()) import.alias = ident(imp->ident());
      import.range = range(imp);
      module->imports.push_back(std::move(import));
    }
    for (auto* decl : ctx->declaration()) {
      startItem(decl);
      if (auto* l = layoutAt(decl->getStart())) l->startsDecl = true;
      if (auto* s = decl->symptomDecl()) buildInto(module.get(), symptom(s));
      else if (auto* f = decl->filterDecl()) buildInto(module.get(), filter(f));
      else if (auto* r = decl->ruleDecl()) buildInto(module.get(), rule(r));
      else if (auto* o = decl->outcomeDecl()) buildInto(module.get(), outcome(o));
      else if (auto* t = decl->testDecl()) buildInto(module.get(), test(t));
    }
    return module;
  }

 private:
  template <typename Decl>
  void buildInto(ast::Module* module, std::optional<Decl> decl) {
    if (decl) module->declarations.emplace_back(std::move(*decl));
  }

  // ---- positions and layout

  SourceRange range(Token* t) const {
    if (!t || t->getStartIndex() == INVALID_INDEX || t->getType() == Token::EOF) {
      uint32_t end = static_cast<uint32_t>(file_.text().size());
      return {id_, end, end};
    }
    return {id_, static_cast<uint32_t>(t->getStartIndex()), static_cast<uint32_t>(t->getStopIndex() + 1)};
  }
  SourceRange range(TerminalNode* n) const { return range(n ? n->getSymbol() : nullptr); }
  SourceRange range(antlr4::ParserRuleContext* ctx) const {
    if (!ctx) return {};
    SourceRange a = range(ctx->getStart());
    Token* stop = ctx->getStop();
    if (!stop || stop->getStartIndex() == INVALID_INDEX || stop->getTokenIndex() < ctx->getStart()->getTokenIndex()) return a;
    return SourceRange::cover(a, range(stop));
  }
  std::string_view textOf(const SourceRange& r) const {
    return std::string_view(file_.text()).substr(r.begin, r.end - r.begin);
  }
  std::string textOf(TerminalNode* n) const { return std::string(textOf(range(n))); }

  // False for tokens the parser conjured while recovering from a syntax error ("missing X"):
  // they have no text in the file.
  static bool present(TerminalNode* n) {
    return n && n->getSymbol() && n->getSymbol()->getStartIndex() != INVALID_INDEX &&
           n->getSymbol()->getType() != Token::EOF;
  }

  bool containsSyntaxError(antlr4::ParserRuleContext* ctx) const {
    SourceRange r = range(ctx);
    for (uint32_t off : errorOffsets_) {
      if (off >= r.begin && off <= r.end) return true;
    }
    return ctx->exception != nullptr;
  }

  LayoutToken* layoutAt(Token* t) {
    if (!t || t->getTokenIndex() >= layout_.size() || t->getStartIndex() == INVALID_INDEX) return nullptr;
    return &layout_[t->getTokenIndex()];
  }
  void startItem(antlr4::ParserRuleContext* ctx) {
    if (auto* l = layoutAt(ctx ? ctx->getStart() : nullptr)) l->startsItem = true;
  }
  void glue(Token* t) {
    if (auto* l = layoutAt(t)) l->glued = true;
  }
  void glue(TerminalNode* n) { glue(n ? n->getSymbol() : nullptr); }
  void glueStart(antlr4::ParserRuleContext* ctx) { glue(ctx ? ctx->getStart() : nullptr); }
  void markBlock(TerminalNode* open, TerminalNode* close) {
    if (auto* l = layoutAt(open ? open->getSymbol() : nullptr)) l->openBrace = true;
    if (auto* l = layoutAt(close ? close->getSymbol() : nullptr)) l->closeBrace = true;
  }

  // ---- names

  ast::Ident ident(AttrParser::IdentContext* ctx) {
    if (!ctx) return {};
    SourceRange r = range(ctx);
    return {std::string(textOf(r)), r};
  }

  ast::QualifiedName qualifiedName(AttrParser::QualifiedNameContext* ctx) {
    ast::QualifiedName q;
    if (!ctx) return q;
    for (auto* id : ctx->ident()) q.parts.push_back(ident(id));
    for (auto* dot : ctx->DOT()) glue(dot);
    for (size_t i = 1; i < ctx->ident().size(); ++i) glueStart(ctx->ident(i));
    q.range = range(ctx);
    return q;
  }

  ast::Selector selector(AttrParser::SelectorContext* ctx) {
    ast::Selector s;
    if (!ctx) return s;
    s.range = range(ctx);
    if (!ctx->qualifiedName()) {
      s.kind = ast::Selector::Kind::All;
      return s;
    }
    s.name = qualifiedName(ctx->qualifiedName());
    if (ctx->STAR()) {
      s.kind = ast::Selector::Kind::Prefix;
      glue(ctx->DOT());
      glue(ctx->STAR());
    }
    return s;
  }

  std::vector<ast::Selector> selectors(AttrParser::SelectorListContext* ctx) {
    std::vector<ast::Selector> out;
    if (ctx) for (auto* s : ctx->selector()) out.push_back(selector(s));
    return out;
  }

  // A word must be written without spaces: `accelerator-gpu`, not `accelerator - gpu`.
  ast::PropertyValue word(antlr4::ParserRuleContext* ctx) {
    ast::PropertyValue v;
    v.kind = ast::PropertyValue::Kind::Word;
    if (!ctx) return v;
    v.range = range(ctx);
    size_t prevEnd = SIZE_MAX;
    bool spaced = false;
    for (auto* child : ctx->children) {
      auto* tree = dynamic_cast<antlr4::ParserRuleContext*>(child);
      Token* start = tree ? tree->getStart() : dynamic_cast<TerminalNode*>(child)->getSymbol();
      Token* stop = tree ? tree->getStop() : start;
      if (!start || start->getStartIndex() == INVALID_INDEX) continue;
      if (prevEnd != SIZE_MAX) {
        if (start->getStartIndex() != prevEnd) spaced = true;
        glue(start);
      }
      prevEnd = stop->getStopIndex() + 1;
    }
    v.text = std::string(textOf(v.range));
    if (spaced) {
      std::string joined;
      for (char c : v.text) if (c != ' ' && c != '\t') joined += c;
      sink_.report(DiagKind::SpacedWord, v.range,
                   fmt::format("'{}' must be written without spaces (as '{}')", v.text, joined));
      v.text = joined;
    }
    return v;
  }

  // ---- literals

  std::optional<int64_t> integer(TerminalNode* n) {
    if (!present(n)) return std::nullopt;
    std::string t = textOf(n);
    // A malformed number (5min) was reported by the lexical pass and parses on as an INT.
    if (t.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size()) {
      sink_.report(DiagKind::MalformedLiteral, range(n),
                   fmt::format("integer literal '{}' does not fit in 64 bits", printable(t)));
      return std::nullopt;
    }
    return v;
  }

  double floating(TerminalNode* n) {
    if (!present(n)) return 0;
    std::string t = textOf(n);
    double v = std::strtod(t.c_str(), nullptr);
    if (!std::isfinite(v)) {
      sink_.report(DiagKind::MalformedLiteral, range(n), fmt::format("number literal '{}' is out of range", printable(t)));
      return 0;
    }
    return v;
  }

  int64_t duration(TerminalNode* n) {
    if (!present(n)) return 0;
    std::string t = textOf(n);
    auto v = parseDuration(t);
    // A malformed spelling (5min) was reported by the lexical pass; only overflow is new here.
    if (!v && t.find_first_not_of("0123456789mshdu") != std::string::npos) return 0;
    if (!v) {
      sink_.report(DiagKind::MalformedLiteral, range(n),
                   fmt::format("duration '{}' is out of range (at most about 292 years)", printable(textOf(n))));
      return 0;
    }
    return *v;
  }

  int64_t timestamp(TerminalNode* n) {
    if (!present(n)) return 0;
    auto v = parseTimestamp(textOf(n));
    if (!v) {
      sink_.report(DiagKind::MalformedLiteral, range(n),
                   fmt::format("invalid timestamp '{}': not a real date and time", printable(textOf(n))));
      return 0;
    }
    return *v;
  }

  std::string string(TerminalNode* n) {
    if (!present(n)) return {};
    std::string t = textOf(n);
    if (!stringIsTerminated(t)) return t.substr(1);  // reported by the lexical pass
    DecodedString d = decodeString(t);
    if (!d.error.empty()) {
      SourceRange r = range(n);
      uint32_t at = r.begin + static_cast<uint32_t>(d.errorOffset);
      sink_.report(DiagKind::MalformedLiteral, SourceRange{id_, at, std::min(r.end, at + 2)}, d.error);
    }
    return d.value;
  }

  ast::Regex regex(TerminalNode* n) {
    ast::Regex re;
    if (!present(n)) return re;
    re.range = range(n);
    std::string t = textOf(n);
    size_t close = regexClosingSlash(t);
    if (close == std::string::npos) close = t.size();  // reported by the lexical pass
    re.pattern = t.substr(1, close - 1);
    re.flags = close < t.size() ? t.substr(close + 1) : "";
    re.patternRange = {id_, re.range.begin + 1, re.range.begin + static_cast<uint32_t>(close)};
    return re;
  }

  ast::PropertyValue signedNumber(AttrParser::SignedNumberContext* ctx) {
    ast::PropertyValue v;
    if (!ctx) return v;
    v.range = range(ctx);
    bool negative = ctx->MINUS() != nullptr;
    if (negative) glue(ctx->INT() ? ctx->INT() : ctx->FLOAT());
    if (ctx->INT()) {
      v.kind = ast::PropertyValue::Kind::Int;
      v.intValue = integer(ctx->INT()).value_or(0) * (negative ? -1 : 1);
      v.floatValue = static_cast<double>(v.intValue);
    } else if (ctx->FLOAT()) {
      v.kind = ast::PropertyValue::Kind::Float;
      v.floatValue = floating(ctx->FLOAT()) * (negative ? -1 : 1);
    }
    v.text = std::string(textOf(v.range));
    return v;
  }

  ast::PropertyValue propertyValue(AttrParser::PropertyValueContext* ctx) {
    ast::PropertyValue v;
    if (!ctx) return v;
    v.range = range(ctx);
    v.text = std::string(textOf(v.range));
    using K = ast::PropertyValue::Kind;
    if (ctx->STRING()) { v.kind = K::String; v.text = string(ctx->STRING()); }
    else if (ctx->signedNumber()) { return signedNumber(ctx->signedNumber()); }
    else if (ctx->DURATION()) { v.kind = K::Duration; v.intValue = duration(ctx->DURATION()); }
    else if (ctx->TIMESTAMP()) { v.kind = K::Timestamp; v.intValue = timestamp(ctx->TIMESTAMP()); }
    else if (ctx->NONE()) { v.kind = K::None; }
    else if (ctx->TRUE() || ctx->FALSE()) { v.kind = K::Bool; v.boolValue = ctx->TRUE() != nullptr; }
    else if (ctx->word()) { return word(ctx->word()); }
    else if (auto* list = ctx->propertyList()) {
      v.kind = K::List;
      for (auto* item : list->propertyValue()) v.items.push_back(propertyValue(item));
    }
    return v;
  }

  // The non-word forms of an expectation argument, read like property values.
  ast::PropertyValue expectValue(AttrParser::ExpectArgContext* ctx) {
    ast::PropertyValue v;
    v.range = range(ctx);
    v.text = std::string(textOf(v.range));
    using K = ast::PropertyValue::Kind;
    if (ctx->STRING()) { v.kind = K::String; v.text = string(ctx->STRING()); }
    else if (ctx->signedNumber()) { return signedNumber(ctx->signedNumber()); }
    else if (ctx->DURATION()) { v.kind = K::Duration; v.intValue = duration(ctx->DURATION()); }
    else if (ctx->TIMESTAMP()) { v.kind = K::Timestamp; v.intValue = timestamp(ctx->TIMESTAMP()); }
    else if (ctx->NONE()) { v.kind = K::None; }
    else if (ctx->TRUE() || ctx->FALSE()) { v.kind = K::Bool; v.boolValue = ctx->TRUE() != nullptr; }
    else if (auto* list = ctx->propertyList()) {
      v.kind = K::List;
      for (auto* item : list->propertyValue()) v.items.push_back(propertyValue(item));
    }
    return v;
  }

  ast::Property property(AttrParser::PropertyContext* ctx) {
    ast::Property p;
    p.name = ident(ctx->ident());
    for (auto* v : ctx->propertyValue()) p.values.push_back(propertyValue(v));
    p.range = range(ctx);
    return p;
  }

  std::optional<std::string> title(TerminalNode* n, SourceRange* where = nullptr) {
    if (!n) return std::nullopt;
    if (where) *where = range(n);
    return string(n);
  }

  // ---- expressions

  ast::ExprPtr make(ast::ExprKind kind, antlr4::ParserRuleContext* ctx) {
    auto e = std::make_unique<ast::Expr>();
    e->kind = kind;
    e->range = range(ctx);
    return e;
  }

  ast::ExprPtr expr(AttrParser::ExprContext* ctx) {
    if (!ctx) return nullptr;
    using K = ast::ExprKind;
    if (auto* c = dynamic_cast<AttrParser::PrimaryExprContext*>(ctx)) return primary(c->primary());
    if (auto* c = dynamic_cast<AttrParser::MemberExprContext*>(ctx)) {
      glue(c->DOT());
      glueStart(c->ident());
      auto e = make(K::Member, c);
      e->name.parts.push_back(ident(c->ident()));
      e->operands.push_back(expr(c->expr()));
      return complete(std::move(e));
    }
    if (auto* c = dynamic_cast<AttrParser::NegateExprContext*>(ctx)) {
      glueStart(c->expr());
      auto e = make(K::Negate, c);
      e->operands.push_back(expr(c->expr()));
      return complete(std::move(e));
    }
    if (auto* c = dynamic_cast<AttrParser::NotExprContext*>(ctx)) {
      auto e = make(K::Not, c);
      e->operands.push_back(expr(c->expr()));
      return complete(std::move(e));
    }
    if (auto* c = dynamic_cast<AttrParser::MultiplyExprContext*>(ctx)) {
      return binary(c, c->expr(0), c->expr(1), c->op ? c->op->getType() : 0);
    }
    if (auto* c = dynamic_cast<AttrParser::AddExprContext*>(ctx)) {
      return binary(c, c->expr(0), c->expr(1), c->op ? c->op->getType() : 0);
    }
    if (auto* c = dynamic_cast<AttrParser::CompareExprContext*>(ctx)) {
      auto* op = c->compareOp();
      return binary(c, c->expr(0), c->expr(1), op && op->getStart() ? op->getStart()->getType() : 0);
    }
    if (auto* c = dynamic_cast<AttrParser::AndExprContext*>(ctx)) return binary(c, c->expr(0), c->expr(1), AttrLexer::AND);
    if (auto* c = dynamic_cast<AttrParser::OrExprContext*>(ctx)) return binary(c, c->expr(0), c->expr(1), AttrLexer::OR);
    if (auto* c = dynamic_cast<AttrParser::InExprContext*>(ctx)) {
      auto e = make(K::In, c);
      e->negated = c->NOT() != nullptr;
      e->operands.push_back(expr(c->expr(0)));
      e->operands.push_back(expr(c->expr(1)));
      return complete(std::move(e));
    }
    if (auto* c = dynamic_cast<AttrParser::RegexMatchExprContext*>(ctx)) {
      auto e = make(K::RegexMatch, c);
      e->negated = c->op && c->op->getType() == AttrLexer::NOT_MATCHES;
      e->operands.push_back(expr(c->expr()));
      if (!present(c->REGEX())) return nullptr;
      e->regex = regex(c->REGEX());
      return complete(std::move(e));
    }
    if (auto* c = dynamic_cast<AttrParser::IsExprContext*>(ctx)) {
      auto e = make(K::Is, c);
      e->negated = c->NOT() != nullptr;
      e->operands.push_back(expr(c->expr()));
      if (c->NONE()) e->isNone = true;
      else if (c->selector()) e->selector = selector(c->selector());
      else return nullptr;
      return complete(std::move(e));
    }
    return nullptr;
  }

  // Drops nodes whose operands failed to build (only possible after a syntax error).
  ast::ExprPtr complete(ast::ExprPtr e) {
    for (const auto& op : e->operands) if (!op) return nullptr;
    return e;
  }

  ast::ExprPtr binary(antlr4::ParserRuleContext* ctx, AttrParser::ExprContext* lhs, AttrParser::ExprContext* rhs,
                      size_t tokenType) {
    auto e = make(ast::ExprKind::Binary, ctx);
    switch (tokenType) {
      case AttrLexer::PLUS: e->op = ast::BinaryOp::Add; break;
      case AttrLexer::MINUS: e->op = ast::BinaryOp::Sub; break;
      case AttrLexer::STAR: e->op = ast::BinaryOp::Mul; break;
      case AttrLexer::SLASH: e->op = ast::BinaryOp::Div; break;
      case AttrLexer::PERCENT: e->op = ast::BinaryOp::Mod; break;
      case AttrLexer::EQ: e->op = ast::BinaryOp::Eq; break;
      case AttrLexer::NE: e->op = ast::BinaryOp::Ne; break;
      case AttrLexer::LT: e->op = ast::BinaryOp::Lt; break;
      case AttrLexer::LE: e->op = ast::BinaryOp::Le; break;
      case AttrLexer::GT: e->op = ast::BinaryOp::Gt; break;
      case AttrLexer::GE: e->op = ast::BinaryOp::Ge; break;
      case AttrLexer::AND: e->op = ast::BinaryOp::And; break;
      case AttrLexer::OR: e->op = ast::BinaryOp::Or; break;
      default: return nullptr;
    }
    e->operands.push_back(expr(lhs));
    e->operands.push_back(expr(rhs));
    return complete(std::move(e));
  }

  ast::ExprPtr primary(AttrParser::PrimaryContext* ctx) {
    if (!ctx) return nullptr;
    using K = ast::ExprKind;
    if (auto* c = dynamic_cast<AttrParser::LiteralPrimaryContext*>(ctx)) return literal(c->literal());
    if (auto* c = dynamic_cast<AttrParser::ParenPrimaryContext*>(ctx)) {
      glueStart(c->expr());
      auto inner = expr(c->expr());
      if (inner) inner->range = range(c);  // diagnostics point at the whole parenthesised text
      return inner;
    }
    if (auto* c = dynamic_cast<AttrParser::NamePrimaryContext*>(ctx)) {
      auto e = make(K::Name, c);
      e->name = qualifiedName(c->qualifiedName());
      e->text = e->name.str();
      return e->name.parts.empty() ? nullptr : std::move(e);
    }
    if (auto* c = dynamic_cast<AttrParser::SamePrimaryContext*>(ctx)) {
      auto e = make(K::Same, c);
      e->name.parts.push_back(ident(c->ident()));
      return e;
    }
    if (auto* c = dynamic_cast<AttrParser::ListPrimaryContext*>(ctx)) {
      auto e = make(K::List, c);
      for (auto* item : c->expr()) e->operands.push_back(expr(item));
      if (!c->expr().empty()) glueStart(c->expr(0));
      return complete(std::move(e));
    }
    if (auto* c = dynamic_cast<AttrParser::RangePrimaryContext*>(ctx)) {
      auto e = make(K::Range, c);
      glueStart(c->expr(0));
      e->operands.push_back(expr(c->expr(0)));
      e->operands.push_back(expr(c->expr(1)));
      return complete(std::move(e));
    }
    if (auto* c = dynamic_cast<AttrParser::CallPrimaryContext*>(ctx)) {
      auto e = make(K::Call, c);
      e->name.parts.push_back(ident(c->ident()));
      glue(c->LPAREN());
      if (!c->callArg().empty()) glueStart(c->callArg(0));
      for (auto* arg : c->callArg()) {
        auto a = callArg(arg);
        if (!a) return nullptr;
        e->args.push_back(std::move(*a));
      }
      if (c->DURATION()) {
        e->over = duration(c->DURATION());
        e->overRange = SourceRange::cover(range(c->OVER()), range(c->DURATION()));
      }
      return e;
    }
    return nullptr;
  }

  std::optional<ast::CallArg> callArg(AttrParser::CallArgContext* ctx) {
    ast::CallArg a;
    a.range = range(ctx);
    AttrParser::IdentContext* alias = nullptr;
    AttrParser::IdentContext* same = nullptr;
    AttrParser::ExprContext* where = nullptr;
    if (auto* c = dynamic_cast<AttrParser::WildcardArgContext*>(ctx)) {
      ast::Selector s;
      s.range = a.range;
      if (c->qualifiedName()) {
        s.kind = ast::Selector::Kind::Prefix;
        s.name = qualifiedName(c->qualifiedName());
        glue(c->DOT());
        glue(c->STAR());
        s.range = SourceRange::cover(range(c->qualifiedName()), range(c->STAR()));
      } else {
        s.kind = ast::Selector::Kind::All;
        s.range = range(c->STAR());
      }
      a.selector = std::move(s);
      auto ids = c->ident();
      size_t next = 0;
      if (c->AS() && next < ids.size()) alias = ids[next++];
      if (c->SAME() && next < ids.size()) same = ids[next++];
      where = c->expr();
    } else if (auto* c = dynamic_cast<AttrParser::ExprArgContext*>(ctx)) {
      auto ids = c->ident();
      size_t next = 0;
      if (c->AS() && next < ids.size()) alias = ids[next++];
      if (c->SAME() && next < ids.size()) same = ids[next++];
      auto exprs = c->expr();
      if (exprs.empty()) return std::nullopt;
      a.value = expr(exprs[0]);
      if (!a.value) return std::nullopt;
      if (c->WHERE() && exprs.size() > 1) where = exprs[1];
    } else {
      return std::nullopt;
    }
    if (alias) a.alias = ident(alias);
    if (same) a.sameKey = ident(same);
    if (where) {
      a.where = expr(where);
      if (!a.where) return std::nullopt;
    }
    return a;
  }

  ast::ExprPtr literal(AttrParser::LiteralContext* ctx) {
    if (!ctx) return nullptr;
    using K = ast::ExprKind;
    auto e = make(K::Int, ctx);
    e->text = std::string(textOf(e->range));
    if (ctx->INT()) { e->intValue = integer(ctx->INT()).value_or(0); }
    else if (ctx->FLOAT()) { e->kind = K::Float; e->floatValue = floating(ctx->FLOAT()); }
    else if (ctx->STRING()) { e->kind = K::String; e->text = string(ctx->STRING()); }
    else if (ctx->DURATION()) { e->kind = K::Duration; e->intValue = duration(ctx->DURATION()); }
    else if (ctx->TIMESTAMP()) { e->kind = K::Time; e->intValue = timestamp(ctx->TIMESTAMP()); }
    else if (ctx->TRUE() || ctx->FALSE()) { e->kind = K::Bool; e->boolValue = ctx->TRUE() != nullptr; }
    else if (ctx->NONE()) { e->kind = K::None; }
    else return nullptr;
    return e;
  }

  // ---- declarations

  template <typename Items>
  void startItems(const Items& items) {
    for (auto* item : items) startItem(item);
  }

  std::optional<ast::SymptomDecl> symptom(AttrParser::SymptomDeclContext* ctx) {
    if (!ctx->ident()) return std::nullopt;
    ast::SymptomDecl d;
    d.name = ident(ctx->ident());
    d.title = title(ctx->STRING(), &d.titleRange);
    d.range = range(ctx);
    d.broken = containsSyntaxError(ctx);
    markBlock(ctx->LBRACE(), ctx->RBRACE());
    startItems(ctx->symptomItem());
    for (auto* item : ctx->symptomItem()) {
      if (auto* c = dynamic_cast<AttrParser::OnItemContext*>(item)) {
        if (auto s = stream(c->streamSpec())) d.streams.push_back(std::move(*s));
      } else if (auto* c = dynamic_cast<AttrParser::MatchItemContext*>(item)) {
        if (present(c->REGEX())) d.matches.push_back(regex(c->REGEX()));
      } else if (auto* c = dynamic_cast<AttrParser::WhenItemContext*>(item)) {
        if (d.when) {
          sink_.report(DiagKind::DuplicateProperty, range(c), "a symptom has one 'when' clause; combine them with 'and'")
              .note(d.when->range, "the first 'when' clause is here");
          continue;
        }
        d.when = expr(c->expr());
        if (c->DURATION()) {
          d.sustained = duration(c->DURATION());
          d.sustainedRange = SourceRange::cover(range(c->FOR()), range(c->DURATION()));
        }
      } else if (auto* c = dynamic_cast<AttrParser::SymptomPropertyItemContext*>(item)) {
        if (c->property()) d.properties.push_back(property(c->property()));
      }
    }
    return d;
  }

  std::optional<ast::StreamSpec> stream(AttrParser::StreamSpecContext* ctx) {
    if (!ctx) return std::nullopt;
    ast::StreamSpec s;
    s.range = range(ctx);
    if (auto* c = dynamic_cast<AttrParser::LogStreamContext*>(ctx)) {
      s.kind = ast::StreamSpec::Kind::Log;
      glue(c->LPAREN());
      if (c->ident()) {
        glueStart(c->ident());
        s.filterField = ident(c->ident());
        if (c->propertyList()) {
          for (auto* v : c->propertyList()->propertyValue()) s.sources.push_back(propertyValue(v));
        } else if (c->word()) {
          s.sources.push_back(word(c->word()));
        } else if (present(c->STRING())) {
          ast::PropertyValue v;
          v.kind = ast::PropertyValue::Kind::String;
          v.text = string(c->STRING());
          v.range = range(c->STRING());
          s.sources.push_back(std::move(v));
        }
      }
    } else if (auto* c = dynamic_cast<AttrParser::MetricStreamContext*>(ctx)) {
      s.kind = ast::StreamSpec::Kind::Metric;
      s.metric = c->STRING() ? string(c->STRING()) : std::string(textOf(range(c->ident())));
    } else {
      s.kind = ast::StreamSpec::Kind::Scheduler;
    }
    return s;
  }

  std::optional<ast::FilterDecl> filter(AttrParser::FilterDeclContext* ctx) {
    if (!ctx->ident()) return std::nullopt;
    ast::FilterDecl d;
    d.name = ident(ctx->ident());
    d.title = title(ctx->STRING());
    d.range = range(ctx);
    d.broken = containsSyntaxError(ctx);
    markBlock(ctx->LBRACE(), ctx->RBRACE());
    startItems(ctx->filterItem());
    for (auto* item : ctx->filterItem()) {
      ast::FilterStmt s;
      s.range = range(item);
      if (auto* c = dynamic_cast<AttrParser::DropItemContext*>(item)) {
        s.kind = ast::FilterStmt::Kind::Drop;
        s.targets = selectors(c->selectorList());
        if (c->expr()) s.where = expr(c->expr());
      } else if (auto* c = dynamic_cast<AttrParser::KeepPerItemContext*>(item)) {
        s.kind = ast::FilterStmt::Kind::KeepPer;
        s.keepFirst = c->FIRST() != nullptr;
        if (c->INT()) s.keepCount = integer(c->INT()).value_or(1);
        s.targets = selectors(c->selectorList());
        if (c->identList()) for (auto* id : c->identList()->ident()) s.keys.push_back(ident(id));
      } else if (auto* c = dynamic_cast<AttrParser::KeepWhereItemContext*>(item)) {
        s.kind = ast::FilterStmt::Kind::KeepWhere;
        s.targets = selectors(c->selectorList());
        s.where = expr(c->expr());
      } else if (auto* c = dynamic_cast<AttrParser::FilterPropertyItemContext*>(item)) {
        if (c->property()) d.properties.push_back(property(c->property()));
        continue;
      }
      d.statements.push_back(std::move(s));
    }
    return d;
  }

  std::optional<ast::RuleDecl> rule(AttrParser::RuleDeclContext* ctx) {
    if (!ctx->ident()) return std::nullopt;
    ast::RuleDecl d;
    d.name = ident(ctx->ident());
    d.title = title(ctx->STRING());
    d.range = range(ctx);
    d.broken = containsSyntaxError(ctx);
    markBlock(ctx->LBRACE(), ctx->RBRACE());
    startItems(ctx->ruleItem());
    for (auto* item : ctx->ruleItem()) {
      if (auto* c = dynamic_cast<AttrParser::RuleWhenItemContext*>(item)) {
        d.whenRanges.push_back(range(c));
        for (auto* b : c->binding()) {
          if (!b->ident()) continue;
          d.bindings.push_back({selector(b->selector()), ident(b->ident()), range(b), {}});
        }
      } else if (auto* c = dynamic_cast<AttrParser::RuleWhereItemContext*>(item)) {
        d.whereRanges.push_back(range(c));
        auto e = expr(c->expr());
        if (!e) continue;
        if (!d.where) {
          d.where = std::move(e);
        } else {
          sink_.report(DiagKind::DuplicateProperty, range(c), "a rule has one 'where' clause; combine them with 'and'")
              .note(d.where->range, "the first 'where' clause is here");
        }
      } else if (auto* c = dynamic_cast<AttrParser::RuleThenItemContext*>(item)) {
        for (auto* a : c->ruleAction()) {
          ast::RuleAction action;
          action.range = range(a);
          if (auto* x = dynamic_cast<AttrParser::ExplainActionContext*>(a)) {
            action.kind = ast::RuleAction::Kind::Explain;
            action.subject = ident(x->ident(0));
            action.object = ident(x->ident(1));
          } else if (auto* x = dynamic_cast<AttrParser::MarkActionContext*>(a)) {
            action.kind = ast::RuleAction::Kind::Mark;
            action.subject = ident(x->ident(0));
            action.object = ident(x->ident(1));
          } else if (auto* x = dynamic_cast<AttrParser::DropActionContext*>(a)) {
            action.kind = ast::RuleAction::Kind::Drop;
            action.subject = ident(x->ident());
          }
          d.actions.push_back(std::move(action));
        }
      } else if (auto* c = dynamic_cast<AttrParser::RulePropertyItemContext*>(item)) {
        if (c->property()) d.properties.push_back(property(c->property()));
      }
    }
    return d;
  }

  std::optional<ast::OutcomeDecl> outcome(AttrParser::OutcomeDeclContext* ctx) {
    if (!ctx->ident()) return std::nullopt;
    ast::OutcomeDecl d;
    d.name = ident(ctx->ident());
    d.title = title(ctx->STRING());
    d.range = range(ctx);
    d.broken = containsSyntaxError(ctx);
    markBlock(ctx->LBRACE(), ctx->RBRACE());
    startItems(ctx->outcomeItem());
    for (auto* item : ctx->outcomeItem()) {
      if (auto* c = dynamic_cast<AttrParser::OutcomeWhenItemContext*>(item)) {
        d.whenRanges.push_back(range(c));
        auto e = expr(c->expr());
        if (!e) continue;
        if (!d.when) {
          d.when = std::move(e);
        } else {
          sink_.report(DiagKind::DuplicateProperty, range(c), "an outcome has one 'when' clause; combine them with 'and' or 'or'")
              .note(d.when->range, "the first 'when' clause is here");
        }
      } else if (auto* c = dynamic_cast<AttrParser::OutcomePropertyItemContext*>(item)) {
        if (c->property()) d.properties.push_back(property(c->property()));
      }
    }
    return d;
  }

  ast::TestTime testTime(AttrParser::TimeValueContext* ctx) {
    ast::TestTime t;
    if (!ctx) return t;
    t.range = range(ctx);
    if (ctx->TIMESTAMP()) {
      t.kind = ast::TestTime::Kind::Absolute;
      t.nanos = timestamp(ctx->TIMESTAMP());
    } else if (ctx->TIMEOFDAY()) {
      t.kind = ast::TestTime::Kind::TimeOfDay;
      auto v = parseTimeOfDay(textOf(ctx->TIMEOFDAY()));
      if (!v) sink_.report(DiagKind::MalformedLiteral, t.range, fmt::format("invalid time of day '{}'", textOf(ctx->TIMEOFDAY())));
      t.nanos = v.value_or(0);
    } else if (ctx->DURATION()) {
      glue(ctx->DURATION());
      t.kind = ast::TestTime::Kind::Offset;
      t.nanos = duration(ctx->DURATION());
    }
    return t;
  }

  std::vector<ast::TestAttribute> attributes(const std::vector<AttrParser::AttributeContext*>& ctxs) {
    std::vector<ast::TestAttribute> out;
    for (auto* a : ctxs) {
      ast::TestAttribute attr;
      attr.name = ident(a->ident());
      if (a->word()) attr.value = word(a->word());
      else if (a->INT()) {
        attr.value.kind = ast::PropertyValue::Kind::Int;
        attr.value.intValue = integer(a->INT()).value_or(0);
        attr.value.text = textOf(a->INT());
        attr.value.range = range(a->INT());
      } else if (a->STRING()) {
        attr.value.kind = ast::PropertyValue::Kind::String;
        attr.value.text = string(a->STRING());
        attr.value.range = range(a->STRING());
      }
      out.push_back(std::move(attr));
    }
    return out;
  }

  std::optional<ast::TestDecl> test(AttrParser::TestDeclContext* ctx) {
    auto strings = ctx->STRING();
    if (strings.empty()) return std::nullopt;
    ast::TestDecl d;
    d.name = string(strings[0]);
    d.nameRange = range(strings[0]);
    if (ctx->FROM() && strings.size() > 1) {
      d.fixture = string(strings[1]);
      d.fixtureRange = range(strings[1]);
    }
    d.range = range(ctx);
    d.broken = containsSyntaxError(ctx);
    markBlock(ctx->LBRACE(), ctx->RBRACE());
    startItems(ctx->testItem());
    for (auto* item : ctx->testItem()) {
      if (auto* c = dynamic_cast<AttrParser::WorkloadItemContext*>(item)) {
        markBlock(c->LBRACE(), c->RBRACE());
        d.workloadRanges.push_back(range(c));
        for (auto* p : c->property()) {
          startItem(p);
          d.workload.push_back(property(p));
        }
      } else if (auto* c = dynamic_cast<AttrParser::LogLineItemContext*>(item)) {
        if (c->word().size() < 2 || !c->STRING()) continue;
        ast::TestLogLine line;
        line.node = word(c->word(0));
        line.source = word(c->word(1));
        line.attributes = attributes(c->attribute());
        line.at = testTime(c->timeValue());
        line.text = string(c->STRING());
        line.range = range(c);
        d.logs.push_back(std::move(line));
      } else if (auto* c = dynamic_cast<AttrParser::MetricSampleItemContext*>(item)) {
        ast::TestMetricSample m;
        m.metric = c->STRING() ? string(c->STRING()) : std::string(textOf(range(c->ident())));
        m.attributes = attributes(c->attribute());
        m.at = testTime(c->timeValue());
        auto v = signedNumber(c->signedNumber());
        m.value = v.kind == ast::PropertyValue::Kind::Int ? static_cast<double>(v.intValue) : v.floatValue;
        m.range = range(c);
        d.metrics.push_back(std::move(m));
      } else if (auto* c = dynamic_cast<AttrParser::ExpectItemContext*>(item)) {
        ast::Expectation e;
        e.range = range(c);
        if (auto* key = c->expectKey()) e.key = {std::string(textOf(range(key))), range(key)};
        for (auto* a : c->expectArg()) {
          ast::Expectation::Arg arg;
          if (a->ON()) {
            arg.kind = ast::Expectation::Arg::Kind::On;
            arg.value = word(a->word());
          } else if (a->compareOp()) {
            arg.kind = ast::Expectation::Arg::Kind::Compare;
            arg.compareOp = std::string(textOf(range(a->compareOp())));
            arg.value = signedNumber(a->signedNumber());
          } else if (a->expectWord()) {
            arg.value = word(a->expectWord());
          } else {
            arg.value = expectValue(a);
          }
          e.args.push_back(std::move(arg));
        }
        d.expectations.push_back(std::move(e));
      }
    }
    return d;
  }

  const SourceFile& file_;
  FileId id_;
  DiagnosticSink& sink_;
  const std::vector<uint32_t>& errorOffsets_;
  std::vector<LayoutToken>& layout_;
};

LayoutToken::Kind layoutKind(size_t type) {
  using K = LayoutToken::Kind;
  switch (type) {
    case AttrLexer::INT: case AttrLexer::FLOAT: case AttrLexer::DURATION: case AttrLexer::TIMESTAMP:
    case AttrLexer::TIMEOFDAY: case AttrLexer::BAD_NUMBER:
      return K::Literal;
    case AttrLexer::STRING: return K::String;
    case AttrLexer::REGEX: return K::Regex;
    case AttrLexer::LINE_COMMENT: return K::LineComment;
    case AttrLexer::BLOCK_COMMENT: return K::BlockComment;
    case AttrLexer::LBRACE: case AttrLexer::RBRACE: case AttrLexer::LPAREN: case AttrLexer::RPAREN:
    case AttrLexer::LBRACK: case AttrLexer::RBRACK: case AttrLexer::COMMA: case AttrLexer::DOT:
      return K::Punct;
    case AttrLexer::DOTDOT: case AttrLexer::EQ: case AttrLexer::NE: case AttrLexer::LE: case AttrLexer::GE:
    case AttrLexer::LT: case AttrLexer::GT: case AttrLexer::MATCHES: case AttrLexer::NOT_MATCHES:
    case AttrLexer::PLUS: case AttrLexer::MINUS: case AttrLexer::STAR: case AttrLexer::SLASH:
    case AttrLexer::PERCENT:
      return K::Operator;
    default:
      return K::Word;
  }
}

// Reports lexical problems and rejects input nested too deeply for a recursive-descent parser.
// Returns false when the file must not be parsed.
bool lexicalPass(const SourceFile& file, FileId id, std::vector<Token*>& tokens, DiagnosticSink& sink,
                 std::vector<uint32_t>& errorOffsets) {
  std::string_view text = file.text();
  auto rangeOf = [&](Token* t) {
    return SourceRange{id, static_cast<uint32_t>(t->getStartIndex()), static_cast<uint32_t>(t->getStopIndex() + 1)};
  };
  size_t depth = 0, prefixRun = 0;
  size_t prev = 0;  // previous default-channel token type
  for (size_t i = 0; i < tokens.size(); ++i) {
    Token* t = tokens[i];
    size_t type = t->getType();
    if (type == Token::EOF) break;
    SourceRange r = rangeOf(t);
    std::string_view spelling = text.substr(r.begin, r.end - r.begin);
    switch (type) {
      case AttrLexer::ERROR_CHAR: {
        // One diagnostic for a run of adjacent stray bytes (a multi-byte character, binary junk).
        size_t j = i;
        while (j + 1 < tokens.size() && tokens[j + 1]->getType() == AttrLexer::ERROR_CHAR &&
               tokens[j + 1]->getStartIndex() == tokens[j]->getStopIndex() + 1) {
          ++j;
        }
        SourceRange run{id, r.begin, static_cast<uint32_t>(tokens[j]->getStopIndex() + 1)};
        std::string_view chars = text.substr(run.begin, run.end - run.begin);
        std::string what = chars.size() == 1 ? fmt::format("character '{}'", printable(chars))
                                             : fmt::format("characters '{}'", printable(chars, 16));
        std::string hint;
        if (chars == "=") hint = "; write '==' to compare";
        else if (chars == "!") hint = "; write 'not' to negate";
        else if (chars == "&" || chars == "|") hint = "; write 'and' or 'or'";
        else if (chars == "'") hint = "; strings use double quotes";
        else if (chars == "#") hint = "; comments start with '//'";
        errorOffsets.push_back(r.begin);
        sink.report(DiagKind::InvalidCharacter, run, fmt::format("unexpected {}{}", what, hint));
        if (chars == "=") {
          // Parse on as if '==' was written, so the typo does not derail the rest of the clause.
          auto* token = static_cast<antlr4::CommonToken*>(t);
          token->setType(AttrLexer::EQ);
          token->setChannel(Token::DEFAULT_CHANNEL);
        }
        i = j;
        continue;
      }
      case AttrLexer::STRING:
        if (!stringIsTerminated(spelling)) {
          errorOffsets.push_back(r.begin);
        sink.report(DiagKind::UnterminatedString, r, "unterminated string: missing the closing '\"' on this line");
        }
        break;
      case AttrLexer::REGEX:
        if (regexClosingSlash(spelling) == std::string_view::npos) {
          errorOffsets.push_back(r.begin);
        sink.report(DiagKind::UnterminatedRegex, r, "unterminated regex: missing the closing '/' on this line");
        }
        break;
      case AttrLexer::BLOCK_COMMENT:
        if (spelling.size() < 4 || spelling.substr(spelling.size() - 2) != "*/") {
          errorOffsets.push_back(r.begin);
        sink.report(DiagKind::UnterminatedComment, SourceRange{id, r.begin, r.begin + 2},
                      "unterminated block comment: no '*/' before the end of the file");
        }
        break;
      case AttrLexer::BAD_NUMBER: {
        errorOffsets.push_back(r.begin);
        sink.report(DiagKind::MalformedLiteral, r,
                    fmt::format("malformed number or duration '{}'; durations are written like 30s, 5m, 1h30m "
                                "(units: ms, us, s, m, h, d)", printable(spelling)));
        // Parse on as a duration (the usual intent: 5min, 10sec) so one typo does not derail the
        // rest of the file.
        static_cast<antlr4::CommonToken*>(t)->setType(AttrLexer::DURATION);
        break;
      }
      default:
        break;
    }
    if (t->getChannel() != Token::DEFAULT_CHANNEL) continue;
    bool operandBefore = prev == AttrLexer::IDENT || prev == AttrLexer::INT || prev == AttrLexer::FLOAT ||
                         prev == AttrLexer::RPAREN || prev == AttrLexer::RBRACK || prev == AttrLexer::STRING ||
                         prev == AttrLexer::DURATION;
    if (type == AttrLexer::NOT || (type == AttrLexer::MINUS && !operandBefore)) {
      ++prefixRun;
    } else {
      if (type == AttrLexer::LPAREN || type == AttrLexer::LBRACK || type == AttrLexer::LBRACE) ++depth;
      else if ((type == AttrLexer::RPAREN || type == AttrLexer::RBRACK || type == AttrLexer::RBRACE) && depth > 0) --depth;
      if (type != AttrLexer::LPAREN) prefixRun = 0;
    }
    if (depth + prefixRun > kMaxNestingDepth) {
      sink.report(DiagKind::NestingTooDeep, r,
                  fmt::format("brackets and prefix operators nest more than {} levels deep here; "
                              "split the expression", kMaxNestingDepth));
      return false;
    }
    prev = type;
  }
  return true;
}

}  // namespace

ParseResult parseFile(const SourceManager& sources, FileId id, DiagnosticSink& sink) {
  ParseResult result;
  result.module = std::make_unique<ast::Module>();
  result.module->file = id;
  const SourceFile& file = sources.file(id);
  std::string_view text = file.text();
  size_t errorsBefore = sink.errorCountIn(id);

  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    sink.report(DiagKind::BinaryFile, SourceRange{id, static_cast<uint32_t>(nul), static_cast<uint32_t>(nul + 1)},
                fmt::format("this is a binary file (NUL byte at offset {}), not an .attr rule file", nul));
    return result;
  }
  auto bad = invalidUtf8(text);
  constexpr size_t kMaxUtf8Reports = 5;
  for (size_t i = 0; i < bad.size() && i < kMaxUtf8Reports; ++i) {
    auto& d = sink.report(DiagKind::InvalidUtf8,
                          SourceRange{id, static_cast<uint32_t>(bad[i].first), static_cast<uint32_t>(bad[i].second)},
                          "invalid UTF-8 byte sequence; rule files must be UTF-8");
    if (i + 1 == kMaxUtf8Reports && bad.size() > kMaxUtf8Reports) {
      d.note({}, fmt::format("{} more invalid sequences are not shown", bad.size() - kMaxUtf8Reports));
    }
  }

  ByteInputStream input(text);
  AttrLexer lexer(&input);
  lexer.removeErrorListeners();  // the grammar's ERROR_CHAR rule means the lexer never fails
  antlr4::CommonTokenStream stream(&lexer);
  stream.fill();
  std::vector<Token*> tokens = stream.getTokens();
  // Offsets of every lexical and syntax error: a declaration containing one is marked broken.
  std::vector<uint32_t> errorOffsets;
  if (!lexicalPass(file, id, tokens, sink, errorOffsets)) return result;

  // Layout tokens mirror the token stream one to one so the builder can mark them by index.
  std::vector<LayoutToken> layout(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    Token* t = tokens[i];
    if (t->getType() == Token::EOF) continue;
    uint32_t b = static_cast<uint32_t>(t->getStartIndex()), e = static_cast<uint32_t>(t->getStopIndex() + 1);
    layout[i].kind = layoutKind(t->getType());
    layout[i].text = std::string(text.substr(b, e - b));
    layout[i].line = file.lineColumn(b).line;
    layout[i].endLine = file.lineColumn(e > b ? e - 1 : b).line;
  }

  AttrParser parser(&stream);
  parser.removeErrorListeners();
  // Two-stage parsing: the fast SLL mode succeeds on almost every valid file; only on failure
  // is the file parsed again in full LL mode with error reporting and recovery.
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  AttrParser::FileContext* tree = nullptr;
  try {
    tree = parser.file();
  } catch (const antlr4::ParseCancellationException&) {
    tree = nullptr;
  }
  SyntaxErrorListener listener(file, id, sink, errorOffsets);
  if (!tree) {
    stream.seek(0);
    parser.reset();
    parser.addErrorListener(&listener);
    parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
    tree = parser.file();
  }

  // Long operator chains (a + a + ... ) parse iteratively but make deep trees; bound them
  // before anything walks the tree recursively.
  constexpr size_t kMaxTreeDepth = 1000;
  if (size_t depth = treeDepth(tree, kMaxTreeDepth); depth > kMaxTreeDepth) {
    sink.reportFile(DiagKind::NestingTooDeep, id,
                    fmt::format("an expression in this file is nested or chained more than {} levels deep; "
                                "split it into smaller expressions", kMaxTreeDepth));
    return result;
  }

  AstBuilder builder(file, id, sink, errorOffsets, layout);
  result.module = builder.build(tree);
  layout.erase(std::remove_if(layout.begin(), layout.end(), [](const LayoutToken& l) { return l.line == 0; }),
               layout.end());
  result.layout = std::move(layout);
  result.syntaxOk = sink.errorCountIn(id) == errorsBefore;
  return result;
}

}  // namespace attrib
