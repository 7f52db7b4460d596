// `attrib report`, `attrib diagnose --report` and `attrib dashboard` as users run them: the same
// report from the verdict file, from stdin and from diagnose; bad verdicts, unwritable files and
// unusable databases are one-line errors and leave nothing half-written.
#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

const fs::path kExample = fs::path(ATTRIB_SOURCE_DIR) / "examples" / "xid79-nccl-cascade";

TEST(ReportCli, TheSameReportFromDiagnoseFromAFileAndFromStdin) {
  TempDir dir;
  fs::path direct = dir.path() / "direct.html";
  CliResult d = runAttrib({"diagnose", "--no-timings", "--report", direct.string(), kExample.string()}, dir.path());
  ASSERT_EQ(d.exit, 0) << d.err;
  EXPECT_EQ(json::parse(d.out)["root_cause"]["symptom"], "gpu.xid.xid79") << "the verdict still goes to stdout";
  fs::path verdict = dir.write("verdict.json", d.out);
  fs::path fromFile = dir.path() / "file.html";
  CliResult f = runAttrib({"report", verdict.string(), "-o", fromFile.string()}, dir.path());
  ASSERT_EQ(f.exit, 0) << f.err;
  EXPECT_TRUE(f.out.empty() && f.err.empty());
  std::string html = slurp(direct);
  EXPECT_EQ(slurp(fromFile), html);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<code>gpu.xid.xid79</code>"), std::string::npos);
  EXPECT_NE(html.find("scontrol update nodename=gpu-0007 state=drain"), std::string::npos);
  // From stdin to stdout.
  fs::path out = dir.path() / "stdout.html";
  int status = std::system(fmt::format("{} report < {} > {}", quote(ATTRIB_PATH), quote(verdict.string()), quote(out.string())).c_str());
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(slurp(out), html);
}

TEST(ReportCli, BadVerdictsAndUnwritableFilesAreOneLineErrorsAndWriteNothing) {
  TempDir dir;
  fs::path out = dir.path() / "report.html";
  struct Case {
    std::string text, message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "v.json: verdict: not JSON (at byte 1)"},
           {"{\"schema\": \"attrib.verdict/v2\"}", "v.json: verdict: schema 'attrib.verdict/v2' is not attrib.verdict/v1"},
           {"[1, 2]", "v.json: verdict: '' must be a JSON object"},
       }) {
    fs::path v = dir.write("v.json", c.text);
    CliResult r = runAttrib({"report", v.string(), "-o", out.string()}, dir.path());
    EXPECT_EQ(r.exit, 1) << c.text;
    EXPECT_EQ(r.err.rfind("attrib: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out)) << "nothing written for a bad verdict";
  }
  CliResult missing = runAttrib({"report", (dir.path() / "nope.json").string(), "-o", out.string()}, dir.path());
  EXPECT_EQ(missing.exit, 1);
  EXPECT_NE(missing.err.find("cannot read the verdict"), std::string::npos) << missing.err;
  CliResult empty = runAttrib({"report"}, dir.path());  // stdin is /dev/null: an empty verdict
  EXPECT_EQ(empty.exit, 1);
  EXPECT_NE(empty.err.find("stdin: verdict: not JSON"), std::string::npos) << empty.err;

  // An existing report is kept whole when the new one cannot be written.
  dir.write("keep/report.html", "old");
  fs::permissions(dir.path() / "keep", fs::perms::owner_read | fs::perms::owner_exec);
  CliResult d = runAttrib({"diagnose", "--no-timings", "--report", (dir.path() / "keep" / "report.html").string(), kExample.string()},
                          dir.path());
  if (::geteuid() != 0) {  // root writes anywhere
    EXPECT_EQ(d.exit, 1);
    EXPECT_NE(d.err.find("cannot write the report"), std::string::npos) << d.err;
    EXPECT_EQ(slurp(dir.path() / "keep" / "report.html"), "old");
  }
  EXPECT_FALSE(json::parse(d.out).is_discarded()) << "the verdict is printed whatever happens to the report";
  CliResult noDir = runAttrib({"diagnose", "--report", (dir.path() / "no" / "such" / "r.html").string(), kExample.string()}, dir.path());
  EXPECT_EQ(noDir.exit, 1);
  EXPECT_NE(noDir.err.find("attrib: error: cannot write the report"), std::string::npos) << noDir.err;
  EXPECT_EQ(std::count(noDir.err.begin(), noDir.err.end(), '\n'), 1) << noDir.err;
}

TEST(ReportCli, TheDashboardRefusesWhatItCannotServe) {
  TempDir dir;
  CliResult missing = runAttrib({"dashboard", (dir.path() / "none.db").string(), "--listen", "127.0.0.1:0"}, dir.path());
  EXPECT_EQ(missing.exit, 1);
  EXPECT_NE(missing.err.find("attrib: error: cannot open the verdict database"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir.path() / "none.db"));
  fs::path junk = dir.write("junk.db", "not a database at all, just text that is long enough to be looked at......");
  CliResult notDb = runAttrib({"dashboard", junk.string(), "--listen", "127.0.0.1:0"}, dir.path());
  EXPECT_EQ(notDb.exit, 1);
  EXPECT_NE(notDb.err.find("is not an attrib verdict database"), std::string::npos) << notDb.err;
  EXPECT_EQ(std::count(notDb.err.begin(), notDb.err.end(), '\n'), 1) << notDb.err;
  CliResult listen = runAttrib({"dashboard", junk.string(), "--listen", "nowhere"}, dir.path());
  EXPECT_EQ(listen.exit, 2);
  EXPECT_NE(listen.err.find("--listen wants HOST:PORT, not 'nowhere'"), std::string::npos) << listen.err;
  fs::path empty = dir.write("token", "\n");
  CliResult token = runAttrib({"dashboard", junk.string(), "--token-file", empty.string()}, dir.path());
  EXPECT_EQ(token.exit, 1);
  EXPECT_NE(token.err.find("the token file " + empty.string() + " is empty"), std::string::npos) << token.err;
}

}  // namespace
}  // namespace attrib::e2e
