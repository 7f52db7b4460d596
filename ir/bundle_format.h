// The layout of a compiled rule bundle (.attrb), shared by the writer (compiler/bundle_writer.h)
// and the loader (runtime/bundle.h). A bundle is a cache of compiled rules, not an exchange
// format: it is tied to one Hyperscan version and CPU feature set.
//
//   magic           8 bytes  "ATTRBNDL"
//   format version  u32, little endian (kBundleFormatVersion; bumped on every change)
//   body, encoded with ir::Writer:
//     rules digest       bytes  SHA-256 of the rule sources' content
//     ruleset name       bytes
//     ruleset version    bytes
//     attribc version    bytes
//     hyperscan version  bytes  hs_version() of the compiler
//     marker table       bytes  ir::markerTableDigest() of the compiler (ir/log_channels.h)
//     program            bytes  ir::encode(Program)
//     databases          count, then per database:
//                          stream kind u8, pattern count varint, marker count varint,
//                          hs_serialize_database bytes
//                        two log databases: with the channel markers (marker count
//                        ir::markerExpressions().size()) and without them (marker count 0)
//   checksum        32 bytes SHA-256 of everything before it
//
// Pattern ids in the log database are positions in logExpressionTable() (the distinct
// (regex, flags) of the log symptoms' patterns, each with the (symptom, pattern) pairs that use
// it), then the channel markers (ir::markerExpressions(), in order) from the pattern count on,
// then the telling words (ir::tellingWords(), in order). The database without markers has the
// same ids, the markers' left unused: the scanner uses it for a chunk whose every line has a
// Program or Prefix marker (evidence::prefixChannel), whose literal markers would find nothing new.
// Format 3 added the symptoms' descriptions to the program, format 4 the markers, format 5 the
// instance fields severity, blame and role (ir::Field codes from Source on moved) and one
// expression per distinct pattern, format 7 the log database without markers.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace attrib {

inline constexpr std::string_view kBundleMagic = "ATTRBNDL";
inline constexpr uint32_t kBundleFormatVersion = 7;

struct PatternRef {
  int32_t symptom;
  int32_t pattern;
};

// The log database's expressions: every distinct (regex, flags) of the log symptoms' patterns, in
// the order of first use (symptom id, then pattern), each with the (symptom, pattern) pairs that
// use it, in that order. The index of an expression is its Hyperscan id. Symptoms that share a
// pattern (the catalogue's Xids: one line form, told apart by the code) cost one expression in
// Hyperscan and one match by PCRE2 per line, however many they are.
std::vector<std::vector<PatternRef>> logExpressionTable(const ir::Program& program);

}  // namespace attrib
