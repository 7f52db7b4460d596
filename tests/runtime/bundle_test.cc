// Bundles: what is written loads back identically; anything damaged is refused with a reason.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <hs/hs.h>

#include <random>
#include <string>
#include <vector>

#include "ir/codec.h"
#include "ir/sha256.h"
#include "runtime/bundle.h"
#include "tests/runtime/engine_util.h"

namespace attrib {
namespace {

const char* kRules = R"(
package t
symptom xid79 "GPU fell off the bus" {
  on log(source in [syslog])
  match /NVRM: Xid \(PCI:(?<pci>[0-9a-f:.]+)\): 79\b/
  family accelerator-gpu severity critical blame node action drain_node
}
symptom timeout { on log match /Watchdog caught collective operation timeout/ family communication role consequence }
symptom slow { on metric gpu_temp when avg(value) over 5m > 90 for 1m family accelerator-gpu blame gpu }
symptom late { on scheduler when state == TIMEOUT family scheduler-timeout blame workload }
filter one { keep first timeout per rank }
rule explains { when xid79 as r, timeout as t where t.time in [r.time, r.time + 30m] then explain t by r }
outcome lost { when root is xid79 and count(xid79 on same node) >= 1 family accelerator-gpu action drain_node confidence 0.9 }
)";

std::string bundleBytes() {
  std::string bytes;
  auto engine = testing::engineFor(kRules, &bytes);
  EXPECT_TRUE(engine);
  return bytes;
}

// Replaces the trailing checksum so that only the deeper checks can catch a change.
std::string resealed(std::string bytes) {
  bytes.resize(bytes.size() - 32);
  return bytes + sha256(bytes);
}

TEST(Bundle, RoundTripKeepsTheProgram) {
  std::string bytes = bundleBytes();
  std::string error;
  auto bundle = runtime::loadBundle(bytes, &error);
  ASSERT_TRUE(bundle) << error;
  EXPECT_EQ(bundle->program.symptoms.size(), 4u);
  EXPECT_EQ(bundle->program.rules.size(), 1u);
  EXPECT_EQ(bundle->logExpressions.size(), 2u);
  EXPECT_TRUE(bundle->logDatabase);
  EXPECT_EQ(bundle->digest.substr(0, 7), "sha256:");
  EXPECT_EQ(bundle->program.metricNames(), std::vector<std::string>{"gpu_temp"});
  // Encoding the decoded program gives the same bytes: nothing was lost or invented.
  ir::Program again;
  ASSERT_TRUE(ir::decode(ir::encode(bundle->program), &again, &error)) << error;
  EXPECT_EQ(ir::encode(again), ir::encode(bundle->program));
  EXPECT_EQ(ir::dump(bundle->program.outcomes[0].when), ir::dump(again.outcomes[0].when));
}

TEST(Bundle, SameRulesSameBytes) { EXPECT_EQ(bundleBytes(), bundleBytes()); }

// The bundle with its log databases rewritten: `keep` says which of them (with the channel
// markers, without) stay, in which order. The rest of the body is copied as it is.
std::string withLogDatabases(const std::string& bytes, const std::vector<int>& keep) {
  const size_t header = kBundleMagic.size() + 4;
  ir::Reader r(std::string_view(bytes).substr(header, bytes.size() - header - 32));
  std::string_view digest, program;
  std::string name, version, attribc, hyperscan, markers;
  uint64_t databases = 0;
  EXPECT_TRUE(r.bytes(&digest) && r.string(&name) && r.string(&version) && r.string(&attribc) && r.string(&hyperscan) &&
              r.string(&markers) && r.bytes(&program) && r.count(&databases));
  EXPECT_EQ(databases, 2u);
  struct Entry {
    uint8_t stream;
    uint64_t patterns, markers;
    std::string_view serialized;
  };
  std::vector<Entry> entries(2);
  for (Entry& e : entries) EXPECT_TRUE(r.u8(&e.stream) && r.varint(&e.patterns) && r.varint(&e.markers) && r.bytes(&e.serialized));
  ir::Writer w;
  w.bytes(digest);
  for (const std::string* s : {&name, &version, &attribc, &hyperscan, &markers}) w.bytes(*s);
  w.bytes(program);
  w.varint(keep.size());
  for (int k : keep) {
    w.u8(entries[k].stream);
    w.varint(entries[k].patterns);
    w.varint(entries[k].markers);
    w.bytes(entries[k].serialized);
  }
  return resealed(bytes.substr(0, header) + w.str() + std::string(32, '\0'));
}

// Every bundle holds the log database twice: with the channel markers, and without them for the
// chunks whose every line a prefix classifies (ir/bundle_format.h). Both are needed, once each.
TEST(Bundle, HoldsTheLogDatabaseWithAndWithoutTheChannelMarkers) {
  const std::string bytes = bundleBytes();
  std::string error;
  auto bundle = runtime::loadBundle(bytes, &error);
  ASSERT_TRUE(bundle) << error;
  EXPECT_TRUE(bundle->logDatabase);
  EXPECT_TRUE(bundle->logDatabaseWithoutMarkers);
  ASSERT_TRUE(runtime::loadBundle(withLogDatabases(bytes, {1, 0}), &error)) << "either order: " << error;
  EXPECT_FALSE(runtime::loadBundle(withLogDatabases(bytes, {0}), &error));
  EXPECT_EQ(error, "corrupt bundle: no log database without channel markers");
  EXPECT_FALSE(runtime::loadBundle(withLogDatabases(bytes, {1}), &error));
  EXPECT_EQ(error, "corrupt bundle: no log database");
  EXPECT_FALSE(runtime::loadBundle(withLogDatabases(bytes, {0, 0}), &error));
  EXPECT_EQ(error, "corrupt bundle: unexpected database for stream 0");
  EXPECT_FALSE(runtime::loadBundle(withLogDatabases(bytes, {1, 1}), &error));
  EXPECT_EQ(error, "corrupt bundle: unexpected database for stream 0");
}

TEST(Bundle, EveryTruncationIsRefused) {
  std::string bytes = bundleBytes();
  for (size_t n = 0; n < bytes.size(); n += (n < 64 ? 1 : 97)) {
    std::string error;
    EXPECT_FALSE(runtime::loadBundle(bytes.substr(0, n), &error)) << n;
    EXPECT_FALSE(error.empty());
  }
}

TEST(Bundle, FlippedBytesFailTheChecksum) {
  std::string bytes = bundleBytes();
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::string damaged = bytes;
    size_t at = 12 + rng() % (damaged.size() - 12);
    damaged[at] = static_cast<char>(damaged[at] ^ (1 + rng() % 255));
    std::string error;
    EXPECT_FALSE(runtime::loadBundle(damaged, &error));
    EXPECT_EQ(error, "corrupt bundle: checksum mismatch (the file was truncated or modified)");
  }
}

TEST(Bundle, DamageBehindAValidChecksumIsStillCaught) {
  // A tool that rewrites bundles could produce a valid checksum over bad contents; the decoder
  // must hold on its own. Any outcome but a crash is fine; most are refused.
  std::string bytes = bundleBytes();
  std::mt19937 rng(11);
  size_t refused = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string damaged = bytes;
    size_t at = 12 + rng() % (damaged.size() - 44);
    damaged[at] = static_cast<char>(rng());
    std::string error;
    auto bundle = runtime::loadBundle(resealed(damaged), &error);
    if (!bundle) {
      ++refused;
      EXPECT_FALSE(error.empty());
    }
  }
  EXPECT_GT(refused, 100u);
}

TEST(Bundle, WrongMagicAndVersion) {
  std::string error;
  EXPECT_FALSE(runtime::loadBundle("symptom x { }", &error));
  EXPECT_EQ(error, "not an attrib bundle (bad magic bytes)");
  std::string bytes = bundleBytes();
  bytes[8] = 9;
  EXPECT_FALSE(runtime::loadBundle(resealed(bytes), &error));
  EXPECT_EQ(error, fmt::format("bundle format version 9 is not supported (this attrib reads version {}); rebuild it "
                               "with 'attribc build'", kBundleFormatVersion));
}

TEST(Bundle, DatabaseFromAnotherPlatformIsRefused) {
  // Damage the Hyperscan database's platform/version header inside the bundle, keeping the
  // bundle well formed: Hyperscan refuses to deserialise it, and the loader says why.
  std::string bytes = bundleBytes();
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  ASSERT_EQ(hs_compile("abc", 0, HS_MODE_BLOCK, nullptr, &db, &err), HS_SUCCESS);
  char* serialized = nullptr;
  size_t length = 0;
  ASSERT_EQ(hs_serialize_database(db, &serialized, &length), HS_SUCCESS);
  // The serialised header starts with the magic and the version; find the log database's copy.
  std::string header(serialized, 8);
  std::free(serialized);
  hs_free_database(db);
  size_t at = bytes.find(header);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 4] ^= 0x7f;  // version field
  std::string error;
  EXPECT_FALSE(runtime::loadBundle(resealed(bytes), &error));
  EXPECT_NE(error.find("built for another Hyperscan platform"), std::string::npos) << error;
  EXPECT_NE(error.find("Rebuild the bundle here with 'attribc build'"), std::string::npos) << error;
}

}  // namespace
}  // namespace attrib
