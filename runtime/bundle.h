// Loading a compiled rule bundle (ir/bundle_format.h). Loading checks everything before any
// of it is used: magic, format version, checksum, the IR's structure and every index in it,
// and that the Hyperscan database was built by this Hyperscan for this CPU. A bad bundle is
// an error with one line of explanation, never a crash.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/bundle_format.h"
#include "ir/ir.h"

struct hs_database;

namespace attrib::runtime {

struct Bundle {
  ir::Program program;
  std::string digest;            // "sha256:..." of the rule sources
  std::string attribcVersion;    // of the compiler that built it
  std::string hyperscanVersion;  // of the compiler that built it
  std::vector<std::vector<PatternRef>> logExpressions;  // Hyperscan id -> the (symptom, pattern) pairs
                                                        // using it; ids from logExpressions.size()
                                                        // on are channel markers
  std::shared_ptr<hs_database> logDatabase;  // the symptoms' patterns and the channel markers
  // The same without the channel markers (the same ids), for a chunk whose every line a Program
  // or Prefix marker claims: there the markers would find no line not classified already.
  std::shared_ptr<hs_database> logDatabaseWithoutMarkers;
};

// Whether `bytes` start like a bundle (to tell bundles from rule sources).
bool looksLikeBundle(std::string_view bytes);

// Loads a bundle; on failure returns nullptr and sets `error`.
std::shared_ptr<const Bundle> loadBundle(std::string_view bytes, std::string* error);

}  // namespace attrib::runtime
