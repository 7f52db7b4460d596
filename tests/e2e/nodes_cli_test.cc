// `attrib nodes` on a verdict database the real diagnosis filled: the xid79 example diagnosed on
// three days (its logs' dates rewritten, so each run is a real diagnosis at another time), and
// the examples whose failures are not node faults; then the history and the suspects at several
// times, and the databases and flags it must refuse with one line.
#include <sqlite3.h>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

const fs::path kExamples = fs::path(ATTRIB_SOURCE_DIR) / "examples";

// A copy of the xid79 example moved to 2026-11-DAY, as workload slurm/4182DAY.
fs::path xid79On(const TempDir& dir, int day) {
  fs::path to = dir.path() / fmt::format("xid79-nov{}", day);
  fs::copy(kExamples / "xid79-nccl-cascade", to, fs::copy_options::recursive);
  for (const auto& entry : fs::recursive_directory_iterator(to)) {
    if (!entry.is_regular_file()) continue;
    std::string text = slurp(entry.path());
    auto replaceAll = [&](const std::string& from, const std::string& into) {
      for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += into.size()) text.replace(at, from.size(), into);
    };
    replaceAll("2026-11-29", fmt::format("2026-11-{:02}", day));
    replaceAll("Nov 29", fmt::format("Nov {:2}", day));
    replaceAll("slurm/418207", fmt::format("slurm/4182{:02}", day));
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << text;
  }
  return to;
}

class NodesCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    db_ = (dir_->path() / "verdicts.db").string();
    for (int day : {18, 25, 29}) {
      json v = diagnose(xid79On(*dir_, day), dir_->path(), {"--sink", "sqlite:" + db_, "--sink", "stdout:json"});
      ASSERT_EQ(v["root_cause"]["node"], "gpu-0007");
      ASSERT_EQ(v["root_cause"]["time"], fmt::format("2026-11-{:02}T10:42:00Z", day));
    }
    for (const char* other : {"user-code-exception", "host-oom"}) {
      diagnose(kExamples / other, dir_->path(), {"--sink", "sqlite:" + db_, "--sink", "stdout:json"});
    }
  }
  static void TearDownTestSuite() { delete dir_; }
  static json nodes(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"nodes", "--db", db_, "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult r = runAttrib(args, dir_->path());
    EXPECT_EQ(r.exit, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return json::parse(r.out, nullptr, false);
  }
  static TempDir* dir_;
  static std::string db_;
};
TempDir* NodesCli::dir_ = nullptr;
std::string NodesCli::db_;

TEST_F(NodesCli, ANodeWithRepeatedGpuFaultsIsTheOneToAvoid) {
  json s = nodes({"--suspect", "--now", "2026-11-30T00:00:00Z"});
  ASSERT_EQ(s["nodes"].size(), 1u) << s.dump();
  const json& n = s["nodes"][0];
  EXPECT_EQ(n["node"], "gpu-0007");
  EXPECT_EQ(n["decision"], "avoid");
  EXPECT_EQ(n["events"], 3);
  EXPECT_EQ(n["families"], json::array({"accelerator-gpu"}));
  EXPECT_EQ(n["workloads"], json::array({"slurm/418218", "slurm/418225", "slurm/418229"}));
  EXPECT_EQ(n["last"], "2026-11-29T10:42:00Z");
  EXPECT_EQ(s["policy"]["window_days"], 14);
}

TEST_F(NodesCli, TheWindowAndTheClockDecide) {
  // On Dec 4 the Nov 18 fault is out of the 14-day window: two remain, still a suspect.
  json dec4 = nodes({"--suspect", "--now", "2026-12-04T00:00:00Z"});
  ASSERT_EQ(dec4["nodes"].size(), 1u);
  EXPECT_EQ(dec4["nodes"][0]["events"], 2);
  // On Dec 10 only Nov 29 is left: no suspect.
  EXPECT_EQ(nodes({"--suspect", "--now", "2026-12-10T00:00:00Z"})["nodes"], json::array());
  // A 5-day window on Nov 30 sees Nov 25 and 29; a 3-day one only Nov 29.
  EXPECT_EQ(nodes({"--suspect", "--since", "5d", "--now", "2026-11-30T00:00:00Z"})["nodes"].size(), 1u);
  EXPECT_EQ(nodes({"--suspect", "--since", "3d", "--now", "2026-11-30T00:00:00Z"})["nodes"], json::array());
  // A stricter policy: three events needed.
  EXPECT_EQ(nodes({"--suspect", "--min-events", "3", "--now", "2026-12-04T00:00:00Z"})["nodes"], json::array());
  CliResult text = runAttrib({"nodes", "--db", db_, "--suspect", "--now", "2026-12-10T00:00:00Z"}, dir_->path());
  EXPECT_EQ(text.exit, 0);
  EXPECT_EQ(text.out, "no suspect node: no node has 2 or more node faults in the last 14d\n");
}

TEST_F(NodesCli, OneNodesHistoryListsEveryFailureAndWhichCount) {
  json h = nodes({"gpu-0007", "--now", "2026-11-30T00:00:00Z"});
  EXPECT_EQ(h["node"], "gpu-0007");
  EXPECT_EQ(h["failures"], 3);
  EXPECT_EQ(h["by_family"], json({{"accelerator-gpu", 3}}));
  ASSERT_EQ(h["events"].size(), 3u);
  EXPECT_EQ(h["events"][0]["time"], "2026-11-18T10:42:00Z");
  EXPECT_EQ(h["events"][0]["root_symptom"], "gpu.xid.xid79");
  EXPECT_EQ(h["events"][0]["counts"], true);
  // The application failures (user-code, host-oom) are stored but blame no node: they are in
  // no node's history, and every event listed is a node fault.
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open_v2(db_.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(h, "SELECT count(*), count(DISTINCT family) FROM verdicts", -1, &st, nullptr);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(st, 0), 5);
    EXPECT_EQ(sqlite3_column_int(st, 1), 3);
    sqlite3_finalize(st);
    sqlite3_close(h);
  }
  json all = nodes({"--since", "3650d", "--now", "2026-12-30T00:00:00Z"});
  ASSERT_EQ(all.size(), 1u) << all.dump();
  for (const auto& e : all[0]["events"]) EXPECT_EQ(e["counts"], true) << e.dump();
  // Decay: with the window opened wide, a month after them the three faults weigh
  // 0.5^(41.6/14) + 0.5^(34.6/14) + 0.5^(30.6/14) = 0.53 < 1.0: no suspect; a month before, 2.33.
  EXPECT_EQ(nodes({"--since", "3650d", "--now", "2026-12-30T00:00:00Z", "--suspect"})["nodes"], json::array());
  json early = nodes({"--since", "3650d", "--now", "2026-11-30T00:00:00Z", "--suspect"});
  ASSERT_EQ(early["nodes"].size(), 1u);
  EXPECT_NEAR(early["nodes"][0]["score"].get<double>(), 2.33, 0.01);
  // A node with no failure has an empty history, not an error.
  json none = nodes({"gpu-9999"});
  EXPECT_EQ(none["failures"], 0);
  CliResult text = runAttrib({"nodes", "gpu-0007", "--db", db_, "--now", "2026-11-30T00:00:00Z"}, dir_->path());
  EXPECT_NE(text.out.find("gpu-0007  3 failure(s) in the last 14d: accelerator-gpu 3"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("2026-11-25T10:42:00Z  accelerator-gpu      slurm/418225  gpu.xid.xid79"), std::string::npos) << text.out;
}

TEST_F(NodesCli, WhatCannotBeReadIsOneLineAndNothingIsCreated) {
  struct Case {
    std::vector<std::string> args;
    int exit;
    std::string message;
  };
  fs::path missing = dir_->path() / "missing.db";
  fs::path corrupt = dir_->write("corrupt.db", std::string(4096, 'x'));
  fs::path newer = dir_->path() / "newer.db";
  fs::copy_file(db_, newer, fs::copy_options::overwrite_existing);
  {
    sqlite3* h = nullptr;
    sqlite3_open(newer.c_str(), &h);
    sqlite3_exec(h, "INSERT INTO schema_version(version) VALUES (2)", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
  for (const Case& c : std::vector<Case>{
           {{"nodes", "--db", missing.string()}, 1, "cannot open the verdict database " + missing.string()},
           {{"nodes", "--db", corrupt.string()}, 1, corrupt.string() + " is not an attrib verdict database"},
           {{"nodes", "--db", newer.string()}, 1, "has schema version 2, newer than this attrib's 1; use a newer attrib"},
           {{"nodes", "--db", db_, "--since", "two weeks"}, 2, "--since two weeks: not a duration"},
           {{"nodes", "--db", db_, "--half-life", "0d"}, 2, "--half-life 0d: not a duration"},
           {{"nodes", "--db", db_, "--format", "xml"}, 2, "--format xml: the formats are text and json"},
           {{"nodes", "--db", db_, "--now", "yesterday"}, 2, "--now yesterday: not an RFC 3339 time"},
           {{"serve", "--listen", "127.0.0.1:0", "--no-jit", "--history-db", missing.string()}, 1,
            "cannot open the verdict database " + missing.string()},
       }) {
    CliResult r = runAttrib(c.args, dir_->path());
    EXPECT_EQ(r.exit, c.exit) << c.message << ": " << r.err;
    EXPECT_EQ(r.err.rfind("attrib: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_EQ(slurp(corrupt), std::string(4096, 'x')) << "a file that is not a database is left as it was";
}

TEST_F(NodesCli, ADatabaseWithNoVerdictsHasNoHistory) {
  fs::path empty = dir_->path() / "empty.db";
  fs::copy_file(db_, empty, fs::copy_options::overwrite_existing);
  {
    sqlite3* h = nullptr;
    sqlite3_open(empty.c_str(), &h);
    sqlite3_exec(h, "PRAGMA foreign_keys=ON; DELETE FROM workloads;", nullptr, nullptr, nullptr);
    sqlite3_close(h);
  }
  CliResult r = runAttrib({"nodes", "--db", empty.string()}, dir_->path());
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_EQ(r.out, "no node: no failure in the last 14d\n");
  CliResult s = runAttrib({"nodes", "--db", empty.string(), "--suspect", "--format", "json"}, dir_->path());
  EXPECT_EQ(s.exit, 0) << s.err;
  EXPECT_EQ(json::parse(s.out)["nodes"], json::array());
}

// attrib diagnose --history-db: the new failure names its bad node's earlier ones and is more
// certain for them; without a history db the verdict is byte for byte what it was.
TEST_F(NodesCli, ADiagnosisNamesTheBadNodesEarlierFailures) {
  fs::path dec1 = xid79On(*dir_, 1);  // "Nov  1": a new workload, slurm/418201, before the others
  CliResult plain, withEmpty;
  json before = diagnose(kExamples / "xid79-nccl-cascade", dir_->path(), {}, &plain);
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(before["bad_nodes"][0].count("history"), 0u);
  // The example itself is slurm/418207 on Nov 29: its history is Nov 18 and Nov 25 (Nov 29 is
  // another workload at the same instant, not earlier).
  CliResult with;
  json v = diagnose(kExamples / "xid79-nccl-cascade", dir_->path(), {"--history-db", db_}, &with);
  ASSERT_EQ(v["bad_nodes"].size(), 1u);
  const json& h = v["bad_nodes"][0]["history"];
  EXPECT_EQ(h["failures"], 2) << h.dump();
  EXPECT_EQ(h["node_faults"], 2);
  EXPECT_EQ(h["families"], json::array({"accelerator-gpu"}));
  EXPECT_EQ(h["last"], "2026-11-25T10:42:00Z");
  EXPECT_EQ(h["workloads"], json::array({"slurm/418218", "slurm/418225"}));
  EXPECT_NEAR(v["confidence"].get<double>(), std::min(0.99, before["confidence"].get<double>() + 0.10), 1e-9);
  EXPECT_NE(v["confidence_notes"].back().get<std::string>().find("gpu-0007 had 2 earlier node fault(s) in the 14d"), std::string::npos);
  // Everything but the history, the confidence and its note is as without a history.
  json stripped = v;
  stripped["bad_nodes"][0].erase("history");
  stripped["confidence"] = before["confidence"];
  stripped["confidence_notes"].erase(stripped["confidence_notes"].size() - 1);
  EXPECT_EQ(stripped, before);
  // The verdict with its history reads back (attrib report parses it strictly).
  fs::path file = dir_->write("with-history.json", with.out);
  CliResult report = runAttrib({"report", file.string(), "-o", (dir_->path() / "r.html").string()}, dir_->path());
  EXPECT_EQ(report.exit, 0) << report.err;
  // On Nov 1 nothing came before: an empty history, the confidence unchanged.
  json first = diagnose(dec1, dir_->path(), {"--history-db", db_});
  EXPECT_EQ(first["bad_nodes"][0]["history"]["failures"], 0);
  // Without --history-db the verdict is byte-identical, run after run.
  CliResult again;
  diagnose(kExamples / "xid79-nccl-cascade", dir_->path(), {}, &again);
  EXPECT_EQ(again.out, plain.out);
  // A history db that cannot be read fails before any work, with one line.
  CliResult bad = runAttrib({"diagnose", "--history-db", (dir_->path() / "nope.db").string(), dec1.string()}, dir_->path());
  EXPECT_EQ(bad.exit, 1);
  EXPECT_NE(bad.err.find("cannot open the verdict database"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty());
}

}  // namespace
}  // namespace attrib::e2e
