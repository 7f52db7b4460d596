#include "ir/codec.h"

#include <fmt/format.h>

#include <cstring>

namespace attrib::ir {

// ---- Writer / Reader

void Writer::varint(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void Writer::f64(double v) {
  char buf[8];
  std::memcpy(buf, &v, 8);
  out_.append(buf, 8);
}

void Writer::bytes(std::string_view s) {
  varint(s.size());
  out_.append(s);
}

bool Reader::fail(std::string reason) {
  if (!failed_) {
    failed_ = true;
    error_ = std::move(reason);
  }
  return false;
}

bool Reader::u8(uint8_t* v) {
  if (failed_) return false;
  if (pos_ >= in_.size()) return fail(fmt::format("truncated at byte {}", pos_));
  *v = static_cast<uint8_t>(in_[pos_++]);
  return true;
}

bool Reader::varint(uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    uint8_t b;
    if (!u8(&b)) return false;
    result |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) {
      *v = result;
      return true;
    }
  }
  return fail(fmt::format("malformed number at byte {}", pos_));
}

bool Reader::svarint(int64_t* v) {
  uint64_t u;
  if (!varint(&u)) return false;
  *v = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  return true;
}

bool Reader::f64(double* v) {
  std::string_view s;
  if (!raw(8, &s)) return false;
  std::memcpy(v, s.data(), 8);
  return true;
}

bool Reader::raw(size_t n, std::string_view* s) {
  if (failed_) return false;
  if (n > remaining()) return fail(fmt::format("truncated at byte {} (needs {} more bytes)", pos_, n - remaining()));
  *s = in_.substr(pos_, n);
  pos_ += n;
  return true;
}

bool Reader::bytes(std::string_view* s) {
  uint64_t n;
  if (!varint(&n)) return false;
  if (n > remaining()) return fail(fmt::format("truncated at byte {} (a length of {} runs past the end)", pos_, n));
  return raw(static_cast<size_t>(n), s);
}

bool Reader::string(std::string* s) {
  std::string_view v;
  if (!bytes(&v)) return false;
  s->assign(v);
  return true;
}

bool Reader::count(uint64_t* n, size_t minBytes) {
  if (!varint(n)) return false;
  if (*n > remaining() / std::max<size_t>(1, minBytes)) {
    return fail(fmt::format("corrupt count {} at byte {}", *n, pos_));
  }
  return true;
}

// ---- Program

namespace {

constexpr int kMaxExprDepth = 2000;

template <typename E>
void writeEnum(Writer& w, E e) { w.u8(static_cast<uint8_t>(e)); }

template <typename E>
bool readEnum(Reader& r, E* e, E max, const char* what) {
  uint8_t v;
  if (!r.u8(&v)) return false;
  if (v > static_cast<uint8_t>(max)) return r.fail(fmt::format("bad {} {} at byte {}", what, v, r.position() - 1));
  *e = static_cast<E>(v);
  return true;
}

void writeStrings(Writer& w, const std::vector<std::string>& v) {
  w.varint(v.size());
  for (const auto& s : v) w.bytes(s);
}

bool readStrings(Reader& r, std::vector<std::string>* v) {
  uint64_t n;
  if (!r.count(&n)) return false;
  v->resize(n);
  for (auto& s : *v) if (!r.string(&s)) return false;
  return true;
}

void writeValue(Writer& w, const Value& v) {
  writeEnum(w, v.type);
  switch (v.type) {
    case Type::Null: break;
    case Type::Float: w.f64(v.f); break;
    case Type::String: w.bytes(v.s); break;
    default: w.svarint(v.i); break;
  }
}

bool readValue(Reader& r, Value* v) {
  if (!readEnum(r, &v->type, Type::List, "value type")) return false;
  switch (v->type) {
    case Type::Null: return true;
    case Type::Float: return r.f64(&v->f);
    case Type::String: return r.string(&v->s);
    default: return r.svarint(&v->i);
  }
}

void writeExpr(Writer& w, const Expr& e) {
  writeEnum(w, e.op);
  writeEnum(w, e.type);
  writeEnum(w, e.field);
  writeEnum(w, e.counted);
  writeEnum(w, e.wfield);
  w.u8(static_cast<uint8_t>((e.negated ? 1 : 0) | (e.sameKey ? 2 : 0) | (e.hasWhere ? 4 : 0)));
  w.svarint(e.slot);
  w.svarint(e.set);
  w.svarint(e.regex);
  w.svarint(e.window);
  w.bytes(e.name);
  if (e.op == Op::Const) writeValue(w, e.constant);
  w.varint(e.operands.size());
  for (const auto& op : e.operands) writeExpr(w, op);
}

bool readInt32(Reader& r, int32_t* v) {
  int64_t x;
  if (!r.svarint(&x)) return false;
  if (x < INT32_MIN || x > INT32_MAX) return r.fail(fmt::format("number out of range at byte {}", r.position()));
  *v = static_cast<int32_t>(x);
  return true;
}

bool readExpr(Reader& r, Expr* e, int depth) {
  if (depth > kMaxExprDepth) return r.fail(fmt::format("expression nested too deeply at byte {}", r.position()));
  uint8_t flags;
  if (!readEnum(r, &e->op, Op::Percentile, "operator") || !readEnum(r, &e->type, Type::List, "type") ||
      !readEnum(r, &e->field, Field::Reason, "field") || !readEnum(r, &e->counted, Field::Reason, "field") ||
      !readEnum(r, &e->wfield, WorkloadField::Nodes, "field") ||
      !r.u8(&flags) || !readInt32(r, &e->slot) || !readInt32(r, &e->set) || !readInt32(r, &e->regex) ||
      !r.svarint(&e->window) || !r.string(&e->name)) {
    return false;
  }
  e->negated = flags & 1;
  e->sameKey = flags & 2;
  e->hasWhere = flags & 4;
  if (e->op == Op::Const && !readValue(r, &e->constant)) return false;
  uint64_t n;
  if (!r.count(&n, 12)) return false;
  e->operands.resize(n);
  for (auto& op : e->operands) {
    if (!readExpr(r, &op, depth + 1)) return false;
  }
  return true;
}

void writePatterns(Writer& w, const std::vector<Pattern>& patterns) {
  w.varint(patterns.size());
  for (const auto& p : patterns) {
    w.bytes(p.regex);
    w.bytes(p.flags);
    writeStrings(w, p.captures);
    w.bytes(p.required);
  }
}

bool readPatterns(Reader& r, std::vector<Pattern>* patterns) {
  uint64_t n;
  if (!r.count(&n, 3)) return false;
  patterns->resize(n);
  for (auto& p : *patterns) {
    if (!r.string(&p.regex) || !r.string(&p.flags) || !readStrings(r, &p.captures) || !r.string(&p.required)) return false;
  }
  return true;
}

// Every index an expression holds must point into the program; checked once after decoding
// so evaluators never bounds-check on the hot path.
bool validate(const Expr& e, const Program& p, int32_t slots, std::string* error) {
  auto bad = [&](const std::string& what) {
    *error = fmt::format("invalid program: {} in a {} expression", what, opName(e.op));
    return false;
  };
  if (e.slot >= slots) return bad(fmt::format("slot {} of {}", e.slot, slots));
  switch (e.op) {
    case Op::Slot:
      if (e.slot < 0) return bad("negative slot");
      break;
    case Op::Match:
      if (e.regex < 0 || static_cast<size_t>(e.regex) >= p.regexes.size()) return bad("regex index");
      if (e.operands.size() != 1) return bad("operand count");
      break;
    case Op::IsSymptom: case Op::Count: case Op::Exists: case Op::First: case Op::Last: case Op::Distinct:
    case Op::MinBy: case Op::MaxBy: case Op::Percentile: {
      if (e.set < 0 || static_cast<size_t>(e.set) >= p.symptomSets.size()) return bad("symptom set index");
      size_t extra = e.op == Op::MinBy || e.op == Op::MaxBy ? 1 : e.op == Op::Percentile ? 2 : 0;
      if (e.op != Op::IsSymptom && (e.slot < 0 || e.operands.size() != (e.hasWhere ? 1u : 0u) + extra)) {
        return bad("aggregate shape");
      }
      break;
    }
    case Op::FieldOf: case Op::CaptureOf: case Op::IsNone: case Op::Neg: case Op::Not: case Op::ToInt:
    case Op::ToFloat: case Op::ToString: case Op::Abs: case Op::Len: case Op::Lower: case Op::InNodes:
    case Op::WindowAvg: case Op::WindowMin: case Op::WindowMax: case Op::WindowSum: case Op::WindowRate:
    case Op::WindowDelta:
      if (e.operands.size() != 1) return bad("operand count");
      break;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Mod: case Op::Eq: case Op::Ne:
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::And: case Op::Or: case Op::Contains:
    case Op::StartsWith: case Op::EndsWith: case Op::Min: case Op::Max:
      if (e.operands.size() != 2) return bad("operand count");
      break;
    case Op::InInterval: case Op::InRange:
      if (e.operands.size() != 3) return bad("operand count");
      break;
    case Op::InList:
      if (e.operands.empty()) return bad("operand count");
      break;
    default:
      break;
  }
  for (const auto& op : e.operands) {
    if (!validate(op, p, slots, error)) return false;
  }
  return true;
}

bool validateProgram(const Program& p, std::string* error) {
  for (const auto& set : p.symptomSets) {
    for (int32_t id : set) {
      if (id < 0 || static_cast<size_t>(id) >= p.symptoms.size()) {
        *error = fmt::format("invalid program: symptom id {} of {}", id, p.symptoms.size());
        return false;
      }
    }
  }
  for (const auto& s : p.symptoms) {
    if (s.hasWhen && !validate(s.when, p, kMaxSlots, error)) return false;
    for (const auto& let : s.lets) {
      if (!validate(let.value, p, kMaxSlots, error)) return false;
    }
  }
  for (const auto& f : p.filters) {
    for (const auto& st : f.statements) {
      if (st.set < 0 || static_cast<size_t>(st.set) >= p.symptomSets.size()) {
        *error = "invalid program: filter target set";
        return false;
      }
      if (st.hasWhere && !validate(st.where, p, kMaxSlots, error)) return false;
    }
  }
  for (const auto& r : p.rules) {
    if (r.slots < static_cast<int32_t>(r.bindings.size()) || r.slots > kMaxSlots) {
      *error = fmt::format("invalid program: rule {} needs {} slots", r.name, r.slots);
      return false;
    }
    for (int32_t b : r.bindings) {
      if (b < 0 || static_cast<size_t>(b) >= p.symptomSets.size()) {
        *error = "invalid program: rule binding set";
        return false;
      }
    }
    for (const auto& a : r.actions) {
      if (a.subject < 0 || static_cast<size_t>(a.subject) >= r.bindings.size() ||
          (a.kind == RuleAction::Kind::Explain &&
           (a.object < 0 || static_cast<size_t>(a.object) >= r.bindings.size()))) {
        *error = fmt::format("invalid program: rule {} action binding", r.name);
        return false;
      }
    }
    if (r.hasWhere && !validate(r.where, p, r.slots, error)) return false;
  }
  for (const auto& o : p.outcomes) {
    if (o.slots < 1 || o.slots > kMaxSlots || !validate(o.when, p, o.slots, error)) {
      if (error->empty()) *error = "invalid program: outcome slots";
      return false;
    }
  }
  return true;
}

}  // namespace

std::string encode(const Program& p) {
  Writer w;
  w.bytes(p.name);
  w.bytes(p.version);
  w.varint(p.symptoms.size());
  for (const auto& s : p.symptoms) {
    w.bytes(s.name);
    w.bytes(s.title);
    w.bytes(s.description);
    w.bytes(s.family);
    writeEnum(w, s.severity);
    writeEnum(w, s.blame);
    writeEnum(w, s.role);
    writeStrings(w, s.actions);
    writeStrings(w, s.refs);
    writeEnum(w, s.stream);
    writeStrings(w, s.sources);
    w.bytes(s.metric);
    writePatterns(w, s.patterns);
    w.u8(s.hasWhen);
    if (s.hasWhen) writeExpr(w, s.when);
    w.svarint(s.sustained);
    w.varint(s.lets.size());
    for (const auto& let : s.lets) {
      w.bytes(let.name);
      writeExpr(w, let.value);
    }
    w.bytes(s.message);
  }
  w.varint(p.symptomSets.size());
  for (const auto& set : p.symptomSets) {
    w.varint(set.size());
    for (int32_t id : set) w.varint(static_cast<uint32_t>(id));
  }
  writePatterns(w, p.regexes);
  w.varint(p.filters.size());
  for (const auto& f : p.filters) {
    w.bytes(f.name);
    w.varint(f.statements.size());
    for (const auto& st : f.statements) {
      writeEnum(w, st.kind);
      w.svarint(st.set);
      w.u8(st.hasWhere);
      if (st.hasWhere) writeExpr(w, st.where);
      w.u8(st.keepFirst);
      w.svarint(st.keepCount);
      writeStrings(w, st.keys);
    }
  }
  w.varint(p.rules.size());
  for (const auto& r : p.rules) {
    w.bytes(r.name);
    writeEnum(w, r.phase);
    w.varint(r.bindings.size());
    for (int32_t b : r.bindings) w.svarint(b);
    w.u8(r.hasWhere);
    if (r.hasWhere) writeExpr(w, r.where);
    w.varint(r.actions.size());
    for (const auto& a : r.actions) {
      writeEnum(w, a.kind);
      w.svarint(a.subject);
      w.svarint(a.object);
    }
    w.svarint(r.slots);
  }
  w.varint(p.outcomes.size());
  for (const auto& o : p.outcomes) {
    w.bytes(o.name);
    w.bytes(o.title);
    w.bytes(o.family);
    writeStrings(w, o.actions);
    w.f64(o.confidence);
    writeExpr(w, o.when);
    w.svarint(o.slots);
  }
  return std::move(w.str());
}

bool decode(std::string_view bytes, Program* out, std::string* error) {
  Reader r(bytes);
  Program p;
  uint64_t n;
  bool ok = r.string(&p.name) && r.string(&p.version) && r.count(&n, 8);
  if (ok) p.symptoms.resize(n);
  for (size_t i = 0; ok && i < p.symptoms.size(); ++i) {
    Symptom& s = p.symptoms[i];
    uint8_t hasWhen = 0;
    ok = r.string(&s.name) && r.string(&s.title) && r.string(&s.description) && r.string(&s.family) &&
         readEnum(r, &s.severity, Severity::Critical, "severity") && readEnum(r, &s.blame, Blame::Gpu, "blame") &&
         readEnum(r, &s.role, Role::Context, "role") && readStrings(r, &s.actions) && readStrings(r, &s.refs) &&
         readEnum(r, &s.stream, StreamKind::Nodes, "stream") && readStrings(r, &s.sources) &&
         r.string(&s.metric) && readPatterns(r, &s.patterns) && r.u8(&hasWhen);
    s.hasWhen = hasWhen;
    if (ok && s.hasWhen) ok = readExpr(r, &s.when, 0);
    ok = ok && r.svarint(&s.sustained) && r.count(&n, 2);
    if (ok) s.lets.resize(n);
    for (auto& let : s.lets) {
      if (!ok) break;
      ok = r.string(&let.name) && readExpr(r, &let.value, 0);
    }
    ok = ok && r.string(&s.message);
  }
  ok = ok && r.count(&n);
  if (ok) p.symptomSets.resize(n);
  for (size_t i = 0; ok && i < p.symptomSets.size(); ++i) {
    uint64_t m;
    ok = r.count(&m);
    if (ok) p.symptomSets[i].resize(m);
    for (size_t j = 0; ok && j < m; ++j) {
      uint64_t id;
      ok = r.varint(&id);
      if (ok && id > INT32_MAX) ok = r.fail("symptom id out of range");
      p.symptomSets[i][j] = static_cast<int32_t>(id);
    }
  }
  ok = ok && readPatterns(r, &p.regexes) && r.count(&n, 2);
  if (ok) p.filters.resize(n);
  for (size_t i = 0; ok && i < p.filters.size(); ++i) {
    Filter& f = p.filters[i];
    uint64_t m;
    ok = r.string(&f.name) && r.count(&m, 6);
    if (ok) f.statements.resize(m);
    for (size_t j = 0; ok && j < f.statements.size(); ++j) {
      FilterStatement& st = f.statements[j];
      uint8_t hasWhere = 0, keepFirst = 0;
      ok = readEnum(r, &st.kind, FilterStatement::Kind::KeepWhere, "filter statement") && readInt32(r, &st.set) &&
           r.u8(&hasWhere);
      st.hasWhere = hasWhere;
      if (ok && st.hasWhere) ok = readExpr(r, &st.where, 0);
      ok = ok && r.u8(&keepFirst) && r.svarint(&st.keepCount) && readStrings(r, &st.keys);
      st.keepFirst = keepFirst;
    }
  }
  ok = ok && r.count(&n, 5);
  if (ok) p.rules.resize(n);
  for (size_t i = 0; ok && i < p.rules.size(); ++i) {
    Rule& rule = p.rules[i];
    uint64_t m;
    uint8_t hasWhere = 0;
    ok = r.string(&rule.name) && readEnum(r, &rule.phase, Phase::PostOutcome, "phase") && r.count(&m);
    if (ok) rule.bindings.resize(m);
    for (size_t j = 0; ok && j < m; ++j) ok = readInt32(r, &rule.bindings[j]);
    ok = ok && r.u8(&hasWhere);
    rule.hasWhere = hasWhere;
    if (ok && rule.hasWhere) ok = readExpr(r, &rule.where, 0);
    ok = ok && r.count(&m, 3);
    if (ok) rule.actions.resize(m);
    for (size_t j = 0; ok && j < m; ++j) {
      ok = readEnum(r, &rule.actions[j].kind, RuleAction::Kind::Drop, "rule action") &&
           readInt32(r, &rule.actions[j].subject) && readInt32(r, &rule.actions[j].object);
    }
    ok = ok && readInt32(r, &rule.slots);
  }
  ok = ok && r.count(&n, 12);
  if (ok) p.outcomes.resize(n);
  for (size_t i = 0; ok && i < p.outcomes.size(); ++i) {
    Outcome& o = p.outcomes[i];
    ok = r.string(&o.name) && r.string(&o.title) && r.string(&o.family) && readStrings(r, &o.actions) &&
         r.f64(&o.confidence) && readExpr(r, &o.when, 0) && readInt32(r, &o.slots);
  }
  if (!ok) {
    *error = "corrupt program: " + r.error();
    return false;
  }
  if (r.remaining() != 0) {
    *error = fmt::format("corrupt program: {} unexpected bytes after the end", r.remaining());
    return false;
  }
  if (!validateProgram(p, error)) return false;
  *out = std::move(p);
  return true;
}

}  // namespace attrib::ir
