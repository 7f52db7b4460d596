// runtime::InstanceBlocks: a scan's instances stay where they were made until moveInto(), which
// hands them over in order, each exactly once.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/instance_blocks.h"

namespace attrib::runtime {
namespace {

Instance numbered(int32_t n) {
  Instance inst;
  inst.symptom = n;
  inst.text = "line " + std::to_string(n) + std::string(40, 'x');  // longer than the string's inline buffer
  inst.captures = Captures{{"n", std::to_string(n)}};
  return inst;
}

TEST(InstanceBlocks, InstancesNeverMoveWhileTheListGrows) {
  InstanceBlocks blocks;
  std::vector<const Instance*> where;
  std::vector<const char*> texts;
  for (int32_t n = 0; n < 20000; ++n) {
    const Instance& inst = blocks.push(numbered(n));
    where.push_back(&inst);
    texts.push_back(inst.text.data());
  }
  ASSERT_EQ(blocks.size(), 20000u);
  size_t k = 0;
  blocks.forEach([&](const Instance& inst) {
    EXPECT_EQ(&inst, where[k]) << k;  // a growing vector would have moved all of them
    EXPECT_EQ(inst.text.data(), texts[k]) << k;
    EXPECT_EQ(inst.symptom, static_cast<int32_t>(k));
    ++k;
  });
  EXPECT_EQ(k, 20000u);
}

TEST(InstanceBlocks, MoveIntoAppendsInOrderAndEmptiesTheList) {
  InstanceBlocks blocks;
  for (int32_t n = 0; n < 5000; ++n) blocks.push(numbered(n));
  std::vector<Instance> out;
  out.push_back(numbered(-1));  // what the list already held stays first
  blocks.moveInto(out);
  ASSERT_EQ(out.size(), 5001u);
  EXPECT_EQ(out[0].symptom, -1);
  for (int32_t n = 0; n < 5000; ++n) {
    ASSERT_EQ(out[static_cast<size_t>(n) + 1].symptom, n);
    ASSERT_EQ(out[static_cast<size_t>(n) + 1].text, "line " + std::to_string(n) + std::string(40, 'x'));
    ASSERT_EQ(out[static_cast<size_t>(n) + 1].capture("n").value_or(""), std::to_string(n));
  }
  EXPECT_TRUE(blocks.empty());
  EXPECT_EQ(blocks.size(), 0u);
  size_t left = 0;
  blocks.forEach([&](const Instance&) { ++left; });
  EXPECT_EQ(left, 0u);
  // An emptied list can be filled again.
  blocks.push(numbered(7));
  EXPECT_EQ(blocks.size(), 1u);
}

TEST(InstanceBlocks, AListMovedFromIsEmpty) {
  InstanceBlocks blocks;
  for (int32_t n = 0; n < 100; ++n) blocks.push(numbered(n));
  const Instance* first = nullptr;
  blocks.forEach([&](const Instance& inst) {
    if (!first) first = &inst;
  });
  InstanceBlocks taken(std::move(blocks));
  EXPECT_EQ(taken.size(), 100u);
  EXPECT_EQ(blocks.size(), 0u);  // NOLINT(bugprone-use-after-move): the contract under test
  EXPECT_TRUE(blocks.empty());
  const Instance* moved = nullptr;
  taken.forEach([&](const Instance& inst) {
    if (!moved) moved = &inst;
  });
  EXPECT_EQ(moved, first);  // the blocks changed hands; the instances stayed where they were
  InstanceBlocks assigned;
  assigned.push(numbered(-1));
  assigned = std::move(taken);
  EXPECT_EQ(assigned.size(), 100u);
  EXPECT_EQ(taken.size(), 0u);  // NOLINT(bugprone-use-after-move)
  size_t seen = 0;
  assigned.forEach([&](const Instance& inst) { EXPECT_EQ(inst.symptom, static_cast<int32_t>(seen++)); });
  EXPECT_EQ(seen, 100u);
}

TEST(InstanceBlocks, AnEmptyListMovesNothing) {
  InstanceBlocks blocks;
  std::vector<Instance> out;
  blocks.moveInto(out);
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(blocks.empty());
}

}  // namespace
}  // namespace attrib::runtime
