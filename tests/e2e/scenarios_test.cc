// The attribution accuracy suite: attrib on every scenario under tests/scenarios/ (written by
// tests/scenarios/generate.py), each compared with its truth.json on four columns: the primary
// outcome, its family, the root cause's symptom and the bad nodes. Prints one row per scenario and
// the accuracy of each column; the suite must be 100% right.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iostream>
#include <string>
#include <vector>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

const fs::path kScenarios = fs::path(ATTRIB_SOURCE_DIR) / "tests" / "scenarios";

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

struct Row {
  std::string name;
  // outcome, family, root, bad_nodes: expected, actual, right.
  std::array<std::string, 4> expected, actual;
  std::array<bool, 4> ok{};
};

constexpr std::array<const char*, 4> kColumns = {"outcome", "family", "root", "bad_nodes"};

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

  const std::array<json, 4> actual = {primary.value("name", json()), primary.value("family", json()),
                                      root.is_object() ? root.value("symptom", json()) : json(), bad};
  const std::array<json, 4> expected = {truth["outcome"], truth["family"], truth["root"], json(truthBad)};
  for (size_t i = 0; i < 4; ++i) {
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
  ASSERT_GE(names.size(), 40u) << "no scenarios under " << kScenarios << "; run python3 tests/scenarios/generate.py";
  std::vector<Row> rows;
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const fs::path dir = kScenarios / name;
    json truth = json::parse(slurp(dir / "truth.json"), nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(truth.is_object()) << "bad truth.json";
    json verdict = diagnose(dir, scratch_.path());
    rows.push_back(score(name, truth, verdict));
  }

  // The table: one row per scenario, then each column's accuracy.
  size_t width = 8;
  for (const auto& r : rows) width = std::max(width, r.name.size());
  std::string table = fmt::format("{:<{}}  {:<7} {:<7} {:<7} {:<9}\n", "scenario", width, "outcome", "family", "root",
                                  "bad_nodes");
  std::array<size_t, 4> right{};
  size_t allRight = 0;
  for (const auto& r : rows) {
    auto cell = [&](size_t i) { return r.ok[i] ? "ok" : "FAIL"; };
    table += fmt::format("{:<{}}  {:<7} {:<7} {:<7} {:<9}\n", r.name, width, cell(0), cell(1), cell(2), cell(3));
    for (size_t i = 0; i < 4; ++i) right[i] += r.ok[i] ? 1 : 0;
    allRight += std::all_of(r.ok.begin(), r.ok.end(), [](bool b) { return b; }) ? 1 : 0;
  }
  auto pct = [&](size_t n) { return fmt::format("{:.1f}%", rows.empty() ? 0.0 : 100.0 * n / rows.size()); };
  table += fmt::format("{:<{}}  {:<7} {:<7} {:<7} {:<9}\n", "total", width, pct(right[0]), pct(right[1]),
                       pct(right[2]), pct(right[3]));
  table += fmt::format("{} of {} scenarios fully right ({})\n", allRight, rows.size(), pct(allRight));
  std::cout << table << std::flush;

  for (const auto& r : rows) {
    for (size_t i = 0; i < 4; ++i) {
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
    EXPECT_EQ(truth.size(), 4u) << truth.dump();
    EXPECT_TRUE(truth["outcome"].is_string());
    EXPECT_TRUE(truth["family"].is_string());
    EXPECT_TRUE(truth["root"].is_string() || truth["root"].is_null());
    EXPECT_TRUE(truth["bad_nodes"].is_array());
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
