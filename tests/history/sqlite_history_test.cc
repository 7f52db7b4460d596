// The SQLite history reader (sinks/sqlite_history.h) over databases the real SQLite sink wrote:
// the shared reader suite (history_reader_suite.h), and the files only SQLite has (missing,
// corrupt).
#include "sinks/sqlite_history.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sinks/sqlite_sink.h"
#include "tests/history/history_reader_suite.h"

namespace attrib::sinks {
namespace {

namespace fs = std::filesystem;
using attrib::testing::historyVerdict;
using attrib::testing::kHistoryT0;

void execSql(const std::string& path, const char* sql) {
  sqlite3* h = nullptr;
  sqlite3_open(path.c_str(), &h);
  sqlite3_exec(h, sql, nullptr, nullptr, nullptr);
  sqlite3_close(h);
}

// A verdict database in a fresh temp directory.
class SqliteBackend {
 public:
  static constexpr const char* kName = "SQLite";
  std::string setUp(const std::string& test, bool* /*skip*/) {
    dir_ = fs::temp_directory_path() / ("attrib-history-" + std::to_string(::getpid()) + "-" + test);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "verdicts.db").string();
    return "";
  }
  void tearDown() { fs::remove_all(dir_); }
  bool store(const std::vector<runtime::Verdict>& verdicts, std::string* error) {
    auto sink = SqliteSink::open(db_, error);
    if (!sink) return false;
    for (const auto& v : verdicts) {
      if (!sink->write(v, error)) return false;
    }
    return true;
  }
  std::unique_ptr<history::HistoryReader> open(std::string* error) { return SqliteHistoryReader::open(db_, error); }
  void setSchemaVersion(int64_t version) {
    execSql(db_, ("INSERT INTO schema_version(version) VALUES (" + std::to_string(version) + ")").c_str());
  }
  void makeForeign() { execSql(foreign(), "CREATE TABLE t(x)"); }
  std::unique_ptr<history::HistoryReader> openForeign(std::string* error) { return SqliteHistoryReader::open(foreign(), error); }
  bool foreignUntouched() {
    sqlite3* h = nullptr;
    sqlite3_open_v2(foreign().c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(h, "SELECT group_concat(name) FROM sqlite_master", -1, &st, nullptr);
    bool ok = sqlite3_step(st) == SQLITE_ROW && std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) == "t";
    sqlite3_finalize(st);
    sqlite3_close(h);
    return ok;
  }
  std::string fingerprint() {
    std::ifstream in(db_, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return std::to_string(fs::last_write_time(db_).time_since_epoch().count()) + ":" + std::to_string(std::hash<std::string>()(bytes));
  }
  fs::path dir_;
  std::string db_;

 private:
  std::string foreign() const { return (dir_ / "other.db").string(); }
};

}  // namespace
}  // namespace attrib::sinks

namespace attrib::testing {
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, HistoryReaderTest, ::testing::Types<attrib::sinks::SqliteBackend>);
}  // namespace attrib::testing

namespace attrib::sinks {
namespace {

class SqliteHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bool skip = false;
    ASSERT_EQ(backend_.setUp(::testing::UnitTest::GetInstance()->current_test_info()->name(), &skip), "");
  }
  void TearDown() override { backend_.tearDown(); }
  SqliteBackend backend_;
};

TEST_F(SqliteHistoryTest, AMissingOrCorruptFileIsRefusedWithOneLineAndNeverCreated) {
  std::string error;
  fs::path missing = backend_.dir_ / "missing.db";
  EXPECT_FALSE(SqliteHistoryReader::open(missing.string(), &error));
  EXPECT_NE(error.find("cannot open the verdict database"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(missing)) << "opening never creates";

  fs::path corrupt = backend_.dir_ / "corrupt.db";
  const std::string junk = "this is not a database, just some bytes that are long enough to look like a header......";
  std::ofstream(corrupt) << junk;
  EXPECT_FALSE(SqliteHistoryReader::open(corrupt.string(), &error));
  EXPECT_NE(error.find("is not an attrib verdict database"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
  std::ifstream in(corrupt);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), junk);
}

}  // namespace
}  // namespace attrib::sinks
