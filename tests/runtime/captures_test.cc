// runtime::Captures: one block per instance that the JIT reads in place (jit/data_layout.h), so
// what matters is that the views always point into the object's own, live block.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/captures.h"

namespace attrib::runtime {
namespace {

bool viewsInsideBlock(const Captures& c) {
  const char* hi = reinterpret_cast<const char*>(c.end());
  for (const auto& e : c) {
    for (const auto& t : {e.nameText, e.valueText}) {
      if (t.data < hi) return false;  // the bytes follow the entries, in the same block
    }
  }
  return true;
}

TEST(Captures, KeepsPairsInOrderAndTheFirstOfANameWins) {
  std::string pci = "0000:5c:00.0", iface = "ib4";
  Captures c{{"pci", pci}, {"iface", iface}, {"pci", "shadowed"}};
  pci.assign("changed");  // the block holds copies
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].name(), "pci");
  EXPECT_EQ(c[1].value(), "ib4");
  ASSERT_TRUE(c.find("pci"));
  EXPECT_EQ(*c.find("pci"), "0000:5c:00.0");
  EXPECT_FALSE(c.find("pc"));
  EXPECT_FALSE(c.find("gpu"));
  EXPECT_TRUE(viewsInsideBlock(c));
}

TEST(Captures, EmptyHasNoBlockAndEmptyValuesAreKept) {
  Captures none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.begin(), nullptr);
  EXPECT_FALSE(none.find(""));
  Captures blank{{"step", ""}, {"", "x"}};
  ASSERT_TRUE(blank.find("step"));
  EXPECT_EQ(*blank.find("step"), "");
  ASSERT_TRUE(blank.find(""));
  EXPECT_EQ(*blank.find(""), "x");
}

TEST(Captures, CopiesOwnTheirBlockAndMovesHandItOver) {
  Captures a{{"code", std::string(100, 'x')}};
  Captures b = a;
  EXPECT_NE(a.begin(), b.begin());
  EXPECT_EQ(a, b);
  const auto* block = b.begin();
  Captures c = std::move(b);
  EXPECT_EQ(c.begin(), block);  // the views were into this block and still are
  EXPECT_TRUE(b.empty());       // NOLINT(bugprone-use-after-move): a moved-from object is empty
  EXPECT_EQ(*c.find("code"), std::string(100, 'x'));
  a = c;
  a = std::move(a);  // self-move keeps the captures
  EXPECT_EQ(*a.find("code"), std::string(100, 'x'));
  std::vector<Captures> grown;
  for (int i = 0; i < 100; ++i) grown.push_back(Captures{{"i", std::to_string(i)}});
  for (int i = 0; i < 100; ++i) EXPECT_EQ(*grown[i].find("i"), std::to_string(i));
}

TEST(Captures, AppendAndAssignMayReadTheirOwnBytes) {
  Captures c{{"node", "gpu-0001"}};
  c.append(c[0].value(), c[0].name());  // views into the block being replaced
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1].name(), "gpu-0001");
  EXPECT_EQ(c[1].value(), "node");
  c.assign(c.pairs());
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(*c.find("node"), "gpu-0001");
  EXPECT_TRUE(viewsInsideBlock(c));
  c.assign({});
  EXPECT_TRUE(c.empty());
}

}  // namespace
}  // namespace attrib::runtime
