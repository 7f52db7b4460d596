// One typed suite for the behaviour every database sink promises alike (docs/sinks.md): a
// verdict written again replaces itself, a newer schema is refused and left as it was, and
// bytes that are not UTF-8 are stored as the verdict JSON writes them, never thrown on.
// Instantiated for SQLite (tests/sinks/sqlite_sink_test.cc) and PostgreSQL
// (tests/pg/postgres_sink_test.cc, label postgres); what only one has stays in its own file.
//
// A Backend is a class with:
//   static constexpr const char* kName;
//   std::string setUp(const std::string& test, bool* skip);  // "" when ready; *skip: not installed
//   void tearDown();
//   std::unique_ptr<S> open(std::string* error);             // S has write() and contains()
//   int64_t scalar(const std::string& sql);                  // the first column of the first row
//   std::string text(const std::string& sql);                // the same, as text
//   void exec(const std::string& sql);
//   int64_t inconsistentVerdicts();                          // child rows not matching the JSON
//   std::string secret();                                    // must appear in no message ("": none)
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/sinks/verdicts.h"

namespace attrib::sinks {

template <typename Backend>
class SinkSuite : public ::testing::Test {
 protected:
  void SetUp() override {
    bool skip = false;
    std::string why = backend_.setUp(::testing::UnitTest::GetInstance()->current_test_info()->name(), &skip);
    if (skip) GTEST_SKIP() << why;
    ASSERT_EQ(why, "");
  }
  void TearDown() override { backend_.tearDown(); }
  Backend backend_;
};

TYPED_TEST_SUITE_P(SinkSuite);

TYPED_TEST_P(SinkSuite, RewritingAVerdictReplacesItAndNeverDuplicates) {
  auto& b = this->backend_;
  std::string error;
  {
    auto sink = b.open(&error);
    ASSERT_TRUE(sink) << error;
    for (int round = 0; round < 3; ++round) ASSERT_TRUE(sink->write(testVerdict(4), &error)) << error;
  }
  auto again = b.open(&error);  // a second run, a second open
  ASSERT_TRUE(again) << error;
  ASSERT_TRUE(again->write(testVerdict(4), &error)) << error;
  EXPECT_EQ(b.scalar("SELECT count(*) FROM verdicts"), 1);
  EXPECT_EQ(b.scalar("SELECT count(*) FROM workloads"), 1);
  EXPECT_EQ(b.scalar("SELECT count(*) FROM symptoms"), 5);
  EXPECT_EQ(b.scalar("SELECT count(*) FROM evidence"), 1);
  EXPECT_EQ(b.scalar("SELECT count(*) FROM bad_nodes"), 1);
  EXPECT_EQ(b.scalar("SELECT count(*) FROM schema_version"), 1) << "migrations ran once";
  // Another rule set's verdict on the same workload is kept beside it.
  ASSERT_TRUE(again->write(testVerdict(4, "sha256:rules-b"), &error)) << error;
  EXPECT_EQ(b.scalar("SELECT count(*) FROM verdicts"), 2);
  EXPECT_EQ(b.scalar("SELECT count(*) FROM workloads"), 2);
  EXPECT_EQ(b.inconsistentVerdicts(), 0);
}

TYPED_TEST_P(SinkSuite, ANewerSchemaIsRefusedAndLeftAsItWas) {
  auto& b = this->backend_;
  std::string error;
  {
    auto sink = b.open(&error);
    ASSERT_TRUE(sink) << error;
    ASSERT_TRUE(sink->write(testVerdict(1), &error)) << error;
  }
  b.exec("INSERT INTO schema_version(version) VALUES (99)");
  EXPECT_FALSE(b.open(&error));
  EXPECT_NE(error.find("schema version 99 is newer than this attrib's 1; use a newer attrib"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  if (!b.secret().empty()) {
    EXPECT_EQ(error.find(b.secret()), std::string::npos) << error;
  }
  EXPECT_EQ(b.scalar("SELECT count(*) FROM schema_version"), 2) << "nothing was changed";
  EXPECT_EQ(b.scalar("SELECT count(*) FROM verdicts"), 1) << "nothing was lost";
}

// Node names and log lines come from the cluster: any bytes. Each ill-formed UTF-8 sequence is
// stored as U+FFFD, as the verdict JSON has it, so the columns and verdict_json agree; the
// history readers look such a name up the same way (tests/history/history_reader_suite.h).
TYPED_TEST_P(SinkSuite, BytesThatAreNotUtf8AreStoredAsTheVerdictJsonWritesThem) {
  auto& b = this->backend_;
  const std::string bad = "gpu-\xff\xfe-\xc3";  // two stray bytes and a cut-short sequence
  const std::string stored = "gpu-\xef\xbf\xbd\xef\xbf\xbd-\xef\xbf\xbd";
  runtime::Verdict v = testVerdict(2);
  v.workload.nodes[0] = bad;
  v.workload.reason = "killed on " + bad;
  v.root->node = bad;
  v.root->evidence[0].node = bad;
  v.root->evidence[0].line = "NVRM: Xid 79 \x80\x81 on " + bad;
  v.badNodes[0].node = bad;
  v.badNodes[0].symptoms = {"gpu.xid.xid79", "odd\xff"};
  std::string error;
  auto sink = b.open(&error);
  ASSERT_TRUE(sink) << error;
  bool written = false;
  EXPECT_NO_THROW(written = sink->write(v, &error));
  ASSERT_TRUE(written) << error;
  EXPECT_EQ(b.text("SELECT node FROM bad_nodes"), stored);
  EXPECT_EQ(b.text("SELECT root_node FROM verdicts"), stored);
  EXPECT_EQ(b.text("SELECT node FROM evidence"), stored);
  EXPECT_EQ(b.text("SELECT content FROM evidence"), "NVRM: Xid 79 \xef\xbf\xbd\xef\xbf\xbd on " + stored);
  EXPECT_EQ(b.text("SELECT reason FROM workloads"), "killed on " + stored);
  auto nodes = nlohmann::json::parse(b.text("SELECT nodes_json FROM workloads"));
  EXPECT_EQ(nodes[0], stored);
  auto symptoms = nlohmann::json::parse(b.text("SELECT symptoms_json FROM bad_nodes"));
  EXPECT_EQ(symptoms[1], "odd\xef\xbf\xbd");
  auto json = nlohmann::json::parse(b.text("SELECT verdict_json FROM verdicts"));
  EXPECT_EQ(json["bad_nodes"][0]["node"], stored) << "the column and the verdict JSON agree";
  // Written again: replaced, not duplicated; the key still finds it.
  ASSERT_TRUE(sink->write(v, &error)) << error;
  EXPECT_EQ(b.scalar("SELECT count(*) FROM bad_nodes"), 1);
  EXPECT_TRUE(sink->contains(v.workload.id, v.rulesetDigest));
  EXPECT_EQ(b.inconsistentVerdicts(), 0);
}

REGISTER_TYPED_TEST_SUITE_P(SinkSuite, RewritingAVerdictReplacesItAndNeverDuplicates, ANewerSchemaIsRefusedAndLeftAsItWas,
                            BytesThatAreNotUtf8AreStoredAsTheVerdictJsonWritesThem);

}  // namespace attrib::sinks
