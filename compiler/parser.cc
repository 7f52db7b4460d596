#include "compiler/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <set>

#include "AttrLexer.h"
#include "AttrParser.h"
#include "antlr4-runtime-subset.h"
#include "compiler/literals.h"
#include "compiler/parse_internal.h"

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

}  // namespace

std::string parse_detail::printable(std::string_view bytes, size_t max) {
  std::string out;
  for (unsigned char c : bytes.substr(0, max)) {
    if (c >= 0x20 && c < 0x7F) out += static_cast<char>(c);
    else if (c >= 0x80) out += static_cast<char>(c);  // part of a UTF-8 sequence
    else out += fmt::format("\\x{:02x}", c);
  }
  if (bytes.size() > max) out += "...";
  return out;
}

namespace {

using parse_detail::printable;

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
    case AttrLexer::FROM: case AttrLexer::OVERRIDE: case AttrLexer::DISABLE:
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

// How deep a parse tree may be (operator chains make deep trees): docs/diagnostics.md, A008.
constexpr size_t kMaxTreeDepth = 1000;

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

// `match /upload to s3://x failed/`: the regex ends at the first unescaped '/', and the rest
// of the pattern lexes as a division and names. When a regex token is followed, with no space,
// by a '/', the author meant a longer pattern: the intended end is the last '/' of the line
// (before any comment) that is followed only by flag letters. Reports A012 with a safe fix-it
// per inner slash and, when that end falls on a token boundary, joins the tokens into one
// regex (the others move to the hidden channel) so the file parses as meant. Returns the index
// of the last token joined, or `i`.
size_t joinUnescapedSlash(const SourceFile& file, FileId id, std::vector<Token*>& tokens, size_t i,
                          DiagnosticSink& sink) {
  std::string_view text = file.text();
  Token* regex = tokens[i];
  size_t end = regex->getStopIndex() + 1;
  if (i + 1 >= tokens.size() || tokens[i + 1]->getType() != AttrLexer::SLASH ||
      tokens[i + 1]->getStartIndex() != end) {
    return i;
  }
  size_t begin = regex->getStartIndex();
  size_t lineEnd = text.find('\n', begin);
  if (lineEnd == std::string_view::npos) lineEnd = text.size();
  for (size_t c = end; c + 2 < lineEnd; ++c) {
    if ((text[c] == ' ' || text[c] == '\t') && text[c + 1] == '/' && text[c + 2] == '/') {
      lineEnd = c;
      break;
    }
  }
  std::string_view span = text.substr(begin, lineEnd - begin);
  std::vector<size_t> slashes = regexSlashes(span);
  size_t close = std::string_view::npos, stop = 0;
  for (size_t k = slashes.size(); k-- > 0;) {
    size_t after = slashes[k] + 1;
    while (after < span.size() && std::isalpha(static_cast<unsigned char>(span[after]))) ++after;
    if (after == span.size() || span[after] == ' ' || span[after] == '\t' || span[after] == '\r') {
      close = slashes[k];
      stop = after;
      break;
    }
  }
  size_t first = regexClosingSlash(text.substr(begin, end - begin));
  if (close == std::string_view::npos || close <= first) return i;
  auto& d = sink.report(DiagKind::UnescapedSlash,
                        SourceRange{id, static_cast<uint32_t>(begin + first), static_cast<uint32_t>(begin + first + 1)},
                        "this '/' ends the regex early, so the rest of the pattern is read as code; a '/' inside a "
                        "pattern is written '\\/'");
  for (size_t s : slashes) {
    if (s >= first && s < close) {
      d.fix(SourceRange{id, static_cast<uint32_t>(begin + s), static_cast<uint32_t>(begin + s + 1)}, "\\/", true);
    }
  }
  size_t j = i + 1;
  while (j < tokens.size() && tokens[j]->getType() != Token::EOF && tokens[j]->getStopIndex() + 1 < begin + stop) ++j;
  if (j >= tokens.size() || tokens[j]->getType() == Token::EOF || tokens[j]->getStopIndex() + 1 != begin + stop) {
    return i;  // the intended end is inside a token: report only
  }
  auto* joined = static_cast<antlr4::CommonToken*>(regex);
  joined->setStopIndex(begin + stop - 1);
  joined->setText(std::string(text.substr(begin, stop)));
  for (size_t k = i + 1; k <= j; ++k) static_cast<antlr4::CommonToken*>(tokens[k])->setChannel(Token::HIDDEN_CHANNEL);
  return j;
}

// The unit a spelled-out duration suffix means ("min" -> "m"), or "" when it is not one.
std::string durationUnitFor(std::string_view literal) {
  size_t digits = literal.find_first_not_of("0123456789");
  if (digits == std::string_view::npos || digits == 0) return "";
  std::string suffix(literal.substr(digits));
  for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::vector<std::pair<std::vector<std::string>, std::string>> kUnits = {
      {{"msec", "msecs", "millis", "millisecond", "milliseconds"}, "ms"},
      {{"usec", "usecs", "micros", "microsecond", "microseconds"}, "us"},
      {{"sec", "secs", "second", "seconds"}, "s"},
      {{"min", "mins", "minute", "minutes"}, "m"},
      {{"hr", "hrs", "hour", "hours"}, "h"},
      {{"day", "days"}, "d"}};
  for (const auto& [spellings, unit] : kUnits) {
    if (std::find(spellings.begin(), spellings.end(), suffix) != spellings.end()) return unit;
  }
  return "";
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
  size_t prev = 0, prev2 = 0;  // the previous two default-channel token types
  // Binary operators chained at each open bracket level since the last clause boundary: a
  // chain longer than the parse tree may be deep (kMaxTreeDepth) is refused here, before the
  // parser builds a tree for it (a 10 MB `or` chain took 1.5 GB to reach the tree check).
  std::vector<size_t> chain{0};
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
        if (chars == "!") hint = "; write 'not' to negate";
        else if (chars == "&" || chars == "|") hint = "; write 'and' or 'or'";
        else if (chars == "'") hint = "; strings use double quotes";
        else if (chars == "#") hint = "; comments start with '//'";
        errorOffsets.push_back(r.begin);
        sink.report(DiagKind::InvalidCharacter, run, fmt::format("unexpected {}{}", what, hint));
        i = j;
        continue;
      }
      case AttrLexer::ASSIGN:
        // '=' only names a value after `let NAME`; anywhere else it is the usual typo for '=='.
        if (prev2 != AttrLexer::LET) {
          errorOffsets.push_back(r.begin);
          sink.report(DiagKind::InvalidCharacter, r, "unexpected character '='; write '==' to compare").fix(r, "==", true);
          // Parse on as if '==' was written, so the typo does not derail the rest of the clause.
          static_cast<antlr4::CommonToken*>(t)->setType(AttrLexer::EQ);
        }
        break;
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
        } else if (size_t last = joinUnescapedSlash(file, id, tokens, i, sink); last != i) {
          i = last;  // the tokens up to the intended end are now part of the regex
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
        auto& d = sink.report(DiagKind::MalformedLiteral, r,
                              fmt::format("malformed number or duration '{}'; durations are written like 30s, 5m, "
                                          "1h30m (units: ms, us, s, m, h, d)",
                                          printable(spelling)));
        // A unit spelled out (5min, 10sec, 2hours) has one meaning: safe to rewrite.
        if (std::string unit = durationUnitFor(spelling); !unit.empty()) {
          size_t digits = spelling.find_first_not_of("0123456789");
          d.fix(r, std::string(spelling.substr(0, digits)) + unit, true);
        }
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
      if (type == AttrLexer::LPAREN || type == AttrLexer::LBRACK || type == AttrLexer::LBRACE) {
        ++depth;
        chain.push_back(0);
      } else if ((type == AttrLexer::RPAREN || type == AttrLexer::RBRACK || type == AttrLexer::RBRACE) && depth > 0) {
        --depth;
        if (chain.size() > 1) chain.pop_back();
      }
      if (type != AttrLexer::LPAREN) prefixRun = 0;
    }
    switch (type) {
      case AttrLexer::AND: case AttrLexer::OR: case AttrLexer::PLUS: case AttrLexer::MINUS: case AttrLexer::STAR:
      case AttrLexer::SLASH: case AttrLexer::PERCENT: case AttrLexer::EQ: case AttrLexer::NE: case AttrLexer::LT:
      case AttrLexer::LE: case AttrLexer::GT: case AttrLexer::GE: case AttrLexer::MATCHES: case AttrLexer::NOT_MATCHES:
        if (type != AttrLexer::MINUS || operandBefore) ++chain.back();
        break;
      case AttrLexer::PACKAGE: case AttrLexer::IMPORT: case AttrLexer::SYMPTOM: case AttrLexer::FILTER: case AttrLexer::RULE:
      case AttrLexer::OUTCOME: case AttrLexer::TEST: case AttrLexer::ON: case AttrLexer::MATCH: case AttrLexer::WHEN:
      case AttrLexer::WHERE: case AttrLexer::THEN: case AttrLexer::FOR: case AttrLexer::OVER: case AttrLexer::AS:
      case AttrLexer::BY: case AttrLexer::PER: case AttrLexer::DROP: case AttrLexer::KEEP: case AttrLexer::EXPLAIN:
      case AttrLexer::MARK: case AttrLexer::EXPECT: case AttrLexer::LET: case AttrLexer::COMMA:
        chain.back() = 0;  // a new clause or argument: a new expression
        break;
      default:
        break;
    }
    if (chain.back() > kMaxTreeDepth) {
      sink.reportFile(DiagKind::NestingTooDeep, id,
                      fmt::format("an expression in this file is nested or chained more than {} levels deep; "
                                  "split it into smaller expressions", kMaxTreeDepth));
      return false;
    }
    if (depth + prefixRun > kMaxNestingDepth) {
      sink.report(DiagKind::NestingTooDeep, r,
                  fmt::format("brackets and prefix operators nest more than {} levels deep here; "
                              "split the expression", kMaxNestingDepth));
      return false;
    }
    prev2 = prev;
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
  if (size_t depth = treeDepth(tree, kMaxTreeDepth); depth > kMaxTreeDepth) {
    sink.reportFile(DiagKind::NestingTooDeep, id,
                    fmt::format("an expression in this file is nested or chained more than {} levels deep; "
                                "split it into smaller expressions", kMaxTreeDepth));
    return result;
  }

  result.module = parse_detail::buildModule(tree, file, id, sink, errorOffsets, layout);
  layout.erase(std::remove_if(layout.begin(), layout.end(), [](const LayoutToken& l) { return l.line == 0; }),
               layout.end());
  result.layout = std::move(layout);
  result.syntaxOk = sink.errorCountIn(id) == errorsBefore;
  return result;
}

}  // namespace attrib
