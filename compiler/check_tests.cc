#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "compiler/check_internal.h"
#include "compiler/regex_check.h"
#include "compiler/vocabulary.h"

namespace attrib::check_detail {

using ast::Expr;
using ast::ExprKind;

void Checker::checkDecl(ast::TestDecl& t) {
  static const std::vector<PropertySpec> workloadSpecs = {
      {"id", PropertySpec::Shape::Any},          {"name", PropertySpec::Shape::String},
      {"scheduler", PropertySpec::Shape::Word},  {"state", PropertySpec::Shape::Word, &terminalStates()},
      {"exit_code", PropertySpec::Shape::Int},   {"signal", PropertySpec::Shape::Any},
      {"start", PropertySpec::Shape::Timestamp}, {"end", PropertySpec::Shape::Timestamp},
      {"nodes", PropertySpec::Shape::WordList},  {"ranks_per_node", PropertySpec::Shape::Int},
      {"ranks", PropertySpec::Shape::Int},       {"reason", PropertySpec::Shape::String},
      {"user", PropertySpec::Shape::Any},        {"partition", PropertySpec::Shape::Any}};
  for (size_t i = 1; i < t.workloadRanges.size(); ++i) {
    sink_.report(DiagKind::InvalidTest, t.workloadRanges[i], "a test has one 'workload' block")
        .note(t.workloadRanges[0], "the first one is here");
  }
  auto seen = checkProperties(t.workload, workloadSpecs, "a test workload");
  bool hasStart = seen.count("start") > 0;
  if (t.fixture) {
    namespace fs = std::filesystem;
    fs::path base = fs::path(sources_.file(names_.module().file).path()).parent_path();
    if (!sources_.hasAuxiliary((base / *t.fixture).string())) {
      sink_.report(DiagKind::InvalidTest, t.fixtureRange,
                   fmt::format("fixture file '{}' not found (paths are relative to this rule file)", *t.fixture));
    }
  }
  auto checkTime = [&](const ast::TestTime& at, std::string_view item, std::string_view what) {
    if (at.missing) {
      sink_.report(DiagKind::InvalidTest, at.range,
                   fmt::format("a {} needs its time before the {}: write 'at 2026-01-01T10:00:05Z', or 'at 10:00:05' "
                               "with the workload's start",
                               item, what));
      return;
    }
    if (at.kind != ast::TestTime::Kind::Absolute && !hasStart) {
      sink_.report(DiagKind::InvalidTest, at.range,
                   "a time of day or '+offset' needs the workload's start: add 'start 2026-01-01T00:00:00Z' "
                   "to the workload block");
    }
  };
  static const std::vector<std::string> logAttributes = {"rank", "gpu", "pod", "container"};
  for (auto& line : t.logs) {
    checkTime(line.at, "log line", "text");
    checkSource(line.source);
    for (auto& a : line.attributes) {
      if (!contains(logAttributes, a.name.text)) {
        sink_.report(DiagKind::InvalidTest, a.name.range,
                     fmt::format("a log line has no attribute '{}'{}; attributes are {}", a.name.text,
                                 didYouMean(a.name.text, logAttributes), fmt::join(logAttributes, ", ")));
      } else if (a.name.text == "rank" && a.value.kind != ast::PropertyValue::Kind::Int) {
        sink_.report(DiagKind::InvalidTest, a.value.range, "a rank is an integer");
      }
    }
  }
  for (auto& m : t.metrics) checkTime(m.at, "metric sample", "value");
  if (t.expectations.empty()) {
    sink_.report(DiagKind::InvalidTest, t.nameRange,
                 fmt::format("test \"{}\" expects nothing; add 'expect' lines", t.name));
  }
  for (auto& e : t.expectations) checkExpectation(e);
}

void Checker::checkExpectation(ast::Expectation& e) {
  using Arg = ast::Expectation::Arg;
  static const std::vector<std::string> keys = {"outcome",    "root",   "bad_nodes", "interesting_nodes",
                                                "downstream", "family", "state",     "confidence",
                                                "action",     "symptom"};
  const std::string& key = e.key.text;
  auto bad = [&](const SourceRange& r, const std::string& usage) {
    sink_.report(DiagKind::InvalidTest, r, fmt::format("malformed expectation; write 'expect {}'", usage));
  };
  auto wordArg = [&](size_t i) -> const ast::PropertyValue* {
    if (i < e.args.size() && e.args[i].kind == Arg::Kind::Value &&
        (e.args[i].value.kind == ast::PropertyValue::Kind::Word ||
         e.args[i].value.kind == ast::PropertyValue::Kind::None)) {
      return &e.args[i].value;
    }
    return nullptr;
  };
  auto qualifiedName = [](const ast::PropertyValue& v) {
    ast::QualifiedName q;
    q.range = v.range;
    size_t start = 0;
    for (size_t dot = 0; dot != std::string::npos; start = dot + 1) {
      dot = v.text.find('.', start);
      q.parts.push_back({v.text.substr(start, dot == std::string::npos ? std::string::npos : dot - start), v.range});
    }
    return q;
  };
  auto symptomArg = [&](const ast::PropertyValue& v) { names_.resolveSymptom(qualifiedName(v)); };
  if (!contains(keys, key)) {
    sink_
        .report(DiagKind::InvalidTest, e.key.range,
                fmt::format("unknown expectation '{}'{}", key, didYouMean(key, keys)))
        .note({}, fmt::format("expectations are: {}", fmt::join(keys, ", ")));
    return;
  }
  if (key == "outcome") {
    if (e.args.empty()) return bad(e.range, "outcome NAME [NAME...]");
    for (size_t i = 0; i < e.args.size(); ++i) {
      const auto* w = wordArg(i);
      if (!w) return bad(e.args[i].value.range, "outcome NAME");
      if (w->text == "unknown") continue;
      // A test runs the whole program, so any outcome can be expected by its qualified name;
      // short and alias-qualified names resolve as elsewhere.
      auto l = names_.lookup(qualifiedName(*w));
      if (!index_.outcomes.count(l.qualified)) {
        std::vector<std::string> names;
        for (auto& [n, _] : index_.outcomes) names.push_back(n);
        sink_.report(DiagKind::UnknownName, w->range,
                     fmt::format("unknown outcome '{}'{}", w->text, didYouMean(l.qualified, names)));
      }
    }
  } else if (key == "root") {
    const auto* w = wordArg(0);
    if (!w) return bad(e.range, "root SYMPTOM [on NODE] [rank N]' or 'expect root none");
    if (w->kind != ast::PropertyValue::Kind::None) symptomArg(*w);
    size_t i = 1;
    if (i < e.args.size() && e.args[i].kind == Arg::Kind::On) ++i;
    if (i < e.args.size() && e.args[i].kind == Arg::Kind::Value && e.args[i].value.text == "rank" &&
        i + 1 < e.args.size() && e.args[i + 1].kind == Arg::Kind::Value &&
        e.args[i + 1].value.kind == ast::PropertyValue::Kind::Int) {
      i += 2;
    }
    if (i < e.args.size() || (w->kind == ast::PropertyValue::Kind::None && e.args.size() > 1)) {
      bad(e.args[std::min(i, e.args.size() - 1)].value.range, "root SYMPTOM [on NODE] [rank N]");
    }
  } else if (key == "bad_nodes" || key == "interesting_nodes") {
    if (e.args.size() != 1 || e.args[0].value.kind != ast::PropertyValue::Kind::List) {
      return bad(e.range, key + " [NODE, ...]");
    }
  } else if (key == "downstream" || key == "symptom") {
    const auto* w = wordArg(0);
    if (!w) return bad(e.range, key + " SYMPTOM [count N]");
    symptomArg(*w);
    if (e.args.size() > 1) {
      const auto* c = wordArg(1);
      if (!c || c->text != "count" || e.args.size() != 3 || e.args[2].value.kind != ast::PropertyValue::Kind::Int) {
        bad(e.args[1].value.range, key + " SYMPTOM count N");
      }
    }
  } else if (key == "family") {
    for (size_t i = 0; i < e.args.size(); ++i) {
      const auto* w = wordArg(i);
      if (!w) return bad(e.range, "family NAME");
      if (!contains(failureFamilies(), w->text)) {
        sink_.report(DiagKind::InvalidValue, w->range,
                     fmt::format("'{}' is not a failure family{}", w->text, didYouMean(w->text, failureFamilies())));
      }
    }
    if (e.args.empty()) bad(e.range, "family NAME");
  } else if (key == "state") {
    const auto* w = wordArg(0);
    if (!w || e.args.size() != 1) return bad(e.range, "state FAILED");
    if (!contains(terminalStates(), w->text)) {
      sink_.report(DiagKind::InvalidValue, w->range,
                   fmt::format("'{}' is not a terminal state{}", w->text, didYouMean(w->text, terminalStates())));
    }
  } else if (key == "confidence") {
    bool ok = e.args.size() == 1 && (e.args[0].value.kind == ast::PropertyValue::Kind::Float ||
                                     e.args[0].value.kind == ast::PropertyValue::Kind::Int);
    if (!ok) return bad(e.range, "confidence 0.9' or 'expect confidence >= 0.9");
    const auto& v = e.args[0].value;
    double value = v.kind == ast::PropertyValue::Kind::Int ? static_cast<double>(v.intValue) : v.floatValue;
    if (value < 0 || value > 1) {
      sink_.report(DiagKind::InvalidValue, v.range, fmt::format("confidence {} is outside [0, 1]", v.text));
    }
  } else if (key == "action") {
    if (e.args.empty()) return bad(e.range, "action NAME [NAME...]");
    for (size_t i = 0; i < e.args.size(); ++i) {
      const auto* w = wordArg(i);
      if (!w) return bad(e.args[i].value.range, "action NAME");
      if (!contains(knownActions(), w->text)) {
        sink_.report(DiagKind::InvalidValue, w->range,
                     fmt::format("'{}' is not an action{}", w->text, didYouMean(w->text, knownActions())));
      }
    }
  }
}
}  // namespace attrib::check_detail
