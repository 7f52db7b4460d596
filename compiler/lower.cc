#include "compiler/lower.h"

#include "compiler/scan_form.h"

#include <algorithm>
#include <map>

#include "compiler/builtins.h"
#include "compiler/scan_form.h"

namespace attrib {
namespace {

using ast::ExprKind;
using ast::NameRef;

ir::Type irType(const Type& t) {
  switch (t.kind()) {
    case TypeKind::Bool: case TypeKind::SymptomSet: return ir::Type::Bool;
    case TypeKind::Int: return ir::Type::Int;
    case TypeKind::Float: return ir::Type::Float;
    case TypeKind::String: return ir::Type::String;
    case TypeKind::Time: return ir::Type::Time;
    case TypeKind::Duration: return ir::Type::Duration;
    case TypeKind::State: return ir::Type::State;
    case TypeKind::Instance: return ir::Type::Instance;
    case TypeKind::List: case TypeKind::Range: return ir::Type::List;
    default: return ir::Type::Null;
  }
}

ir::Expr constant(ir::Value v) {
  ir::Expr e;
  e.op = ir::Op::Const;
  e.type = v.type;
  e.constant = std::move(v);
  return e;
}

ir::Expr node(ir::Op op, ir::Type type, std::vector<ir::Expr> operands = {}) {
  ir::Expr e;
  e.op = op;
  e.type = type;
  e.operands = std::move(operands);
  return e;
}

// Names the lowering of one expression can see: aliases bound to slots, and the implicit
// instance bare field names read.
struct Frame {
  std::vector<std::pair<std::string, int32_t>> aliases;  // innermost last
  int32_t implicitSlot = -1;
  int32_t nextSlot = 0;
};

class Lowerer {
 public:
  Lowerer(const Compilation& compilation, const LowerOptions& options) : c_(compilation) {
    program_.name = options.name;
    program_.version = options.version;
  }

  ir::Program run() {
    // Symptom ids follow qualified names (ProgramIndex::symptoms is ordered).
    for (const auto& [q, info] : c_.index().symptoms) {
      ids_[q] = static_cast<int32_t>(ids_.size());
    }
    program_.symptoms.resize(ids_.size());
    const ProgramIndex& index = c_.index();
    for (const auto& [q, info] : index.symptoms) lowerSymptom(q, *info.decl, index.disabled.count(q) > 0);
    // An override takes the place of what it replaces, so precedence stays where the lower
    // layer put it; at its own place it adds nothing. Disabled declarations are left out.
    for (const auto* m : c_.declarationOrder()) {
      for (const auto& decl : m->declarations) {
        std::string q = declaredName(*m, decl);
        if (q.empty() || index.disabled.count(q)) continue;
        if (auto* f = std::get_if<ast::FilterDecl>(&decl)) {
          if (!f->overrides) lowerFilter(q, *index.filters.at(q));
        } else if (auto* r = std::get_if<ast::RuleDecl>(&decl)) {
          if (!r->overrides) lowerRule(q, *index.rules.at(q));
        } else if (auto* o = std::get_if<ast::OutcomeDecl>(&decl)) {
          if (!o->overrides) lowerOutcome(q, *index.outcomes.at(q));
        }
      }
    }
    return std::move(program_);
  }

 private:
  // ---- tables

  int32_t setOf(const std::vector<std::string>& symptoms) {
    std::vector<int32_t> ids;
    for (const auto& q : symptoms) ids.push_back(ids_.at(q));
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    auto [it, inserted] = sets_.emplace(ids, static_cast<int32_t>(program_.symptomSets.size()));
    if (inserted) program_.symptomSets.push_back(ids);
    return it->second;
  }

  int32_t regexOf(const ast::Regex& re) {
    for (size_t i = 0; i < program_.regexes.size(); ++i) {
      if (program_.regexes[i].regex == re.pattern && program_.regexes[i].flags == re.flags) return static_cast<int32_t>(i);
    }
    program_.regexes.push_back({re.pattern, re.flags, re.captures, {}});
    return static_cast<int32_t>(program_.regexes.size() - 1);
  }

  static const ast::Property* property(const std::vector<ast::Property>& props, const std::string& name) {
    for (const auto& p : props) {
      if (p.name.text == name && !p.values.empty()) return &p;
    }
    return nullptr;
  }

  static std::string word(const std::vector<ast::Property>& props, const std::string& name, std::string fallback) {
    const ast::Property* p = property(props, name);
    if (!p) return fallback;
    return p->values[0].kind == ast::PropertyValue::Kind::None ? "none" : p->values[0].text;
  }

  static std::vector<std::string> words(const std::vector<ast::Property>& props, const std::string& name) {
    std::vector<std::string> out;
    for (const auto& p : props) {
      if (p.name.text != name) continue;
      for (const auto& v : p.values) {
        if (v.kind == ast::PropertyValue::Kind::List) {
          for (const auto& item : v.items) out.push_back(item.text);
        } else {
          out.push_back(v.kind == ast::PropertyValue::Kind::None ? "none" : v.text);
        }
      }
    }
    return out;
  }

  // ---- declarations

  // A disabled symptom keeps its name and metadata but never produces an instance: no patterns,
  // and a condition that is false.
  void lowerSymptom(const std::string& q, const ast::SymptomDecl& s, bool disabled) {
    ir::Symptom& out = program_.symptoms[ids_.at(q)];
    const SymptomInfo& info = c_.index().symptoms.at(q);
    out.name = q;
    out.title = s.title ? *s.title : word(s.properties, "title", "");
    out.description = word(s.properties, "description", "");
    out.family = word(s.properties, "family", "unknown");
    std::string severity = word(s.properties, "severity", "error");
    out.severity = severity == "critical" ? ir::Severity::Critical
                   : severity == "warning" ? ir::Severity::Warning
                   : severity == "info"    ? ir::Severity::Info
                                           : ir::Severity::Error;
    std::string blame = word(s.properties, "blame", "node");
    out.blame = blame == "gpu"        ? ir::Blame::Gpu
                : blame == "rank"     ? ir::Blame::Rank
                : blame == "workload" ? ir::Blame::Workload
                : blame == "none"     ? ir::Blame::None
                                      : ir::Blame::Node;
    out.role = info.role == SymptomRole::Consequence ? ir::Role::Consequence
               : info.role == SymptomRole::Context   ? ir::Role::Context
                                                     : ir::Role::Cause;
    out.actions = words(s.properties, "action");
    out.refs = words(s.properties, "ref");
    const ast::StreamSpec& stream = s.streams.at(0);
    out.stream = stream.kind == ast::StreamSpec::Kind::Metric      ? ir::StreamKind::Metric
                 : stream.kind == ast::StreamSpec::Kind::Scheduler ? ir::StreamKind::Scheduler
                 : stream.kind == ast::StreamSpec::Kind::Ranks     ? ir::StreamKind::Ranks
                 : stream.kind == ast::StreamSpec::Kind::Nodes     ? ir::StreamKind::Nodes
                                                                   : ir::StreamKind::Log;
    for (const auto& src : stream.sources) out.sources.push_back(src.text);
    out.metric = stream.metric;
    for (const auto& re : s.matches) {
      out.patterns.push_back({re.pattern, re.flags, re.captures,
                              requiredLiteral(re.pattern, re.flags, scanForm(re.pattern).expression)});
    }
    current_ = &s;
    if (s.when) {
      out.hasWhen = true;
      out.when = instancePredicate(*s.when);
    }
    for (const auto& let : s.lets) out.lets.push_back({let.name.text, instancePredicate(*let.value)});
    if (const ast::Property* m = property(s.properties, "message")) out.message = m->values[0].text;
    current_ = nullptr;
    out.sustained = s.sustained.value_or(0);
    if (disabled) {
      out.patterns.clear();
      out.hasWhen = true;
      out.when = constant(ir::Value::boolean(false));
      out.lets.clear();
    }
  }

  void lowerFilter(const std::string& q, const ast::FilterDecl& f) {
    ir::Filter out;
    out.name = q;
    for (const auto& st : f.statements) {
      ir::FilterStatement s;
      s.kind = st.kind == ast::FilterStmt::Kind::Drop      ? ir::FilterStatement::Kind::Drop
               : st.kind == ast::FilterStmt::Kind::KeepPer ? ir::FilterStatement::Kind::KeepPer
                                                           : ir::FilterStatement::Kind::KeepWhere;
      s.set = setOf(st.symptoms);
      if (st.where) {
        s.hasWhere = true;
        s.where = instancePredicate(*st.where);
      }
      s.keepFirst = st.keepFirst;
      s.keepCount = st.keepCount;
      for (const auto& k : st.keys) s.keys.push_back(k.text);
      out.statements.push_back(std::move(s));
    }
    program_.filters.push_back(std::move(out));
  }

  void lowerRule(const std::string& q, const ast::RuleDecl& r) {
    ir::Rule out;
    out.name = q;
    std::string phase = word(r.properties, "phase", "main");
    out.phase = phase == "early" ? ir::Phase::Early
                : phase == "final" ? ir::Phase::Final
                : phase == "post_outcome" ? ir::Phase::PostOutcome
                                          : ir::Phase::Main;
    Frame frame;
    for (const auto& b : r.bindings) {
      frame.aliases.emplace_back(b.alias.text, static_cast<int32_t>(out.bindings.size()));
      out.bindings.push_back(setOf(b.symptoms));
    }
    frame.nextSlot = static_cast<int32_t>(out.bindings.size());
    if (r.where) {
      out.hasWhere = true;
      out.where = predicate(*r.where, frame);
    }
    auto bindingOf = [&](const ast::Ident& id) -> int32_t {
      for (const auto& [name, slot] : frame.aliases) {
        if (name == id.text) return slot;
      }
      return -1;
    };
    for (const auto& a : r.actions) {
      ir::RuleAction action;
      action.subject = bindingOf(a.subject);
      switch (a.kind) {
        case ast::RuleAction::Kind::Explain:
          action.kind = ir::RuleAction::Kind::Explain;
          action.object = bindingOf(a.object);
          break;
        case ast::RuleAction::Kind::Mark:
          action.kind = a.object.text == "bad" ? ir::RuleAction::Kind::MarkBad : ir::RuleAction::Kind::MarkInteresting;
          break;
        case ast::RuleAction::Kind::Drop:
          action.kind = ir::RuleAction::Kind::Drop;
          break;
      }
      out.actions.push_back(action);
    }
    out.slots = std::max(frame.nextSlot, static_cast<int32_t>(out.bindings.size()));
    program_.rules.push_back(std::move(out));
  }

  void lowerOutcome(const std::string& q, const ast::OutcomeDecl& o) {
    ir::Outcome out;
    out.name = q;
    out.title = o.title ? *o.title : word(o.properties, "title", "");
    out.family = word(o.properties, "family", "unknown");
    out.actions = words(o.properties, "action");
    if (const ast::Property* c = property(o.properties, "confidence")) {
      const auto& v = c->values[0];
      out.confidence = v.kind == ast::PropertyValue::Kind::Int ? static_cast<double>(v.intValue) : v.floatValue;
    }
    Frame frame;
    frame.nextSlot = 1;  // slot 0 is the root cause
    out.when = predicate(*o.when, frame);
    out.slots = frame.nextSlot;
    program_.outcomes.push_back(std::move(out));
  }

  // ---- expressions

  // A predicate position. Symptom-set operands (`xid48 and ...`) were already lowered to
  // `exists`, so a predicate is an ordinary bool expression.
  ir::Expr predicate(const ast::Expr& e, Frame& frame) { return expr(e, frame); }

  // A predicate over one instance in slot 0, whose fields bare names read (symptom clauses,
  // filter statements).
  ir::Expr instancePredicate(const ast::Expr& e) {
    Frame frame;
    frame.implicitSlot = 0;
    frame.nextSlot = 1;
    return predicate(e, frame);
  }

  int32_t aliasSlot(const Frame& frame, const std::string& name) const {
    for (auto it = frame.aliases.rbegin(); it != frame.aliases.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    return -1;
  }

  ir::Expr slot(int32_t s) {
    ir::Expr e = node(ir::Op::Slot, ir::Type::Instance);
    e.slot = s;
    return e;
  }

  // Reads field (or capture) `name` of the instance `of`.
  ir::Expr fieldOf(ir::Expr of, const std::string& name, const Type& type) {
    ir::Field f;
    if (ir::fieldFromName(name, &f)) {
      ir::Expr e = node(ir::Op::FieldOf, irType(type), {std::move(of)});
      e.field = f;
      return e;
    }
    ir::Expr e = node(ir::Op::CaptureOf, ir::Type::String, {std::move(of)});
    e.name = name;
    return e;
  }

  ir::Expr workloadField(const std::string& name, const Type& type) {
    ir::Expr e = node(ir::Op::Workload, irType(type));
    ir::workloadFieldFromName(name, &e.wfield);
    return e;
  }

  ir::Expr exists(int32_t set, Frame& frame) {
    ir::Expr e = node(ir::Op::Exists, ir::Type::Bool);
    e.set = set;
    e.slot = frame.nextSlot++;
    return e;
  }

  ir::Expr expr(const ast::Expr& e, Frame& frame) {
    switch (e.kind) {
      case ExprKind::Int: return constant(ir::Value::integer(ir::Type::Int, e.intValue));
      case ExprKind::Float: return constant(ir::Value::real(e.floatValue));
      case ExprKind::String: return constant(ir::Value::string(e.text));
      case ExprKind::Duration: return constant(ir::Value::integer(ir::Type::Duration, e.intValue));
      case ExprKind::Time: return constant(ir::Value::integer(ir::Type::Time, e.intValue));
      case ExprKind::Bool: return constant(ir::Value::boolean(e.boolValue));
      case ExprKind::None: return constant(ir::Value::null());
      case ExprKind::Name: return name(e, frame);
      case ExprKind::Member: {
        const ast::Expr& of = *e.operands[0];
        if (of.type.is(TypeKind::Workload)) return workloadField(e.field, e.type);
        return fieldOf(expr(of, frame), e.field, e.type);
      }
      case ExprKind::Negate: return node(ir::Op::Neg, irType(e.type), {expr(*e.operands[0], frame)});
      case ExprKind::Not: return node(ir::Op::Not, ir::Type::Bool, {expr(*e.operands[0], frame)});
      case ExprKind::Binary: return binary(e, frame);
      case ExprKind::In: return in(e, frame);
      case ExprKind::RegexMatch: {
        ir::Expr m = node(ir::Op::Match, ir::Type::Bool, {expr(*e.operands[0], frame)});
        m.regex = regexOf(*e.regex);
        m.negated = e.negated;
        return m;
      }
      case ExprKind::Is: {
        ir::Expr of = expr(*e.operands[0], frame);
        if (e.isNone) {
          ir::Expr is = node(ir::Op::IsNone, ir::Type::Bool, {std::move(of)});
          is.negated = e.negated;
          return is;
        }
        ir::Expr is = node(ir::Op::IsSymptom, ir::Type::Bool, {std::move(of)});
        is.set = setOf(e.symptoms);
        is.negated = e.negated;
        return is;
      }
      case ExprKind::Call: return call(e, frame);
      case ExprKind::Same: {
        ir::Expr same = node(ir::Op::Same, ir::Type::Bool);
        ir::fieldFromName(e.name.parts[0].text, &same.field);
        return same;
      }
      case ExprKind::List: case ExprKind::Range:
        break;  // only meaningful on the right of `in`, lowered there
    }
    return constant(ir::Value::null());
  }

  ir::Expr name(const ast::Expr& e, Frame& frame) {
    const auto& parts = e.name.parts;
    switch (e.ref) {
      case NameRef::Field:
        return fieldOf(slot(frame.implicitSlot), e.field, e.type);
      case NameRef::Alias: {
        ir::Expr s = slot(aliasSlot(frame, parts[0].text));
        if (parts.size() == 1) return s;
        return fieldOf(std::move(s), e.field, e.type);
      }
      case NameRef::Root:
        if (parts.size() == 1) return slot(0);
        return fieldOf(slot(0), e.field, e.type);
      case NameRef::Workload:
        return workloadField(e.field, e.type);
      case NameRef::StateConst: {
        ir::State st = ir::State::Unknown;
        ir::stateFromName(parts[0].text, &st);
        return constant(ir::Value::integer(ir::Type::State, static_cast<int64_t>(st)));
      }
      case NameRef::Symptom:
        return exists(setOf(e.symptoms), frame);
      case NameRef::Let:
        return let(e.field, frame);
      case NameRef::Unresolved:
        break;
    }
    return constant(ir::Value::null());
  }

  // A let is inlined where it is read, as written: its bare names read the candidate (slot 0)
  // even inside an aggregate's where-clause, and its aggregates take fresh slots.
  ir::Expr let(const std::string& name, Frame& frame) {
    for (const auto& l : current_->lets) {
      if (l.name.text != name) continue;
      Frame own;
      own.implicitSlot = 0;
      own.nextSlot = frame.nextSlot;
      ir::Expr out = expr(*l.value, own);
      frame.nextSlot = std::max(frame.nextSlot, own.nextSlot);
      return out;
    }
    return constant(ir::Value::null());
  }

  ir::Expr binary(const ast::Expr& e, Frame& frame) {
    using B = ast::BinaryOp;
    static const std::map<B, ir::Op> ops = {
        {B::Add, ir::Op::Add}, {B::Sub, ir::Op::Sub}, {B::Mul, ir::Op::Mul}, {B::Div, ir::Op::Div},
        {B::Mod, ir::Op::Mod}, {B::Eq, ir::Op::Eq},   {B::Ne, ir::Op::Ne},   {B::Lt, ir::Op::Lt},
        {B::Le, ir::Op::Le},   {B::Gt, ir::Op::Gt},   {B::Ge, ir::Op::Ge},   {B::And, ir::Op::And},
        {B::Or, ir::Op::Or}};
    // `x == none` asks whether an instance is absent: a null comparison would always be false.
    if ((e.op == B::Eq || e.op == B::Ne) &&
        (e.operands[0]->type.is(TypeKind::None) || e.operands[1]->type.is(TypeKind::None))) {
      const ast::Expr& other = e.operands[0]->type.is(TypeKind::None) ? *e.operands[1] : *e.operands[0];
      ir::Expr is = node(ir::Op::IsNone, ir::Type::Bool, {expr(other, frame)});
      is.negated = e.op == B::Ne;
      return is;
    }
    ir::Expr a = expr(*e.operands[0], frame);
    ir::Expr b = expr(*e.operands[1], frame);
    return node(ops.at(e.op), irType(e.type), {std::move(a), std::move(b)});
  }

  ir::Expr in(const ast::Expr& e, Frame& frame) {
    const ast::Expr& lhs = *e.operands[0];
    const ast::Expr& rhs = *e.operands[1];
    ir::Expr value = expr(lhs, frame);
    ir::Expr out;
    bool continuous = lhs.type.is(TypeKind::Time) || lhs.type.is(TypeKind::Float) || lhs.type.is(TypeKind::Duration);
    if (rhs.kind == ExprKind::Range) {
      out = node(ir::Op::InRange, ir::Type::Bool,
                 {std::move(value), expr(*rhs.operands[0], frame), expr(*rhs.operands[1], frame)});
    } else if (rhs.kind == ExprKind::List && continuous) {
      out = node(ir::Op::InInterval, ir::Type::Bool,
                 {std::move(value), expr(*rhs.operands[0], frame), expr(*rhs.operands[1], frame)});
    } else if (rhs.kind == ExprKind::List) {
      std::vector<ir::Expr> operands;
      operands.push_back(std::move(value));
      for (const auto& item : rhs.operands) operands.push_back(expr(*item, frame));
      out = node(ir::Op::InList, ir::Type::Bool, std::move(operands));
    } else {
      out = node(ir::Op::InNodes, ir::Type::Bool, {std::move(value)});  // workload.nodes, the only list value
    }
    if (!e.negated) return out;
    return node(ir::Op::Not, ir::Type::Bool, {std::move(out)});
  }

  ir::Expr call(const ast::Expr& e, Frame& frame) {
    const std::string& fn = e.name.parts[0].text;
    static const std::map<std::string, ir::Op> aggregates = {
        {"count", ir::Op::Count}, {"exists", ir::Op::Exists}, {"first", ir::Op::First},
        {"last", ir::Op::Last},   {"distinct", ir::Op::Distinct}, {"min_by", ir::Op::MinBy},
        {"max_by", ir::Op::MaxBy}, {"median", ir::Op::Percentile}, {"percentile", ir::Op::Percentile}};
    static const std::map<std::string, ir::Op> windows = {
        {"avg", ir::Op::WindowAvg}, {"min", ir::Op::WindowMin}, {"max", ir::Op::WindowMax},
        {"sum", ir::Op::WindowSum}, {"rate", ir::Op::WindowRate}, {"delta", ir::Op::WindowDelta}};
    if (auto it = aggregates.find(fn); it != aggregates.end()) {
      const ast::CallArg& arg = e.args[0];
      ir::Expr agg = node(it->second, irType(e.type));
      agg.set = setOf(e.symptoms);
      agg.slot = frame.nextSlot++;
      if (arg.sameKey) {
        agg.sameKey = true;
        ir::fieldFromName(arg.sameKey->text, &agg.field);
      }
      // distinct counts a field's values, or a capture's (named in `name`).
      if (fn == "distinct" && !ir::fieldFromName(e.args[1].value->field, &agg.counted)) agg.name = e.args[1].value->field;
      Frame inner = frame;
      if (arg.alias) inner.aliases.emplace_back(arg.alias->text, agg.slot);
      else inner.implicitSlot = agg.slot;
      if (arg.where) {
        agg.hasWhere = true;
        agg.operands.push_back(expr(*arg.where, inner));
      }
      if (agg.op == ir::Op::MinBy || agg.op == ir::Op::MaxBy || agg.op == ir::Op::Percentile) {
        agg.operands.push_back(expr(*e.args[1].value, inner));
      }
      frame.nextSlot = std::max(frame.nextSlot, inner.nextSlot);
      if (fn == "median") agg.operands.push_back(constant(ir::Value::real(50.0)));
      if (fn == "percentile") agg.operands.push_back(expr(*e.args[2].value, frame));
      return agg;
    }
    if (e.over) {
      ir::Expr w = node(windows.at(fn), ir::Type::Float, {expr(*e.args[0].value, frame)});
      w.window = *e.over;
      return w;
    }
    std::vector<ir::Expr> operands;
    for (const auto& a : e.args) operands.push_back(expr(*a.value, frame));
    return node(findBuiltin(fn)->op, irType(e.type), std::move(operands));  // checked: a scalar built-in
  }

  const Compilation& c_;
  const ast::SymptomDecl* current_ = nullptr;  // the symptom whose lets names may read
  ir::Program program_;
  std::map<std::string, int32_t> ids_;
  std::map<std::vector<int32_t>, int32_t> sets_;
};

}  // namespace

ir::Program lower(const Compilation& compilation, const LowerOptions& options) {
  return Lowerer(compilation, options).run();
}

}  // namespace attrib
