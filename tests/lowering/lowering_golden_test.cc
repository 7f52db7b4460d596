// Golden tests for lowering: every tests/lowering/cases/NAME.attr is checked, lowered to the IR
// (compiler/lower.h) and listed (below: declarations, every clause as ir::dump, every rule's
// join plan as runtime::describePlan); the listing must equal NAME.ir byte for byte. A change
// to lowering shows up as a diff of what the rules become, reviewed with the change.
//
// ATTRIB_UPDATE_GOLDEN=1 writes the listings instead of comparing them (then review the diff).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/compilation.h"
#include "compiler/diagnostic_render.h"
#include "compiler/lower.h"
#include "ir/ir.h"
#include "runtime/join_plan.h"

namespace attrib {
namespace {

namespace fs = std::filesystem;

const char* streamName(ir::StreamKind k) {
  switch (k) {
    case ir::StreamKind::Log: return "log";
    case ir::StreamKind::Metric: return "metric";
    case ir::StreamKind::Scheduler: return "scheduler";
    case ir::StreamKind::Ranks: return "ranks";
    case ir::StreamKind::Nodes: return "nodes";
  }
  return "?";
}

const char* phaseName(ir::Phase p) {
  switch (p) {
    case ir::Phase::Early: return "early";
    case ir::Phase::Main: return "main";
    case ir::Phase::Final: return "final";
    case ir::Phase::PostOutcome: return "post_outcome";
  }
  return "?";
}

std::string setText(const ir::Program& program, int32_t set) {
  std::string out = fmt::format("set#{} [", set);
  const auto& ids = program.symptomSets[set];
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + program.symptoms[ids[i]].name;
  return out + "]";
}

// The listing of a lowered program.
std::string listing(const ir::Program& program) {
  std::string out;
  for (const auto& s : program.symptoms) {
    out += fmt::format("symptom {} on {}", s.name, streamName(s.stream));
    if (!s.metric.empty()) out += " " + s.metric;
    if (!s.sources.empty()) out += fmt::format(" sources [{}]", fmt::join(s.sources, " "));
    out += fmt::format(" {} {} {}\n", ir::severityName(s.severity), ir::blameName(s.blame), ir::roleName(s.role));
    for (const auto& p : s.patterns) out += fmt::format("  pattern /{}/{}\n", p.regex, p.flags);
    if (s.hasWhen) out += fmt::format("  when {}\n", ir::dump(s.when));
    if (s.sustained) out += fmt::format("  for {}ns\n", s.sustained);
    for (const auto& let : s.lets) out += fmt::format("  let {} = {}\n", let.name, ir::dump(let.value));
  }
  for (size_t r = 0; r < program.regexes.size(); ++r) {
    out += fmt::format("regex#{} /{}/{}\n", r, program.regexes[r].regex, program.regexes[r].flags);
  }
  for (const auto& f : program.filters) {
    out += fmt::format("filter {}\n", f.name);
    for (const auto& st : f.statements) {
      using K = ir::FilterStatement::Kind;
      const char* kind = st.kind == K::Drop ? "drop" : st.kind == K::KeepWhere ? "keep" : st.keepFirst ? "keep first" : "keep last";
      out += fmt::format("  {} {}", kind, setText(program, st.set));
      if (st.kind == K::KeepPer) out += fmt::format(" {} per [{}]", st.keepCount, fmt::join(st.keys, " "));
      if (st.hasWhere) out += " where " + ir::dump(st.where);
      out += "\n";
    }
  }
  for (const auto& rule : program.rules) {
    out += fmt::format("rule {} phase {} slots {}\n", rule.name, phaseName(rule.phase), rule.slots);
    for (size_t b = 0; b < rule.bindings.size(); ++b) {
      out += fmt::format("  binding {} {}\n", b, setText(program, rule.bindings[b]));
    }
    if (rule.hasWhere) out += fmt::format("  where {}\n", ir::dump(rule.where));
    for (const auto& a : rule.actions) {
      using K = ir::RuleAction::Kind;
      switch (a.kind) {
        case K::Explain: out += fmt::format("  explain {} by {}\n", a.subject, a.object); break;
        case K::MarkBad: out += fmt::format("  mark {} bad\n", a.subject); break;
        case K::MarkInteresting: out += fmt::format("  mark {} interesting\n", a.subject); break;
        case K::Drop: out += fmt::format("  drop {}\n", a.subject); break;
      }
    }
    for (const auto& line : runtime::describePlan(program, rule, runtime::planJoin(program, rule))) {
      out += "  plan " + line + "\n";
    }
  }
  for (const auto& o : program.outcomes) {
    out += fmt::format("outcome {} family {} confidence {} slots {}\n", o.name, o.family, o.confidence, o.slots);
    out += fmt::format("  when {}\n", ir::dump(o.when));
  }
  return out;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first line where `want` and `got` differ, for the failure message.
std::string firstDifference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int n = 1;; ++n) {
    bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
    if (ea && eb) return "(none)";
    if (ea || eb || la != lb) {
      return fmt::format("line {}:\n  want: {}\n  got:  {}", n, ea ? "(end)" : la, eb ? "(end)" : lb);
    }
  }
}

std::vector<fs::path> cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(ATTRIB_SOURCE_DIR) / "tests" / "lowering" / "cases")) {
    if (e.path().extension() == ".attr") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(LoweringGolden, EveryCaseLowersToItsListing) {
  const char* update = std::getenv("ATTRIB_UPDATE_GOLDEN");
  bool updating = update && *update && std::string(update) != "0";
  auto all = cases();
  ASSERT_GE(all.size(), 5u) << "the cases are in tests/lowering/cases";
  for (const auto& path : all) {
    SCOPED_TRACE(path.filename().string());
    DiagnosticSink sink;
    Compilation c(sink);
    c.addSource(path.filename().string(), readFile(path));
    c.check();
    for (const auto& d : sink.diagnostics()) {
      if (d.severity == Severity::Error) ADD_FAILURE() << renderText(d, c.sources());
    }
    if (sink.errorCount()) continue;
    std::string got = listing(lower(c, {"golden", "1"}));
    fs::path golden = fs::path(path).replace_extension(".ir");
    if (updating) {
      std::ofstream(golden, std::ios::binary) << got;
      continue;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " is missing: run with ATTRIB_UPDATE_GOLDEN=1 to write it";
    std::string want = readFile(golden);
    EXPECT_EQ(want, got) << "lowering changed; the first difference, " << firstDifference(want, got)
                         << "\n(ATTRIB_UPDATE_GOLDEN=1 rewrites " << golden.filename().string() << ")";
  }
}

// The comparison can fail: a listing with one character changed is not the golden one.
TEST(LoweringGolden, ADifferentListingIsReported) {
  EXPECT_NE(firstDifference("a\nb\n", "a\nc\n"), "(none)");
  EXPECT_EQ(firstDifference("a\nb\n", "a\nb\n"), "(none)");
  EXPECT_NE(firstDifference("a\n", "a\nb\n"), "(none)");
}

}  // namespace
}  // namespace attrib
