// Site rules on top of the stdlib (examples/site-rules, docs/language.md "Layers") as users run
// them: `attrib diagnose --rules site/`, ATTRIB_RULES, `attrib run` with the rules in its
// blueprint, `attrib serve --rules site/` behind `attrib run`; layers in the order given; the
// compiled bundle cached by the sources' content (and replaced when a cache entry is damaged).
#include <httplib.h>
#include <sqlite3.h>

#include "tests/e2e/e2e_util.h"

namespace attrib::e2e {
namespace {

const fs::path kSite = fs::path(ATTRIB_SOURCE_DIR) / "examples" / "site-rules";
const fs::path kXid79 = fs::path(ATTRIB_SOURCE_DIR) / "examples" / "xid79-nccl-cascade";
constexpr const char* kRmaTitle = "A GPU fell off the bus: drain the node and replace the GPU (RMA)";

// The variable set for the lifetime of the object (children inherit it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class SiteRules : public ::testing::Test {
 protected:
  SiteRules() : cache_("ATTRIB_RULES_CACHE", (dir_.path() / "rules-cache").string()) {}

  std::vector<fs::path> cacheEntries() const {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_.path() / "rules-cache", ec)) out.push_back(e.path());
    return out;
  }
  fs::path blueprint(const std::string& rules, const std::string& sinks, const std::string& service = "") {
    std::string text = fmt::format(R"(rules: {1}
context:
  static:
    workload: {0}/workload.json
sources:
  - files:
      roots: [{0}/logs]
      patterns:
        - glob: "{0}/logs/${{node}}/*.log*"
sinks:
{2}{3})",
                                   kXid79.string(), rules, sinks, service.empty() ? "" : "service: " + service + "\n");
    return dir_.write("blueprint.yaml", text);
  }

  TempDir dir_;
  ScopedEnv cache_;
};

void expectTheSitesOutcome(const json& v) {
  ASSERT_FALSE(v["outcome"].empty()) << v.dump(2).substr(0, 2000);
  EXPECT_EQ(v["outcome"][0]["name"], "gpu.xid.gpu_lost");
  EXPECT_EQ(v["outcome"][0]["title"], kRmaTitle);
  EXPECT_EQ(v["root_cause"]["symptom"], "gpu.xid.xid79");
  EXPECT_DOUBLE_EQ(v["confidence"].get<double>(), 0.97);
  std::vector<std::string> actions = v["recommendation"]["actions"];
  EXPECT_EQ(actions, (std::vector<std::string>{"drain_node", "replace_gpu", "restart"}));
}

TEST_F(SiteRules, DiagnoseAndAttribRulesApplyTheSitesOverride) {
  json stdlib = diagnose(kXid79, dir_.path());
  EXPECT_EQ(stdlib["outcome"][0]["title"], "A GPU fell off the bus");
  EXPECT_EQ(stdlib["ruleset"]["name"], "stdlib");

  CliResult raw;
  json site = diagnose(kXid79, dir_.path(), {"--rules", kSite.string()}, &raw);
  expectTheSitesOutcome(site);
  EXPECT_EQ(site["ruleset"]["name"], "stdlib+site-rules");
  EXPECT_NE(site["ruleset"]["digest"], stdlib["ruleset"]["digest"]);
  EXPECT_EQ(raw.err, "") << "the example site rules are clean";

  // ATTRIB_RULES stands for --rules; --rules wins over it.
  ScopedEnv rules("ATTRIB_RULES", kSite.string());
  json fromEnv = diagnose(kXid79, dir_.path());
  expectTheSitesOutcome(fromEnv);
  EXPECT_EQ(fromEnv["ruleset"], site["ruleset"]);
  fs::path empty = dir_.write("empty/site.attr", "package nothing.here\n");
  json overridden = diagnose(kXid79, dir_.path(), {"--rules", empty.parent_path().string()});
  EXPECT_EQ(overridden["outcome"][0]["title"], "A GPU fell off the bus");
}

TEST_F(SiteRules, RunAndServeApplyTheSitesOverride) {
  // attrib run, the rules in the blueprint.
  CliResult run = runAttrib({"run", "--config", blueprint(kSite.string(), "  - stdout: {format: jsonl}\n").string()},
                            dir_.path());
  ASSERT_EQ(run.exit, 0) << run.err;
  json v = json::parse(run.out);
  expectTheSitesOutcome(v);

  // attrib serve with the site rules, behind attrib run (the blueprint's rules only choose metrics).
  Served service(dir_.path(), {"--rules", kSite.string()});
  httplib::Client client("127.0.0.1", service.port());
  auto rulesets = client.Get("/v1/rulesets");
  ASSERT_TRUE(rulesets) << "no answer from attrib serve";
  json r = json::parse(rulesets->body);
  EXPECT_NE(r.dump().find(v["ruleset"]["digest"].get<std::string>()), std::string::npos) << r.dump();
  CliResult remote = runAttrib({"run", "--config",
                                blueprint("", "  - stdout: {format: jsonl}\n", fmt::format("{{url: \"{}\"}}", service.url()))
                                    .string()},
                               dir_.path());
  ASSERT_EQ(remote.exit, 0) << remote.err << service.log();
  expectTheSitesOutcome(json::parse(remote.out));
}

TEST_F(SiteRules, LayersTakeEffectInTheOrderGiven) {
  // A team's rules over the site's: the team's override of the same outcome wins; given the
  // other way round, the site's does.
  fs::path team = dir_.write("team/gpu.attr", R"(package team.gpu
import gpu.xid
override outcome gpu.xid.gpu_lost "The team's view of a lost GPU" {
  when root is gpu.xid.xid79
  family accelerator-gpu
  action drain_node
  confidence 0.6
}
)");
  json teamOnTop = diagnose(kXid79, dir_.path(), {"--rules", kSite.string(), "--rules", team.parent_path().string()});
  EXPECT_EQ(teamOnTop["outcome"][0]["title"], "The team's view of a lost GPU");
  EXPECT_DOUBLE_EQ(teamOnTop["confidence"].get<double>(), 0.6);
  json siteOnTop = diagnose(kXid79, dir_.path(), {"--rules", team.parent_path().string(), "--rules", kSite.string()});
  expectTheSitesOutcome(siteOnTop);
  EXPECT_NE(teamOnTop["ruleset"]["digest"], siteOnTop["ruleset"]["digest"]);
}

TEST_F(SiteRules, SourcesAreCompiledOnceThenReadFromTheCache) {
  fs::path site = dir_.path() / "site";
  fs::copy(kSite, site, fs::copy_options::recursive);
  // A warning, so that replaying it on a cache hit is visible.
  std::string health = slurp(site / "health.attr");
  health.replace(health.find("import std.teardown\n"), 0, "import gpu.dcgm\n");
  dir_.write("site/health.attr", health);
  CliResult first, second;
  json a = diagnose(kXid79, dir_.path(), {"--rules", site.string()}, &first);
  ASSERT_EQ(cacheEntries().size(), 1u);
  fs::path entry = cacheEntries()[0];
  EXPECT_EQ(entry.extension(), ".attrb");
  auto written = fs::last_write_time(entry);
  json b = diagnose(kXid79, dir_.path(), {"--rules", site.string()}, &second);
  EXPECT_EQ(a, b);
  EXPECT_EQ(cacheEntries().size(), 1u);
  EXPECT_EQ(fs::last_write_time(entry), written) << "a hit reads the entry and writes nothing";
  EXPECT_NE(first.err.find("warning: package 'gpu.dcgm' is imported but never used"), std::string::npos) << first.err;
  EXPECT_EQ(second.err, first.err) << "a hit replays the warnings of the compile";

  // Changed content is another key.
  dir_.write("site/health.attr", health + "\n// a comment\n");
  diagnose(kXid79, dir_.path(), {"--rules", site.string()});
  EXPECT_EQ(cacheEntries().size(), 2u);

  // A damaged entry is said, ignored and replaced; the verdict does not change.
  dir_.write("site/health.attr", health);
  std::string bytes = slurp(entry);
  bytes[bytes.size() / 2] ^= 0x5a;
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
  CliResult damaged;
  json c = diagnose(kXid79, dir_.path(), {"--rules", site.string()}, &damaged);
  EXPECT_EQ(c, a);
  EXPECT_NE(damaged.err.find("attrib: note: ignored the rules cache entry " + entry.string() +
                             ": checksum mismatch (truncated or corrupted)"),
            std::string::npos)
      << damaged.err;
  CliResult repaired;
  diagnose(kXid79, dir_.path(), {"--rules", site.string()}, &repaired);
  EXPECT_EQ(repaired.err.find("ignored"), std::string::npos) << repaired.err;
}

TEST_F(SiteRules, WrongRulesAreOneLineErrors) {
  CliResult missing = runAttrib({"diagnose", "--rules", (dir_.path() / "nope").string(), kXid79.string()}, dir_.path());
  EXPECT_EQ(missing.exit, 1);
  EXPECT_EQ(missing.err, "attrib: error: cannot read '" + (dir_.path() / "nope").string() +
                             "': no such file or directory\n");
  fs::path broken = dir_.write("broken/site.attr", "package site\nimport gpu.xdi\n");
  CliResult errors = runAttrib({"diagnose", "--rules", broken.parent_path().string(), kXid79.string()}, dir_.path());
  EXPECT_EQ(errors.exit, 1);
  EXPECT_NE(errors.err.find("site.attr:2:8: error: no checked file declares package 'gpu.xdi'; did you mean 'gpu.xid'? [A104]"),
            std::string::npos)
      << errors.err;
  EXPECT_NE(errors.err.find("attrib: error: the rules in " + broken.parent_path().string() + " have errors (see above)"),
            std::string::npos)
      << errors.err;
  EXPECT_TRUE(cacheEntries().empty()) << "rules with errors are never cached";
  // A bundle is a whole rule set: it is not layered.
  fs::path bundle = dir_.write("site.attrb", "ATTRBNDL not really");
  CliResult layered = runAttrib({"diagnose", "--rules", kSite.string(), "--rules", bundle.string(), kXid79.string()},
                                dir_.path());
  EXPECT_EQ(layered.exit, 1);
  EXPECT_EQ(layered.err, "attrib: error: " + bundle.string() +
                             " is a bundle, a whole rule set: give it alone, or layer the .attr sources it was built "
                             "from\n");
}

}  // namespace
}  // namespace attrib::e2e
