#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "AttrLexer.h"
#include "antlr4-runtime-subset.h"
#include "compiler/literals.h"
#include "compiler/parse_internal.h"

namespace attrib::parse_detail {
namespace {

using attrib_antlr::AttrLexer;
using attrib_antlr::AttrParser;
using antlr4::Token;
using antlr4::tree::TerminalNode;

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
      else if (auto* x = decl->disableDecl()) buildInto(module.get(), disable(x));
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
      // Safe to join when only blanks separate the parts (no comment or line break between).
      bool blanksOnly = v.text.find_first_of("\n\r/") == std::string::npos;
      sink_.report(DiagKind::SpacedWord, v.range,
                   fmt::format("'{}' must be written without spaces (as '{}')", v.text, joined))
          .fix(v.range, joined, blanksOnly);
      v.text = joined;
    }
    return v;
  }

  // ---- literals

  // Digits followed by a unit, repeated: the spelling of a DURATION token proper.
  static bool wellFormedDuration(std::string_view t) {
    size_t i = 0;
    while (i < t.size()) {
      size_t digits = i;
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
      if (i == digits || i == t.size()) return false;
      if (t.substr(i, 2) == "ms" || t.substr(i, 2) == "us") i += 2;
      else if (std::string_view("smhd").find(t[i]) != std::string_view::npos) ++i;
      else return false;
    }
    return !t.empty();
  }

  std::optional<int64_t> integer(TerminalNode* n) {
    if (!present(n)) return std::nullopt;
    std::string t = textOf(n);
    // Only digits: anything else here was already reported (malformed literal).
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
    // A malformed spelling (5min, 1m30) was reported by the lexical pass; only overflow is new.
    if (!v && !wellFormedDuration(t)) return 0;
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
    // The last candidate: a token the lexical pass joined after an unescaped '/' (A012) holds
    // more than one, and the pattern runs to the intended end.
    std::vector<size_t> slashes = regexSlashes(t);
    size_t close = slashes.empty() ? t.size() : slashes.back();  // none: reported by the lexical pass
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
    if (ctx && ctx->word()) return word(ctx->word());
    return literalValue(ctx);
  }

  // The non-word forms of a value: a property value or an expectation argument (both rules
  // list the same literal alternatives).
  template <typename Ctx>
  ast::PropertyValue literalValue(Ctx* ctx) {
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

  // What every named declaration starts with: name, optional title, range, block layout.
  // `override KIND a.b.c`, or a dotted name without `override` (reported, then read as the
  // override it can only mean, so the rest of the declaration is checked as intended).
  template <typename Decl, typename Ctx, typename Items>
  void declaration(Decl& d, Ctx* ctx, const Items& items, SourceRange* titleRange = nullptr) {
    ast::QualifiedName name = qualifiedName(ctx->declName()->qualifiedName());
    if (!name.parts.empty()) d.name = name.parts.back();
    if (ctx->OVERRIDE() || name.parts.size() > 1) {
      ast::OverrideOf o;
      o.target = name;
      if (ctx->OVERRIDE()) {
        o.keyword = range(ctx->OVERRIDE());
      } else {
        SourceRange keyword = range(ctx->getStart());
        std::string kind(textOf(keyword));
        sink_
            .report(DiagKind::QualifiedDeclaration, name.range,
                    fmt::format("{} {} is named with one name, not '{}'; to replace the {} '{}' of a lower layer "
                                "write 'override {} {}'",
                                kind == "outcome" ? "an" : "a", kind, name.str(), kind, name.str(), kind, name.str()))
            .fix({id_, keyword.begin, keyword.begin}, "override ", false);
      }
      d.overrides = std::move(o);
    }
    d.title = title(ctx->STRING(), titleRange);
    d.range = range(ctx);
    d.broken = containsSyntaxError(ctx);
    markBlock(ctx->LBRACE(), ctx->RBRACE());
    startItems(items);
  }

  // A clause a declaration has at most once (`when`, `where`): the first is kept, each later one
  // is reported with a note pointing at the first.
  void singleClause(ast::ExprPtr& first, ast::ExprPtr e, SourceRange where, const char* message, const char* what) {
    if (!e) return;
    if (!first) {
      first = std::move(e);
      return;
    }
    sink_.report(DiagKind::DuplicateProperty, where, message)
        .note(first->range, fmt::format("the first '{}' clause is here", what));
  }

  std::optional<ast::SymptomDecl> symptom(AttrParser::SymptomDeclContext* ctx) {
    if (!ctx->declName() || !ctx->declName()->qualifiedName()) return std::nullopt;
    ast::SymptomDecl d;
    declaration(d, ctx, ctx->symptomItem(), &d.titleRange);
    for (auto* item : ctx->symptomItem()) {
      if (auto* c = dynamic_cast<AttrParser::OnItemContext*>(item)) {
        if (auto s = stream(c->streamSpec())) d.streams.push_back(std::move(*s));
      } else if (auto* c = dynamic_cast<AttrParser::MatchItemContext*>(item)) {
        if (present(c->REGEX())) d.matches.push_back(regex(c->REGEX()));
      } else if (auto* c = dynamic_cast<AttrParser::WhenItemContext*>(item)) {
        bool repeated = d.when != nullptr;
        singleClause(d.when, expr(c->expr()), range(c), "a symptom has one 'when' clause; combine them with 'and'",
                     "when");
        if (repeated) continue;
        if (c->DURATION()) {
          d.sustained = duration(c->DURATION());
          d.sustainedRange = SourceRange::cover(range(c->FOR()), range(c->DURATION()));
        }
      } else if (auto* c = dynamic_cast<AttrParser::LetItemContext*>(item)) {
        if (!c->ident() || !c->expr()) continue;
        ast::SymptomDecl::Let let;
        let.name = ident(c->ident());
        let.value = expr(c->expr());
        let.range = range(c);
        if (let.value) d.lets.push_back(std::move(let));
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
    } else if (auto* c = dynamic_cast<AttrParser::DerivedStreamContext*>(ctx)) {
      s.word = c->IDENT()->getText();
      s.kind = s.word == "ranks" ? ast::StreamSpec::Kind::Ranks
               : s.word == "nodes" ? ast::StreamSpec::Kind::Nodes
                                   : ast::StreamSpec::Kind::Unknown;
    } else {
      s.kind = ast::StreamSpec::Kind::Scheduler;
    }
    return s;
  }

  std::optional<ast::FilterDecl> filter(AttrParser::FilterDeclContext* ctx) {
    if (!ctx->declName() || !ctx->declName()->qualifiedName()) return std::nullopt;
    ast::FilterDecl d;
    declaration(d, ctx, ctx->filterItem());
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
    if (!ctx->declName() || !ctx->declName()->qualifiedName()) return std::nullopt;
    ast::RuleDecl d;
    declaration(d, ctx, ctx->ruleItem());
    for (auto* item : ctx->ruleItem()) {
      if (auto* c = dynamic_cast<AttrParser::RuleWhenItemContext*>(item)) {
        d.whenRanges.push_back(range(c));
        for (auto* b : c->binding()) {
          if (!b->ident()) continue;
          d.bindings.push_back({selector(b->selector()), ident(b->ident()), range(b), {}});
        }
      } else if (auto* c = dynamic_cast<AttrParser::RuleWhereItemContext*>(item)) {
        d.whereRanges.push_back(range(c));
        singleClause(d.where, expr(c->expr()), range(c), "a rule has one 'where' clause; combine them with 'and'",
                     "where");
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
    if (!ctx->declName() || !ctx->declName()->qualifiedName()) return std::nullopt;
    ast::OutcomeDecl d;
    declaration(d, ctx, ctx->outcomeItem());
    for (auto* item : ctx->outcomeItem()) {
      if (auto* c = dynamic_cast<AttrParser::OutcomeWhenItemContext*>(item)) {
        d.whenRanges.push_back(range(c));
        singleClause(d.when, expr(c->expr()), range(c),
                     "an outcome has one 'when' clause; combine them with 'and' or 'or'", "when");
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

  // A test item's time that was not written, at the token it belongs before.
  static ast::TestTime missingTime(SourceRange before) {
    ast::TestTime t;
    t.missing = true;
    t.range = before;
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

  std::optional<ast::DisableDecl> disable(AttrParser::DisableDeclContext* ctx) {
    if (!ctx->qualifiedName() || !ctx->declKind) return std::nullopt;
    ast::DisableDecl d;
    switch (ctx->declKind->getType()) {
      case AttrLexer::SYMPTOM: d.kind = ast::DisableDecl::Kind::Symptom; break;
      case AttrLexer::FILTER: d.kind = ast::DisableDecl::Kind::Filter; break;
      case AttrLexer::OUTCOME: d.kind = ast::DisableDecl::Kind::Outcome; break;
      default: d.kind = ast::DisableDecl::Kind::Rule; break;
    }
    d.target = qualifiedName(ctx->qualifiedName());
    if (ctx->STRING()) d.reason = string(ctx->STRING());
    d.range = range(ctx);
    d.broken = containsSyntaxError(ctx);
    return d;
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
        line.at = c->timeValue() ? testTime(c->timeValue()) : missingTime(range(c->STRING()));
        line.text = string(c->STRING());
        line.range = range(c);
        d.logs.push_back(std::move(line));
      } else if (auto* c = dynamic_cast<AttrParser::MetricSampleItemContext*>(item)) {
        ast::TestMetricSample m;
        m.metric = c->STRING() ? string(c->STRING()) : std::string(textOf(range(c->ident())));
        m.attributes = attributes(c->attribute());
        m.at = c->timeValue() || !c->signedNumber() ? testTime(c->timeValue()) : missingTime(range(c->signedNumber()));
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
            arg.value = literalValue(a);
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

}  // namespace

std::unique_ptr<ast::Module> buildModule(AttrParser::FileContext* tree, const SourceFile& file, FileId id,
                                         DiagnosticSink& sink, const std::vector<uint32_t>& errorOffsets,
                                         std::vector<LayoutToken>& layout) {
  AstBuilder builder(file, id, sink, errorOffsets, layout);
  return builder.build(tree);
}

}  // namespace attrib::parse_detail
