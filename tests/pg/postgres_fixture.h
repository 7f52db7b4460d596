// The fixture every PostgreSQL test shares: the binary's one server (sharedPostgres), skipped
// when PostgreSQL 15 is not installed and failed when it is but does not start, and a fresh
// database per test named PREFIX_TESTNAME.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tests/pg/postgres_server.h"

namespace attrib::testing {

// The per-test database, for fixtures and typed-suite backends alike: "" when ready, else why
// not (*skip: PostgreSQL is not installed, the test is skipped rather than failed).
inline std::string freshPostgresDatabase(const std::string& prefix, PostgresServer** server, std::string* database, bool* skip) {
  std::string why;
  *server = &sharedPostgres(&why);
  *skip = (*server)->missing();
  if (!why.empty()) return why;
  *database = prefix + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return (*server)->createDatabase(*database);
}

class PostgresTest : public ::testing::Test {
 protected:
  explicit PostgresTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    bool skip = false;
    std::string why = freshPostgresDatabase(prefix_, &server_, &db_, &skip);
    if (skip) GTEST_SKIP() << why;
    ASSERT_EQ(why, "");
  }
  // The test's database as a postgresql:// URL with the password.
  std::string url() const { return server_->url(db_); }

  PostgresServer* server_ = nullptr;
  std::string db_;

 private:
  std::string prefix_;
};

}  // namespace attrib::testing
