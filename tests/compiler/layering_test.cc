// Layered rule sets (docs/language.md, "Layers"): packages a higher layer replaces, what
// `override` and `disable` do to the program, the order declarations take effect in, and the
// ruleset digest, which depends on the sources' content and nothing else.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/bundle_writer.h"
#include "compiler/lower.h"
#include "tests/compiler/test_util.h"

namespace attrib {
namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

const std::string kStd = R"(package std.net
symptom link_down "Link down" {
  on log
  match /link is down/
  family network-fabric
  blame node
}
symptom timeout "Timeout" {
  on log
  match /collective timed out/
  family communication
  role consequence
}
rule link_explains_timeout {
  when link_down as root, timeout as t
  then explain t by root
}
outcome fabric "The fabric broke" {
  when root is link_down
  family network-fabric
  confidence 0.9
}
outcome anything_else {
  when workload.state == FAILED
  family unknown
  confidence 0.1
}
)";

std::vector<std::string> outcomeNames(const ir::Program& p) {
  std::vector<std::string> out;
  for (const auto& o : p.outcomes) out.push_back(o.name);
  return out;
}

const ir::Outcome& outcomeNamed(const ir::Program& p, const std::string& name) {
  auto it = std::find_if(p.outcomes.begin(), p.outcomes.end(), [&](const ir::Outcome& o) { return o.name == name; });
  EXPECT_NE(it, p.outcomes.end()) << name;
  return *it;
}

TEST(Layers, OverrideReplacesInPlaceAndNewOutcomesComeFirst) {
  auto c = testing::checkLayers({{{"std/net.attr", kStd}},
                                 {{"site.attr", R"(package site
import std.net as net
override outcome net.fabric "Our fabric broke: call the network team" {
  when root is net.link_down
  family network-fabric
  action check_fabric
  confidence 0.99
}
outcome ours {
  when workload.state == TIMEOUT
  family scheduler-timeout
}
)"}}});
  ASSERT_EQ(c.errors(), 0u) << ::testing::PrintToString(c.lines());
  ir::Program p = lower(*c.compilation);
  // The site's own outcome first; the override where the stdlib's outcome was.
  EXPECT_EQ(outcomeNames(p), (std::vector<std::string>{"site.ours", "std.net.fabric", "std.net.anything_else"}));
  const ir::Outcome& fabric = outcomeNamed(p, "std.net.fabric");
  EXPECT_EQ(fabric.title, "Our fabric broke: call the network team");
  EXPECT_DOUBLE_EQ(fabric.confidence, 0.99);
  EXPECT_EQ(fabric.actions, std::vector<std::string>{"check_fabric"});
  ASSERT_EQ(c.compilation->index().changes.size(), 1u);
  EXPECT_EQ(c.compilation->index().changes[0].name, "std.net.fabric");
  EXPECT_FALSE(c.compilation->index().changes[0].disable);
}

TEST(Layers, DisableLeavesOutRulesAndOutcomesAndSilencesSymptoms) {
  auto c = testing::checkLayers({{{"std/net.attr", kStd}},
                                 {{"site.attr", R"(package site
import std.net
disable rule std.net.link_explains_timeout "our switches log link-down on every reboot"
disable outcome std.net.anything_else
disable symptom std.net.link_down
)"}}});
  ASSERT_EQ(c.errors(), 0u) << ::testing::PrintToString(c.lines());
  ir::Program p = lower(*c.compilation);
  EXPECT_TRUE(p.rules.empty());
  // The outcome that tests the disabled symptom stays: it can no longer hold.
  EXPECT_EQ(outcomeNames(p), std::vector<std::string>{"std.net.fabric"});
  auto link = std::find_if(p.symptoms.begin(), p.symptoms.end(), [](const ir::Symptom& s) { return s.name == "std.net.link_down"; });
  ASSERT_NE(link, p.symptoms.end());
  EXPECT_TRUE(link->patterns.empty());
  ASSERT_TRUE(link->hasWhen);
  EXPECT_EQ(link->when.op, ir::Op::Const);
  EXPECT_FALSE(link->when.constant.i);
  EXPECT_EQ(c.compilation->index().changes.size(), 3u);
}

TEST(Layers, AnOverriddenSymptomKeepsItsPackageForWildcards) {
  auto c = testing::checkLayers({{{"std/net.attr", kStd}},
                                 {{"site.attr", R"(package site
import std.net
override symptom std.net.timeout "Timeout, also the site's wording" {
  on log
  match /collective timed out/
  match /allreduce stuck/
  family communication
  role consequence
}
rule link_explains_everything {
  when std.net.link_down as root, std.* as t
  then explain t by root
}
)"}}});
  ASSERT_EQ(c.errors(), 0u) << ::testing::PrintToString(c.lines());
  ir::Program p = lower(*c.compilation);
  auto timeout = std::find_if(p.symptoms.begin(), p.symptoms.end(), [](const ir::Symptom& s) { return s.name == "std.net.timeout"; });
  ASSERT_NE(timeout, p.symptoms.end());
  EXPECT_EQ(timeout->patterns.size(), 2u);
  const ir::Rule& rule = p.rules.front();
  ASSERT_EQ(rule.name, "site.link_explains_everything");
  const auto& set = p.symptomSets[rule.bindings[1]];
  EXPECT_NE(std::find(set.begin(), set.end(), timeout - p.symptoms.begin()), set.end());
}

TEST(Layers, ATeamOverridesTheSitesOverride) {
  const std::string site = "package site\nimport std.net\noverride outcome std.net.fabric { when root is std.net.link_down "
                           "family network-fabric confidence 0.5 }\n";
  const std::string team = "package team\nimport std.net\noverride outcome std.net.fabric { when root is std.net.link_down "
                           "family network-fabric confidence 0.7 }\n";
  auto c = testing::checkLayers({{{"std/net.attr", kStd}}, {{"site.attr", site}}, {{"team.attr", team}}});
  ASSERT_EQ(c.errors(), 0u) << ::testing::PrintToString(c.lines());
  ir::Program p = lower(*c.compilation);
  EXPECT_EQ(outcomeNames(p), (std::vector<std::string>{"std.net.fabric", "std.net.anything_else"}));
  EXPECT_DOUBLE_EQ(outcomeNamed(p, "std.net.fabric").confidence, 0.7);
}

TEST(Layers, APackageOfAHigherLayerReplacesTheLowerOne) {
  std::string copy = kStd;
  copy.replace(copy.find("confidence 0.9"), 14, "confidence 0.8");
  auto c = testing::checkLayers({{{"std/net.attr", kStd}}, {{"vendored/net.attr", copy}}});
  EXPECT_EQ(c.errors(), 0u);
  ASSERT_EQ(c.warnings(), 1u) << ::testing::PrintToString(c.lines());  // replaced-package
  EXPECT_FALSE(c.compilation->isActive(0));
  EXPECT_TRUE(c.compilation->isActive(1));
  ir::Program p = lower(*c.compilation);
  EXPECT_DOUBLE_EQ(outcomeNamed(p, "std.net.fabric").confidence, 0.8);
  // An identical copy (`attribc stdlib export`) replaces silently.
  auto same = testing::checkLayers({{{"std/net.attr", kStd}}, {{"exported/net.attr", kStd}}});
  EXPECT_EQ(same.errors() + same.warnings(), 0u) << ::testing::PrintToString(same.lines());
}

TEST(Layers, LowerLayersCannotSeeHigherOnes) {
  auto c = testing::checkLayers({{{"std/net.attr", kStd + "outcome uses_site { when root is site.x family unknown }\n"}},
                                 {{"site.attr", "package site\nsymptom x { on log match /abcdef/ family unknown }\n"}}});
  // The stdlib's outcome cannot import the site's package: layers only look down.
  EXPECT_EQ(c.errors(), 1u) << ::testing::PrintToString(c.lines());
}

// The digest is the sources' content in the order they take effect: paths do not enter it.
TEST(Digest, TheSameSourcesFromThreePathsGiveOneDigest) {
  const std::string other = "package site\nimport std.net\noutcome ours { when workload.state == TIMEOUT family unknown }\n";
  std::vector<std::string> digests;
  for (const char* root : {"rules/", "rules2/", "./"}) {
    auto c = testing::checkLayers({{{std::string(root) + "a/net.attr", kStd}, {std::string(root) + "b/site.attr", other}}});
    ASSERT_EQ(c.errors(), 0u);
    BundleResult b = buildBundle(*c.compilation, {"rules", "0.0.0"}, "test");
    ASSERT_TRUE(b.ok) << b.error;
    digests.push_back(b.digest);
  }
  EXPECT_EQ(digests[0], digests[1]);
  EXPECT_EQ(digests[0], digests[2]);
  // A change of content changes it; so does moving a file to another layer, which changes
  // precedence.
  auto changed = testing::checkLayers({{{"rules/a/net.attr", kStd + "\n"}, {"rules/b/site.attr", other}}});
  EXPECT_NE(buildBundle(*changed.compilation, {"rules", "0.0.0"}, "test").digest, digests[0]);
  auto layered = testing::checkLayers({{{"rules/a/net.attr", kStd}}, {{"rules/b/site.attr", other}}});
  EXPECT_NE(buildBundle(*layered.compilation, {"rules", "0.0.0"}, "test").digest, digests[0]);
}

}  // namespace
}  // namespace attrib
