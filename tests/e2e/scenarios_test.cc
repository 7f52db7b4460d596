// The attribution accuracy suite: attrib on every scenario under tests/scenarios/ (written by
// tests/scenarios/generate.py), each compared with its truth.json on four columns: the primary
// outcome, its family, the root cause's symptom and the bad nodes; and, for the scenarios whose
// truth names them (hangs and stragglers), the root cause's rank and node. Prints one row per
// scenario and the accuracy of each column (of the scenarios that have it); the suite must be 100%
// right.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

// ATTRIB_SCENARIOS_DIR overrides, e.g. to score the pending scenarios before enabling them:
//   python3 tests/scenarios/generate.py --pending /tmp/p
//   ATTRIB_SCENARIOS_DIR=/tmp/p build/tests/e2e_tests --gtest_filter='ScenariosTest.Every*:ScenariosTest.Truth*'
const char* const kOverride = std::getenv("ATTRIB_SCENARIOS_DIR");
const fs::path kScenarios =
    kOverride != nullptr ? fs::path(kOverride) : fs::path(ATTRIB_SOURCE_DIR) / "tests" / "scenarios";

std::vector<std::string> scenarioNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kScenarios, ec)) {
    if (entry.is_directory() && fs::exists(entry.path() / "truth.json")) names.push_back(entry.path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string show(const json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

constexpr size_t kNumColumns = 6;
constexpr std::array<const char*, kNumColumns> kColumns = {"outcome", "family",    "root",
                                                           "bad_nodes", "root_rank", "root_node"};
// Columns 0-3 are in every truth.json; root_rank and root_node only when the root must name them.
constexpr size_t kFirstOptional = 4;

struct Row {
  std::string name;
  // outcome, family, root, bad_nodes, root_rank, root_node: expected, actual, right; `checked` is false
  // for an optional column the truth leaves out.
  std::array<std::string, kNumColumns> expected, actual;
  std::array<bool, kNumColumns> ok{}, checked{};
  bool allOk() const {
    for (size_t i = 0; i < kNumColumns; ++i) {
      if (checked[i] && !ok[i]) return false;
    }
    return true;
  }
};

Row score(const std::string& name, const json& truth, const json& verdict) {
  Row row;
  row.name = name;
  json outcome = verdict.value("outcome", json::array());
  json primary = outcome.empty() ? json::object() : outcome.front();
  json root = verdict.value("root_cause", json());
  json bad = json::array();
  std::vector<std::string> badNodes = nodeNames(verdict.value("bad_nodes", json::array()));
  std::sort(badNodes.begin(), badNodes.end());
  for (const auto& n : badNodes) bad.push_back(n);
  std::vector<std::string> truthBad = truth.value("bad_nodes", std::vector<std::string>{});
  std::sort(truthBad.begin(), truthBad.end());

  auto rootField = [&](const char* key) { return root.is_object() ? root.value(key, json()) : json(); };
  const std::array<json, kNumColumns> actual = {primary.value("name", json()), primary.value("family", json()),
                                                rootField("symptom"), bad, rootField("rank"), rootField("node")};
  const std::array<json, kNumColumns> expected = {truth["outcome"], truth["family"], truth["root"], json(truthBad),
                                                  truth.value("root_rank", json()), truth.value("root_node", json())};
  for (size_t i = 0; i < kNumColumns; ++i) {
    row.checked[i] = i < kFirstOptional || truth.contains(kColumns[i]);
    row.expected[i] = show(expected[i]);
    row.actual[i] = show(actual[i]);
    row.ok[i] = expected[i] == actual[i];
  }
  return row;
}

class ScenariosTest : public ::testing::Test {
 protected:
  TempDir scratch_;
};

TEST_F(ScenariosTest, EveryVerdictMatchesItsTruth) {
  const std::vector<std::string> names = scenarioNames();
  ASSERT_GE(names.size(), kOverride != nullptr ? 1u : 40u)
      << "no scenarios under " << kScenarios << "; run python3 tests/scenarios/generate.py";
  std::vector<Row> rows;
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const fs::path dir = kScenarios / name;
    json truth = json::parse(slurp(dir / "truth.json"), nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(truth.is_object()) << "bad truth.json";
    json verdict = diagnose(dir, scratch_.path());
    rows.push_back(score(name, truth, verdict));
  }

  // The table: one row per scenario ("-" where the truth has no such column), then each column's
  // accuracy over the scenarios that have it.
  size_t width = 8;
  for (const auto& r : rows) width = std::max(width, r.name.size());
  auto line = [&](const std::string& first, const std::array<std::string, kNumColumns>& cells) {
    std::string out = fmt::format("{:<{}} ", first, width);
    for (size_t i = 0; i < kNumColumns; ++i) {
      out += fmt::format(" {:<{}}", cells[i], std::max<size_t>(7, std::string(kColumns[i]).size()));
    }
    return out + "\n";
  };
  std::array<std::string, kNumColumns> header;
  for (size_t i = 0; i < kNumColumns; ++i) header[i] = kColumns[i];
  std::string table = line("scenario", header);
  std::array<size_t, kNumColumns> right{}, counted{};
  size_t allRight = 0;
  for (const auto& r : rows) {
    std::array<std::string, kNumColumns> cells;
    for (size_t i = 0; i < kNumColumns; ++i) {
      cells[i] = !r.checked[i] ? "-" : r.ok[i] ? "ok" : "FAIL";
      counted[i] += r.checked[i] ? 1 : 0;
      right[i] += r.checked[i] && r.ok[i] ? 1 : 0;
    }
    table += line(r.name, cells);
    allRight += r.allOk() ? 1 : 0;
  }
  auto pct = [](size_t n, size_t of) { return of == 0 ? std::string("-") : fmt::format("{:.1f}%", 100.0 * n / of); };
  std::array<std::string, kNumColumns> totals;
  for (size_t i = 0; i < kNumColumns; ++i) totals[i] = pct(right[i], counted[i]);
  table += line("total", totals);
  table += fmt::format("{} of {} scenarios fully right ({}); root_rank checked on {}, root_node on {}\n", allRight,
                       rows.size(), pct(allRight, rows.size()), counted[4], counted[5]);
  std::cout << table << std::flush;

  for (const auto& r : rows) {
    for (size_t i = 0; i < kNumColumns; ++i) {
      if (!r.checked[i]) continue;
      EXPECT_TRUE(r.ok[i]) << r.name << ": " << kColumns[i] << " is " << r.actual[i] << ", expected "
                           << r.expected[i];
    }
  }
  EXPECT_EQ(allRight, rows.size()) << "the suite must be 100% right";
}

// Every scenario directory has a truth.json in the expected shape, so a typo in the generator
// cannot silently drop a column from the comparison.
TEST_F(ScenariosTest, TruthFilesAreWellFormed) {
  for (const auto& name : scenarioNames()) {
    SCOPED_TRACE(name);
    json truth = json::parse(slurp(kScenarios / name / "truth.json"), nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(truth.is_object());
    const size_t optional = (truth.contains("root_rank") ? 1 : 0) + (truth.contains("root_node") ? 1 : 0);
    EXPECT_EQ(truth.size(), 4u + optional) << "unknown keys: " << truth.dump();
    EXPECT_TRUE(truth["outcome"].is_string());
    EXPECT_TRUE(truth["family"].is_string());
    EXPECT_TRUE(truth["root"].is_string() || truth["root"].is_null());
    EXPECT_TRUE(truth["bad_nodes"].is_array());
    // root_rank: a rank of the job; root_node: one of its nodes; either only with a root.
    json workload = json::parse(slurp(kScenarios / name / "workload.json"), nullptr, /*allow_exceptions=*/false);
    if (truth.contains("root_rank")) {
      EXPECT_TRUE(truth["root_rank"].is_number_integer()) << truth.dump();
      EXPECT_FALSE(truth["root"].is_null());
      if (truth["root_rank"].is_number_integer() && workload.is_object() && workload.contains("ranks")) {
        EXPECT_LT(truth["root_rank"].get<int64_t>(), workload["ranks"].get<int64_t>());
        EXPECT_GE(truth["root_rank"].get<int64_t>(), 0);
      }
    }
    if (truth.contains("root_rank") && truth.contains("root_node") && workload.is_object() &&
        workload.contains("nodes") && workload.contains("ranks_per_node") && truth["root_rank"].is_number_integer()) {
      const size_t index = truth["root_rank"].get<size_t>() / workload["ranks_per_node"].get<size_t>();
      ASSERT_LT(index, workload["nodes"].size());
      EXPECT_EQ(workload["nodes"][index], truth["root_node"]) << "root_node is not root_rank's node";
    }
    if (truth.contains("root_node")) {
      EXPECT_TRUE(truth["root_node"].is_string()) << truth.dump();
      EXPECT_FALSE(truth["root"].is_null());
      if (workload.is_object() && workload.contains("nodes")) {
        const json& nodes = workload["nodes"];
        EXPECT_NE(std::find(nodes.begin(), nodes.end(), truth["root_node"]), nodes.end())
            << truth["root_node"] << " is not a node of the workload";
      }
    }
    EXPECT_TRUE(fs::exists(kScenarios / name / "workload.json"));
    EXPECT_TRUE(fs::is_directory(kScenarios / name / "logs"));
    // No outcome, no root; no root, no bad nodes.
    if (truth["outcome"] == "unknown") {
      EXPECT_TRUE(truth["root"].is_null());
    }
    if (truth["root"].is_null()) {
      EXPECT_TRUE(truth["bad_nodes"].empty());
    }
  }
}

// tests/scenarios/README.md describes every scenario.
TEST_F(ScenariosTest, ReadmeListsEveryScenario) {
  const std::string readme = slurp(kScenarios / "README.md");
  ASSERT_FALSE(readme.empty());
  for (const auto& name : scenarioNames()) {
    EXPECT_NE(readme.find("| `" + name + "` |"), std::string::npos) << name << " is not in tests/scenarios/README.md";
  }
}

}  // namespace
}  // namespace attrib::e2e
