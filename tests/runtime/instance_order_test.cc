// sortEarlierFirst (runtime/instance.h): the phases' order of instances must be exactly
// std::stable_sort by `earlier`, ties (same time and sequence) keeping the order they came in.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "runtime/instance.h"

namespace attrib {
namespace {

using runtime::Instance;

// Instances with few distinct times and sequences, so that most of them tie; each carries its
// original position in `text` to tell tied instances apart.
std::vector<Instance> tiedInstances(size_t n, unsigned seed, int times, int sequences) {
  std::mt19937 random(seed);
  std::vector<Instance> out(n);
  for (size_t i = 0; i < n; ++i) {
    out[i].time = static_cast<int64_t>(random() % times) * 1000;
    if (random() % 7 == 0) out[i].time = runtime::kTimeUnknown;
    out[i].sequence = random() % sequences;
    out[i].symptom = static_cast<int32_t>(random() % 5);
    out[i].text = std::to_string(i);
    out[i].captures = {{"k", std::string(40, static_cast<char>('a' + i % 26))}};  // a capture block moves too
  }
  return out;
}

std::vector<std::string> texts(const std::vector<Instance>& v) {
  std::vector<std::string> out;
  for (const auto& inst : v) out.push_back(inst.text + "/" + (inst.captures.empty() ? "" : std::string(inst.captures[0].value())));
  return out;
}

TEST(InstanceOrder, SameAsStableSortWithTies) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    for (size_t n : {0u, 1u, 2u, 7u, 100u, 1000u}) {
      std::vector<Instance> expected = tiedInstances(n, seed, 1 + seed % 4, 1 + seed % 3);
      std::vector<Instance> actual = tiedInstances(n, seed, 1 + seed % 4, 1 + seed % 3);
      std::stable_sort(expected.begin(), expected.end(), runtime::earlier);
      runtime::sortEarlierFirst(actual);
      ASSERT_EQ(texts(actual), texts(expected)) << "seed " << seed << ", " << n << " instances";
    }
  }
}

TEST(InstanceOrder, SortedAndReversedInputs) {
  std::vector<Instance> v(50);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i].time = static_cast<int64_t>(i);
    v[i].text = std::to_string(i);
  }
  std::vector<Instance> sorted = v;
  runtime::sortEarlierFirst(sorted);
  EXPECT_EQ(texts(sorted).size(), 50u);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(sorted[i].text, std::to_string(i));
  std::reverse(v.begin(), v.end());
  runtime::sortEarlierFirst(v);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i].text, std::to_string(i));
}

}  // namespace
}  // namespace attrib
