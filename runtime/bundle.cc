#include "runtime/bundle.h"

#include "ir/log_channels.h"

#include <fmt/format.h>
#include <hs/hs.h>

#include <cstdlib>

#include "ir/codec.h"
#include "ir/sha256.h"

namespace attrib::runtime {

bool looksLikeBundle(std::string_view bytes) { return bytes.substr(0, kBundleMagic.size()) == kBundleMagic; }

std::shared_ptr<const Bundle> loadBundle(std::string_view bytes, std::string* error) {
  constexpr size_t kHeader = 8 + 4, kChecksum = 32;
  if (!looksLikeBundle(bytes)) {
    *error = "not an attrib bundle (bad magic bytes)";
    return nullptr;
  }
  if (bytes.size() < kHeader + kChecksum) {
    *error = fmt::format("truncated bundle ({} bytes)", bytes.size());
    return nullptr;
  }
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i) version |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  if (version != kBundleFormatVersion) {
    *error = fmt::format("bundle format version {} is not supported (this attrib reads version {}); rebuild it "
                         "with 'attribc build'", version, kBundleFormatVersion);
    return nullptr;
  }
  std::string_view payload = bytes.substr(0, bytes.size() - kChecksum);
  if (sha256(payload) != bytes.substr(bytes.size() - kChecksum)) {
    *error = "corrupt bundle: checksum mismatch (the file was truncated or modified)";
    return nullptr;
  }
  ir::Reader r(payload.substr(kHeader));
  auto bundle = std::make_shared<Bundle>();
  std::string_view digest, program;
  std::string name, programVersion, markerTable;
  uint64_t databases = 0;
  if (!r.bytes(&digest) || !r.string(&name) || !r.string(&programVersion) || !r.string(&bundle->attribcVersion) ||
      !r.string(&bundle->hyperscanVersion) || !r.string(&markerTable) || !r.bytes(&program) || !r.count(&databases)) {
    *error = "corrupt bundle: " + r.error();
    return nullptr;
  }
  // The database classifies lines with the compiler's channel markers; another table would
  // classify them differently from this runtime.
  if (markerTable != ir::markerTableDigest()) {
    *error = fmt::format("the bundle was built by attribc {} with other log channel markers than this attrib's; "
                         "rebuild it with this attribc",
                         bundle->attribcVersion);
    return nullptr;
  }
  if (digest.size() != 32) {
    *error = "corrupt bundle: bad rules digest";
    return nullptr;
  }
  bundle->digest = digestString(digest);
  if (!ir::decode(program, &bundle->program, error)) return nullptr;
  bundle->logExpressions = logExpressionTable(bundle->program);
  for (uint64_t i = 0; i < databases; ++i) {
    uint8_t stream;
    uint64_t patterns, markers;
    std::string_view serialized;
    if (!r.u8(&stream) || !r.varint(&patterns) || !r.varint(&markers) || !r.bytes(&serialized)) {
      *error = "corrupt bundle: " + r.error();
      return nullptr;
    }
    // The log database with the channel markers, and the same without them (ir/bundle_format.h).
    const bool withMarkers = markers != 0;
    std::shared_ptr<hs_database>& slot = withMarkers ? bundle->logDatabase : bundle->logDatabaseWithoutMarkers;
    if (stream != static_cast<uint8_t>(ir::StreamKind::Log) || slot) {
      *error = fmt::format("corrupt bundle: unexpected database for stream {}", stream);
      return nullptr;
    }
    if (patterns != bundle->logExpressions.size()) {
      *error = fmt::format("corrupt bundle: the log database has {} patterns, the rules {}", patterns,
                           bundle->logExpressions.size());
      return nullptr;
    }
    if (withMarkers && markers != ir::markerExpressions().size()) {
      *error = fmt::format("corrupt bundle: the log database has {} channel markers, this attrib {}", markers,
                           ir::markerExpressions().size());
      return nullptr;
    }
    hs_database_t* db = nullptr;
    if (hs_deserialize_database(serialized.data(), serialized.size(), &db) != HS_SUCCESS) {
      char* info = nullptr;
      std::string built = "an unreadable database";
      if (hs_serialized_database_info(serialized.data(), serialized.size(), &info) == HS_SUCCESS && info) {
        built = info;
        std::free(info);
      }
      *error = fmt::format("the bundle's pattern database was built for another Hyperscan platform ({}); this "
                           "machine runs Hyperscan {}. Rebuild the bundle here with 'attribc build'",
                           built, hs_version());
      return nullptr;
    }
    slot = std::shared_ptr<hs_database>(db, hs_free_database);
  }
  if (r.remaining() != 0) {
    *error = fmt::format("corrupt bundle: {} unexpected bytes at the end", r.remaining());
    return nullptr;
  }
  if (!bundle->logDatabase || !bundle->logDatabaseWithoutMarkers) {
    *error = bundle->logDatabase ? "corrupt bundle: no log database without channel markers" : "corrupt bundle: no log database";
    return nullptr;
  }
  return bundle;
}

}  // namespace attrib::runtime
