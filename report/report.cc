#include "report/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "ir/civil_time.h"
#include "report/assets.h"
#include "report/html.h"
#include "report/meanings.h"
#include "report/timeline.h"

namespace attrib::report {
namespace {

using html::Attr;
using html::Writer;
using runtime::DownstreamGroup;
using runtime::EvidenceLine;
using runtime::SymptomFinding;
using runtime::Verdict;

const runtime::SymptomInfo* infoOf(const Verdict& v, const std::string& symptom) {
  for (const auto& [name, info] : v.symptoms) {
    if (name == symptom) return &info;
  }
  return nullptr;
}

std::string titleOf(const Verdict& v, const std::string& symptom) {
  const runtime::SymptomInfo* info = infoOf(v, symptom);
  return info && !info->title.empty() ? info->title : symptom;
}

// "examples/x/logs/gpu-0007/syslog.log:17", or the location alone for derived evidence.
std::string placeOf(const EvidenceLine& e) {
  return e.lineNumber ? fmt::format("{}:{}", e.location, e.lineNumber) : e.location;
}

void evidenceLine(Writer& w, const EvidenceLine& e) {
  w.open("div", {{"class", "line"}});
  w.open("div", {{"class", "place"}});
  w.element("span", {{"class", "mono where"}}, placeOf(e));
  std::string meta;
  if (!e.node.empty()) meta += " · " + e.node;
  meta += " · " + e.source;
  if (e.time) meta += " · " + formatTimestamp(*e.time);
  w.text(meta);
  w.close();
  w.element("pre", {{"class", "text"}}, e.line);
  w.close();
}

void refs(Writer& w, const std::vector<std::string>& list) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) w.text(" · ");
    if (auto url = html::linkableUrl(list[i])) {
      w.element("a", {{"class", "ref"}, {"href", *url}, {"rel", "noopener noreferrer"}}, list[i]);
    } else {
      w.element("span", {{"class", "ref-text"}}, list[i]);
    }
  }
}

std::string where(const SymptomFinding& f) {
  std::string s;
  if (!f.node.empty()) s += "on " + f.node;
  if (!f.gpu.empty()) s += (s.empty() ? "" : ", ") + std::string("GPU ") + f.gpu;
  if (f.rank) s += (s.empty() ? "" : ", ") + fmt::format("rank {}", *f.rank);
  s += f.timeUnknown ? (s.empty() ? "time unknown" : ", time unknown") : (s.empty() ? "at " : ", at ") + formatTimestamp(f.time);
  if (!f.timeKnown && !f.timeUnknown) s += " (estimated)";
  return s;
}

// The scheduler's job id: "slurm/418207" -> "418207"; other ids unchanged.
std::string jobIdOf(const evidence::Workload& w) {
  size_t slash = w.id.rfind('/');
  return slash == std::string::npos ? w.id : w.id.substr(slash + 1);
}

std::string noBackticks(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '`'), s.end());
  s.erase(std::remove(s.begin(), s.end(), '"'), s.end());
  return s;
}

std::string replaceAll(std::string s, std::string_view from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// An action's command (Markdown) with its placeholders filled in from the verdict; NODE
// placeholders give one line per node.
std::vector<std::string> commands(const std::string& markdown, const Verdict& v) {
  if (markdown.empty()) return {};
  std::string nodes;
  for (size_t i = 0; i < v.actionNodes.size(); ++i) nodes += (i ? "," : "") + noBackticks(v.actionNodes[i]);
  std::string reason = noBackticks(fmt::format("attrib: {} in {}", v.root ? v.root->symptom : "failure", v.workload.id));
  std::string text = markdown;
  // Longest placeholders first: NODES before NODE.
  text = replaceAll(text, "NODES", nodes.empty() ? "NODES" : nodes);
  text = replaceAll(text, "REASON", reason);
  text = replaceAll(text, "JOB", v.workload.id.empty() ? "JOB" : noBackticks(jobIdOf(v.workload)));
  if (v.root && !v.root->gpu.empty()) text = replaceAll(text, "GPU", noBackticks(v.root->gpu));
  if (text.find("NODE") == std::string::npos || v.actionNodes.size() <= 1) {
    if (v.actionNodes.size() == 1) text = replaceAll(text, "NODE", noBackticks(v.actionNodes[0]));
    return {text};
  }
  std::vector<std::string> out;
  for (const auto& n : v.actionNodes) out.push_back(replaceAll(text, "NODE", noBackticks(n)));
  return out;
}

bool kubernetes(const evidence::Workload& w) {
  return w.scheduler == "kueue" || w.scheduler == "kubernetes" || w.scheduler == "k8s";
}

void actionsBlock(Writer& w, const Verdict& v) {
  if (v.actions.empty()) {
    w.element("p", {{"class", "muted"}}, "No action is recommended.");
    return;
  }
  for (const auto& a : v.actions) {
    w.open("div", {{"class", "action"}, {"data-action", a}});
    w.element("b", a);
    const ActionMeaning* m = meanings().action(a);
    if (!m) {
      w.text(": an action this report has no explanation for");
      w.close();
      continue;
    }
    w.text(": ").raw(html::inlineMarkdown(m->meaning)).text(".");
    if (!v.actionNodes.empty() && (a == "drain_node" || a == "reboot_node" || a == "reset_gpu" || a == "replace_gpu")) {
      w.text(fmt::format(" Applies to {}.", fmt::join(v.actionNodes, ", ")));
    }
    bool k8s = kubernetes(v.workload);
    const std::string& command = k8s ? m->kubernetes : m->slurm;
    for (const auto& c : commands(command, v)) {
      w.open("span", {{"class", "cmd"}, {"title", k8s ? "Kubernetes" : "Slurm"}}).raw(html::inlineMarkdown(c)).close();
    }
    w.close();
  }
}

void familyLine(Writer& w, const std::string& family) {
  const FamilyMeaning* m = meanings().family(family);
  if (!m) return;
  w.open("p", {{"class", "family-meaning"}});
  w.element("span", {{"class", "badge family"}}, family);
  w.raw(html::inlineMarkdown(m->meaning));
  if (!m->evidence.empty()) w.text(". Typical evidence: ").raw(html::inlineMarkdown(m->evidence));
  w.text(".").close();
}

void answer(Writer& w, const Verdict& v) {
  bool unknown = v.outcomes.empty();
  bool ok = v.workload.state == ir::State::Completed && unknown;
  std::string family = runtime::verdictFamily(v);
  w.open("section", {{"id", "answer"}, {"class", unknown ? (ok ? "answer ok" : "answer unknown") : "answer"}});
  w.element("h1", {{"id", "outcome"}},
            unknown ? (ok ? "Completed: no failure found" : "Unknown: no failure pattern matched")
                    : (v.outcomes[0].title.empty() ? v.outcomes[0].name : v.outcomes[0].title));
  w.open("div");
  w.element("span", {{"class", "badge family"}, {"id", "family"}}, family);
  w.element("span", {{"class", "badge state"}}, ir::stateName(v.workload.state));
  if (v.workload.exitCode) w.element("span", {{"class", "badge"}}, fmt::format("exit code {}", *v.workload.exitCode));
  w.element("span", {{"class", "badge mono"}}, v.workload.id.empty() ? "(no workload id)" : v.workload.id);
  if (!v.workload.name.empty()) w.element("span", {{"class", "badge"}}, v.workload.name);
  w.close();

  w.open("dl", {{"class", "grid"}});
  if (!unknown) {
    w.element("dt", "outcome");
    w.open("dd").element("code", v.outcomes[0].name);
    for (size_t i = 1; i < v.outcomes.size(); ++i) w.text(i == 1 ? "; also " : ", ").element("code", v.outcomes[i].name);
    w.close();
  } else if (v.familyHint) {
    const runtime::FamilyHint& h = *v.familyHint;
    w.element("dt", "family hint");
    w.open("dd", {{"id", "family-hint"}})
        .text(fmt::format("no rule matched; the telling lines below point at {} (", h.family))
        .element("code", h.word)
        .text(fmt::format(" in line {})", h.candidate + 1))
        .close();
  }
  w.element("dt", "root cause");
  w.open("dd", {{"id", "root-cause"}});
  if (v.root) {
    const SymptomFinding& r = *v.root;
    w.element("b", r.title.empty() ? r.symptom : r.title).text(" ").element("code", r.symptom);
    w.element("div", {{"class", "root-where"}}, where(r));
    for (const auto& e : r.evidence) evidenceLine(w, e);
  } else {
    w.element("span", {{"class", "muted"}}, "none found");
  }
  w.close();
  w.element("dt", "bad nodes");
  w.open("dd", {{"id", "bad-nodes"}});
  if (v.badNodes.empty()) w.element("span", {{"class", "muted"}}, "none");
  for (size_t i = 0; i < v.badNodes.size(); ++i) {
    if (i) w.text(", ");
    w.element("span", {{"class", "bad mono"}, {"title", fmt::format("{}", fmt::join(v.badNodes[i].symptoms, ", "))}},
              v.badNodes[i].node);
  }
  w.close();
  w.element("dt", "what to do");
  w.open("dd", {{"id", "actions"}});
  actionsBlock(w, v);
  w.close();
  w.element("dt", "confidence");
  w.open("dd", {{"id", "confidence"}});
  int percent = static_cast<int>(std::lround(v.confidence * 100));
  w.open("span", {{"class", "meter"}}).raw(fmt::format("<i class=\"w{}\"></i>", percent / 5 * 5)).close();
  w.text(fmt::format(" {}%", percent));
  for (const auto& note : v.confidenceNotes) w.element("div", {{"class", "muted note"}}, note);
  w.close();
  w.element("dt", "family");
  w.open("dd");
  familyLine(w, family);
  w.close();
  w.close();  // dl
  w.close();  // section
}

void symptomHeader(Writer& w, const Verdict& v, const std::string& symptom, const std::string& role) {
  const runtime::SymptomInfo* info = infoOf(v, symptom);
  w.open("h3");
  w.text(titleOf(v, symptom) + " ").element("code", symptom).text(" ").element("span", {{"class", "badge"}}, role);
  if (info) w.element("span", {{"class", "badge family"}}, info->family);
  w.close();
  if (info && !info->description.empty()) w.element("p", {{"class", "description"}}, info->description);
  if (info && !info->refs.empty()) {
    w.open("p", {{"class", "refs"}}).text("References: ");
    refs(w, info->refs);
    w.close();
  }
}

void findingBlock(Writer& w, const Verdict& v, const SymptomFinding& f, const std::string& role) {
  w.open("div", {{"class", "symptom"}, {"data-symptom", f.symptom}});
  symptomHeader(w, v, f.symptom, role);
  w.element("p", {{"class", "muted"}}, where(f));
  for (const auto& e : f.evidence) evidenceLine(w, e);
  w.close();
}

void evidenceSection(Writer& w, const Verdict& v) {
  w.open("section", {{"id", "evidence"}});
  w.element("h2", "Evidence");
  if (v.root) findingBlock(w, v, *v.root, "root cause");
  for (const auto& f : v.otherCauses) findingBlock(w, v, f, "other cause");
  if (!v.downstream.empty()) {
    w.element("h3", "Downstream: consequences explained by a cause");
    w.open("table", {{"id", "downstream"}});
    w.raw("<thead><tr><th>symptom</th><th>count</th><th>nodes</th><th>ranks</th><th>first</th><th>last</th>"
          "<th>explained by</th><th>rule</th></tr></thead><tbody>");
    for (const auto& d : v.downstream) {
      w.open("tr", {{"data-symptom", d.symptom}});
      w.open("td").text(titleOf(v, d.symptom) + " ").element("code", d.symptom);
      const runtime::SymptomInfo* info = infoOf(v, d.symptom);
      if (info && !info->description.empty()) w.element("div", {{"class", "description muted"}}, info->description);
      if (info && !info->refs.empty()) {
        w.open("div", {{"class", "refs"}});
        refs(w, info->refs);
        w.close();
      }
      for (const auto& e : d.evidence) evidenceLine(w, e);
      w.close();
      w.element("td", {{"class", "n"}}, std::to_string(d.count));
      w.element("td", {{"class", "n"}}, std::to_string(d.nodes));
      w.element("td", {{"class", "n"}}, std::to_string(d.ranks));
      w.element("td", {{"class", "mono"}}, d.first ? formatTimestamp(*d.first) : "time unknown");
      w.element("td", {{"class", "mono"}}, d.last ? formatTimestamp(*d.last) : "time unknown");
      w.open("td").element("code", d.explainedBy).close();
      w.open("td", {{"class", "rule"}}).element("code", d.rule).close();
      w.close();
    }
    w.raw("</tbody>");
    w.close();
  }
  if (!v.badNodes.empty() || !v.interestingNodes.empty()) {
    w.element("h3", "Nodes");
    w.open("table", {{"id", "nodes"}});
    w.raw("<thead><tr><th>node</th><th></th><th>symptoms</th></tr></thead><tbody>");
    for (const auto* list : {&v.badNodes, &v.interestingNodes}) {
      for (const auto& n : *list) {
        w.open("tr");
        w.element("td", {{"class", list == &v.badNodes ? "mono bad" : "mono"}}, n.node);
        w.element("td", list == &v.badNodes ? "bad" : "worth a look");
        w.element("td", {{"class", "mono"}}, fmt::format("{}", fmt::join(n.symptoms, ", ")));
        w.close();
      }
    }
    w.raw("</tbody>");
    w.close();
  }
  if (!v.symptomCounts.empty()) {
    w.open("details", {{"id", "symptom-counts"}});
    w.element("summary", fmt::format("All {} symptoms seen, with their counts", v.symptomCounts.size()));
    w.open("table");
    w.raw("<thead><tr><th>symptom</th><th>title</th><th>family</th><th>count</th></tr></thead><tbody>");
    for (const auto& [name, count] : v.symptomCounts) {
      const runtime::SymptomInfo* info = infoOf(v, name);
      w.open("tr");
      w.open("td").element("code", name).close();
      w.element("td", info ? info->title : "");
      w.element("td", info ? info->family : "");
      w.element("td", {{"class", "n"}}, std::to_string(count));
      w.close();
    }
    w.raw("</tbody>");
    w.close().close();
  }
  w.close();
}

void candidatesSection(Writer& w, const std::vector<runtime::Candidate>& candidates) {
  w.open("section", {{"id", "candidates"}});
  w.element("h2", "Candidate lines");
  w.element("p", {{"class", "muted"}},
            "No rule explains this failure. These are the most telling lines attrib found: where to start looking, "
            "not a root cause.");
  for (const auto& c : candidates) {
    evidenceLine(w, c.evidence);
    if (c.count > 1) {
      w.element("p", {{"class", "muted"}}, fmt::format("{} lines of this form, from {} writer(s)", c.count, c.writers));
    }
  }
  w.close();
}

// A small table: one row per connector and status (how many sources, observations, bytes),
// then every source that was not read whole, with why (the first kMaxProblems of them).
void coverageSection(Writer& w, const Verdict& v) {
  constexpr size_t kMaxProblems = 50;
  w.open("section", {{"id", "coverage"}});
  w.element("h2", "Coverage: what was read");
  if (v.reports.empty()) {
    w.element("p", {{"class", "muted"}}, "No connector reported what it read.");
  } else {
    struct Sum {
      uint64_t sources = 0, observations = 0, bytes = 0;
    };
    std::map<std::pair<std::string, std::string>, Sum> sums;
    std::vector<const evidence::ConnectorReport*> problems;
    for (const auto& r : v.reports) {
      Sum& s = sums[{r.connector, runtime::statusName(r.status)}];
      ++s.sources;
      s.observations += r.observations;
      s.bytes += r.bytes;
      if (r.status != evidence::ConnectorReport::Status::Ok) problems.push_back(&r);
    }
    w.open("table", {{"id", "connector-reports"}});
    w.raw("<thead><tr><th>connector</th><th>status</th><th>sources</th><th>observations</th><th>bytes</th></tr></thead><tbody>");
    for (const auto& [key, s] : sums) {
      w.open("tr", {{"data-connector", key.first}, {"data-status", key.second}});
      w.element("td", key.first);
      w.element("td", {{"class", "status-" + key.second}}, key.second);
      w.element("td", {{"class", "n"}}, std::to_string(s.sources));
      w.element("td", {{"class", "n"}}, std::to_string(s.observations));
      w.element("td", {{"class", "n"}}, std::to_string(s.bytes));
      w.close();
    }
    w.raw("</tbody>");
    w.close();
    if (!problems.empty()) {
      w.element("h3", "Not read whole");
      w.open("table", {{"id", "coverage-problems"}});
      w.raw("<thead><tr><th>connector</th><th>source</th><th>status</th><th>observations</th><th>why</th></tr></thead><tbody>");
      for (size_t i = 0; i < problems.size() && i < kMaxProblems; ++i) {
        const auto& r = *problems[i];
        std::string status = runtime::statusName(r.status);
        w.open("tr");
        w.element("td", r.connector);
        w.element("td", {{"class", "mono"}}, r.source);
        w.element("td", {{"class", "status-" + status}}, status);
        w.element("td", {{"class", "n"}}, std::to_string(r.observations));
        w.element("td", r.reason);
        w.close();
      }
      w.raw("</tbody>");
      w.close();
      if (problems.size() > kMaxProblems) {
        w.element("p", {{"class", "muted"}},
                  fmt::format("and {} more: the verdict's connector_reports lists them all.", problems.size() - kMaxProblems));
      }
    }
  }
  w.element("p", {{"class", "muted"}},
            fmt::format("{} lines and {} bytes scanned, {} metric samples, {} symptom instances; predicates ran on the {}.",
                        v.stats.linesScanned, v.stats.bytesScanned, v.stats.metricSamples, v.stats.symptoms,
                        v.stats.evaluator));
  w.close();
}

void familiesSection(Writer& w, const std::string& family) {
  w.open("section", {{"id", "families"}});
  w.open("details");
  w.element("summary", "What the failure families mean");
  w.open("table");
  w.raw("<thead><tr><th>family</th><th>the first thing that went wrong</th><th>typical evidence</th></tr></thead><tbody>");
  for (const auto& f : meanings().families) {
    w.open("tr", {{"class", f.name == family ? "current" : ""}});
    w.open("td").element(f.name == family ? "b" : "code", f.name).close();
    w.open("td").raw(html::inlineMarkdown(f.meaning)).close();
    w.open("td").raw(html::inlineMarkdown(f.evidence)).close();
    w.close();
  }
  w.raw("</tbody>");
  w.close().close().close();
}

// The meter's widths as classes (no style attributes: the page's policy admits no inline style).
std::string meterStyle() {
  std::string css;
  for (int p = 0; p <= 100; p += 5) css += fmt::format(".meter>i.w{}{{width:{}%}}", p, p);
  return css;
}

}  // namespace

std::string renderReport(const Verdict& v, const ReportOptions& options) {
  static const std::string style = std::string(kStyle) + meterStyle();
  std::string title = fmt::format("attrib: {} — {}", v.workload.id.empty() ? "workload" : v.workload.id,
                                  v.outcomes.empty() ? "unknown" : (v.outcomes[0].title.empty() ? v.outcomes[0].name : v.outcomes[0].title));
  Writer w;
  w.raw("<!DOCTYPE html>\n");
  w.open("html", {{"lang", "en"}});
  w.open("head");
  w.empty("meta", {{"charset", "utf-8"}});
  w.empty("meta", {{"http-equiv", "Content-Security-Policy"}, {"content", contentSecurityPolicy(style, {kTimelineScript})}});
  w.empty("meta", {{"name", "viewport"}, {"content", "width=device-width, initial-scale=1"}});
  w.empty("meta", {{"name", "generator"}, {"content", options.generator}});
  w.element("title", title);
  w.open("style").raw(style).close();
  w.close();  // head
  w.open("body");
  w.open("main");
  answer(w, v);
  TimelineOptions timeline;
  timeline.maxLanes = options.maxLanes;
  timeline.maxBands = options.maxBands;
  renderTimeline(w, v, timeline);
  evidenceSection(w, v);
  if (v.outcomes.empty() && !v.candidates.empty()) candidatesSection(w, v.candidates);
  coverageSection(w, v);
  familiesSection(w, runtime::verdictFamily(v));
  w.open("footer");
  w.text(fmt::format("Written by {} from the verdict of {} with rule set {} {} ({}).", options.generator,
                     v.workload.id.empty() ? "a workload" : v.workload.id, v.rulesetName, v.rulesetVersion, v.rulesetDigest));
  w.close();
  w.close();  // main
  w.open("script").raw(kTimelineScript).close();
  return w.take() + "\n";
}

}  // namespace attrib::report
