#include "tools/attribc/rule_tests.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "compiler/literals.h"

namespace attrib::tools {
namespace {

using runtime::Verdict;

constexpr int64_t kDay = 86400LL * kNanosPerSecond;

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return "[" + out + "]";
}

class TestRun {
 public:
  TestRun(const Compilation& c, const runtime::Engine& engine, const ast::Module& module, const ast::TestDecl& test)
      : c_(c), engine_(engine), module_(module), test_(test) {}

  RuleTestResult run() {
    RuleTestResult r;
    const SourceFile& file = c_.sources().file(module_.file);
    r.file = file.path();
    r.line = file.lineColumn(test_.range.begin).line;
    r.name = test_.name;
    evidence::WorkloadEvidence evidence;
    if (!buildEvidence(evidence, r.failures)) return r;
    Verdict v = engine_.diagnose(std::move(evidence));
    for (const auto& e : test_.expectations) check(e, v, r.failures);
    r.passed = r.failures.empty();
    r.layer = module_.layer;
    for (const auto& o : v.outcomes) r.names.insert(o.name);
    if (v.root) r.names.insert(v.root->symptom);
    for (const auto& [name, n] : v.symptomCounts) r.names.insert(name);
    for (const auto& d : v.downstream) {
      r.names.insert(d.symptom);
      r.names.insert(d.explainedBy.substr(0, d.explainedBy.find('@')));
      r.names.insert(d.rule);
    }
    for (const auto& e : test_.expectations) {
      for (const auto& a : e.args) {
        if (a.value.kind != ast::PropertyValue::Kind::Word) continue;
        r.names.insert(resolve(a.value.text, e.key.text == "outcome" ? outcomeNames() : symptomNames()));
      }
    }
    return r;
  }

 private:
  std::string package() const { return module_.packageName(); }

  bool buildEvidence(evidence::WorkloadEvidence& ev, std::vector<std::string>& failures) {
    evidence::Workload& w = ev.workload;
    w.id = "test";
    w.scheduler = "static";
    for (const auto& p : test_.workload) {
      const auto& v = p.values[0];
      const std::string& k = p.name.text;
      if (k == "id" || k == "name" || k == "scheduler" || k == "reason" || k == "user" || k == "partition") {
        std::string& target = k == "id" ? w.id : k == "name" ? w.name : k == "scheduler" ? w.scheduler
                              : k == "reason" ? w.reason : k == "user" ? w.user : w.partition;
        target = v.text;
      } else if (k == "state") {
        ir::stateFromName(v.text, &w.state);
      } else if (k == "exit_code") {
        w.exitCode = v.intValue;
      } else if (k == "signal" && v.kind == ast::PropertyValue::Kind::Int) {
        w.signal = v.intValue;
      } else if (k == "start") {
        w.start = v.intValue;
      } else if (k == "end") {
        w.end = v.intValue;
      } else if (k == "ranks_per_node") {
        w.ranksPerNode = v.intValue;
      } else if (k == "ranks") {
        w.ranks = v.intValue;
      } else if (k == "nodes") {
        for (const auto& n : v.items) w.nodes.push_back(n.text);
      }
    }
    auto timeOf = [&](const ast::TestTime& t) -> int64_t {
      switch (t.kind) {
        case ast::TestTime::Kind::Absolute: return t.nanos;
        case ast::TestTime::Kind::TimeOfDay: {
          int64_t start = w.start.value_or(0);
          int64_t midnight = start - ((start % kDay) + kDay) % kDay;
          return midnight + t.nanos;
        }
        case ast::TestTime::Kind::Offset: return w.start.value_or(0) + t.nanos;
      }
      return 0;
    };
    const SourceFile& file = c_.sources().file(module_.file);
    for (const auto& l : test_.logs) {
      evidence::LogLine line;
      line.node = l.node.text;
      line.source = l.source.text;
      line.time = timeOf(l.at);
      line.text = l.text;
      for (const auto& a : l.attributes) {
        if (a.name.text == "rank") line.rank = a.value.intValue;
        else if (a.name.text == "gpu") line.gpu = a.value.text;
      }
      line.where.connector = "test";
      line.where.location = file.path();
      line.where.line = file.lineColumn(l.range.begin).line;
      line.where.offset = l.range.begin;
      ev.lines.push_back(std::move(line));
    }
    for (const auto& m : test_.metrics) {
      evidence::MetricSample s;
      s.name = m.metric;
      s.time = timeOf(m.at);
      s.value = m.value;
      for (const auto& a : m.attributes) {
        if (a.name.text == "node") s.node = a.value.text;
        else if (a.name.text == "gpu") s.gpu = a.value.text;
        s.labels.emplace_back(a.name.text, a.value.text);
      }
      std::sort(s.labels.begin(), s.labels.end());
      s.where = {"test", file.path(), m.range.begin, file.lineColumn(m.range.begin).line};
      ev.metrics.push_back(std::move(s));
    }
    if (test_.fixture) return readFixture(ev, failures);
    return true;
  }

  // A fixture is JSON lines: {"log": {"node","source","time","text","rank"}} or
  // {"metric": {"name","labels","time","value"}}; times are RFC 3339.
  bool readFixture(evidence::WorkloadEvidence& ev, std::vector<std::string>& failures) {
    namespace fs = std::filesystem;
    fs::path path = fs::path(c_.sources().file(module_.file).path()).parent_path() / *test_.fixture;
    std::optional<std::string> contents = c_.sources().readAuxiliary(path.string());
    if (!contents) {
      failures.push_back(fmt::format("cannot read fixture '{}'", path.string()));
      return false;
    }
    std::istringstream in(std::move(*contents));
    std::string text;
    uint64_t n = 0;
    while (std::getline(in, text)) {
      ++n;
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto j = nlohmann::json::parse(text, nullptr, false);
      auto bad = [&](const char* why) {
        failures.push_back(fmt::format("{}:{}: {}", path.string(), n, why));
        return false;
      };
      if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
      auto time = [&](const nlohmann::json& o) -> std::optional<int64_t> {
        if (!o.contains("time") || !o["time"].is_string()) return std::nullopt;
        return parseTimestamp(o["time"].get<std::string>());
      };
      if (j.contains("log") && j["log"].is_object()) {
        const auto& o = j["log"];
        evidence::LogLine line;
        line.node = o.value("node", "");
        line.source = o.value("source", "applog");
        line.text = o.value("text", "");
        line.time = time(o);
        if (o.contains("rank") && o["rank"].is_number_integer()) line.rank = o["rank"].get<int64_t>();
        line.where = {"fixture", path.string(), n, n};
        ev.lines.push_back(std::move(line));
      } else if (j.contains("metric") && j["metric"].is_object()) {
        const auto& o = j["metric"];
        auto t = time(o);
        if (!t || !o.contains("value") || !o["value"].is_number() || !o.contains("name")) {
          return bad("a metric needs name, time and value");
        }
        evidence::MetricSample s;
        s.name = o["name"].get<std::string>();
        s.time = *t;
        s.value = o["value"].get<double>();
        if (o.contains("labels") && o["labels"].is_object()) {
          for (auto& [k, v] : o["labels"].items()) {
            std::string value = v.is_string() ? v.get<std::string>() : v.dump();
            if (k == "node") s.node = value;
            if (k == "gpu") s.gpu = value;
            s.labels.emplace_back(k, value);
          }
          std::sort(s.labels.begin(), s.labels.end());
        }
        s.where = {"fixture", path.string(), n, n};
        ev.metrics.push_back(std::move(s));
      } else {
        return bad("expected {\"log\": {...}} or {\"metric\": {...}}");
      }
    }
    return true;
  }

  // The qualified name a test means: exact, in the test's package, or a unique suffix.
  std::string resolve(const std::string& name, const std::vector<std::string>& known) const {
    if (std::find(known.begin(), known.end(), name) != known.end()) return name;
    std::string local = ast::qualify(package(), name);
    if (std::find(known.begin(), known.end(), local) != known.end()) return local;
    std::string found;
    for (const auto& k : known) {
      if (k.size() > name.size() && k.compare(k.size() - name.size(), name.size(), name) == 0 &&
          k[k.size() - name.size() - 1] == '.') {
        if (!found.empty()) return name;  // ambiguous: keep as written
        found = k;
      }
    }
    return found.empty() ? name : found;
  }

  std::vector<std::string> symptomNames() const {
    std::vector<std::string> out;
    for (const auto& s : engine_.bundle().program.symptoms) out.push_back(s.name);
    return out;
  }

  std::vector<std::string> outcomeNames() const {
    std::vector<std::string> out;
    for (const auto& o : engine_.bundle().program.outcomes) out.push_back(o.name);
    return out;
  }

  static std::vector<std::string> listOf(const ast::PropertyValue& v) {
    std::vector<std::string> out;
    for (const auto& item : v.items) out.push_back(item.text);
    std::sort(out.begin(), out.end());
    return out;
  }

  static bool compareNumber(const std::string& op, double actual, double expected) {
    if (op == ">=") return actual >= expected;
    if (op == "<=") return actual <= expected;
    if (op == ">") return actual > expected;
    if (op == "<") return actual < expected;
    if (op == "!=") return std::fabs(actual - expected) > 1e-9;
    return std::fabs(actual - expected) <= 1e-9;
  }

  void check(const ast::Expectation& e, const Verdict& v, std::vector<std::string>& failures) {
    using Arg = ast::Expectation::Arg;
    const std::string& key = e.key.text;
    auto fail = [&](std::string text) {
      failures.push_back(fmt::format("line {}: {}", c_.sources().file(module_.file).lineColumn(e.range.begin).line, text));
    };
    if (key == "outcome") {
      std::vector<std::string> expected, actual;
      for (const auto& a : e.args) {
        if (a.value.text != "unknown") expected.push_back(resolve(a.value.text, outcomeNames()));
      }
      for (const auto& o : v.outcomes) actual.push_back(o.name);
      std::vector<std::string> sortedExpected = expected, sortedActual = actual;
      std::sort(sortedExpected.begin(), sortedExpected.end());
      std::sort(sortedActual.begin(), sortedActual.end());
      if (sortedExpected != sortedActual) {
        fail(fmt::format("expected outcome {}, got {}", expected.empty() ? "unknown" : joined(expected),
                         actual.empty() ? "unknown" : joined(actual)));
      }
    } else if (key == "root") {
      std::string got = v.root ? v.root->symptom + (v.root->node.empty() ? "" : " on " + v.root->node) +
                                     (v.root->rank ? fmt::format(" rank {}", *v.root->rank) : "")
                               : "none";
      if (e.args[0].value.kind == ast::PropertyValue::Kind::None) {
        if (v.root) fail(fmt::format("expected no root cause, got {}", got));
        return;
      }
      std::string symptom = resolve(e.args[0].value.text, symptomNames());
      bool ok = v.root && v.root->symptom == symptom;
      std::string want = symptom;
      size_t i = 1;
      if (i < e.args.size() && e.args[i].kind == Arg::Kind::On) {
        want += " on " + e.args[i].value.text;
        ok = ok && v.root->node == e.args[i].value.text;
        ++i;
      }
      if (i + 1 < e.args.size() && e.args[i].value.text == "rank") {
        int64_t rank = e.args[i + 1].value.intValue;
        want += fmt::format(" rank {}", rank);
        ok = ok && v.root->rank && *v.root->rank == rank;
      }
      if (!ok) fail(fmt::format("expected root {}, got {}", want, got));
    } else if (key == "bad_nodes" || key == "interesting_nodes") {
      std::vector<std::string> expected = listOf(e.args[0].value), actual;
      for (const auto& n : key == "bad_nodes" ? v.badNodes : v.interestingNodes) actual.push_back(n.node);
      std::sort(actual.begin(), actual.end());
      if (expected != actual) fail(fmt::format("expected {} {}, got {}", key, joined(expected), joined(actual)));
    } else if (key == "downstream" || key == "symptom") {
      std::string symptom = resolve(e.args[0].value.text, symptomNames());
      uint64_t count = 0;
      if (key == "downstream") {
        for (const auto& d : v.downstream) count += d.symptom == symptom ? d.count : 0;
      } else {
        for (const auto& [name, n] : v.symptomCounts) count += name == symptom ? n : 0;
      }
      if (e.args.size() == 3) {
        auto expected = static_cast<uint64_t>(e.args[2].value.intValue);
        if (count != expected) fail(fmt::format("expected {} {} count {}, got {}", key, symptom, expected, count));
      } else if (count == 0) {
        fail(fmt::format("expected {} {}, got none", key, symptom));
      }
    } else if (key == "family") {
      std::set<std::string> actual;
      for (const auto& o : v.outcomes) actual.insert(o.family);
      if (v.outcomes.empty()) actual.insert("unknown");
      for (const auto& a : e.args) {
        if (!actual.count(a.value.text)) {
          fail(fmt::format("expected family {}, got {}", a.value.text, joined({actual.begin(), actual.end()})));
        }
      }
    } else if (key == "state") {
      std::string actual = ir::stateName(v.workload.state);
      if (actual != e.args[0].value.text) fail(fmt::format("expected state {}, got {}", e.args[0].value.text, actual));
    } else if (key == "confidence") {
      const auto& a = e.args[0];
      double expected = a.value.kind == ast::PropertyValue::Kind::Int ? static_cast<double>(a.value.intValue)
                                                                       : a.value.floatValue;
      std::string op = a.kind == Arg::Kind::Compare ? a.compareOp : "==";
      if (!compareNumber(op, v.confidence, expected)) {
        fail(fmt::format("expected confidence {} {}, got {:.3f}", op, expected, v.confidence));
      }
    } else if (key == "action") {
      for (const auto& a : e.args) {
        if (std::find(v.actions.begin(), v.actions.end(), a.value.text) == v.actions.end()) {
          fail(fmt::format("expected action {}, got {}", a.value.text, joined(v.actions)));
        }
      }
    }
  }

  const Compilation& c_;
  const runtime::Engine& engine_;
  const ast::Module& module_;
  const ast::TestDecl& test_;
};

}  // namespace

std::vector<RuleTestResult> runRuleTests(const Compilation& compilation, const runtime::Engine& engine,
                                         const RuleTestFilter& filter) {
  std::vector<const ast::Module*> modules = compilation.declarationOrder();
  std::sort(modules.begin(), modules.end(), [&](auto* a, auto* b) {
    return compilation.sources().file(a->file).path() < compilation.sources().file(b->file).path();
  });
  std::vector<RuleTestResult> results;
  for (const auto* m : modules) {
    for (const auto& decl : m->declarations) {
      const auto* t = std::get_if<ast::TestDecl>(&decl);
      if (!t || (filter && !filter(compilation.sources().file(m->file).path(), t->name))) continue;
      results.push_back(TestRun(compilation, engine, *m, *t).run());
    }
  }
  return results;
}

}  // namespace attrib::tools
