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
//   checksum        32 bytes SHA-256 of everything before it
//
// Pattern ids in the log database are positions in the flattened list of (symptom, pattern)
// pairs of log symptoms, in symptom-id order (logPatternTable()), then the channel markers
// (ir::markerExpressions(), in order) from the pattern count on. Format 3 added the symptoms'
// descriptions to the program, format 4 the markers, format 5 the instance fields severity, blame
// and role (ir::Field codes from Source on moved).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace attrib {

inline constexpr std::string_view kBundleMagic = "ATTRBNDL";
inline constexpr uint32_t kBundleFormatVersion = 5;

struct PatternRef {
  int32_t symptom;
  int32_t pattern;
};

// The (symptom, pattern) pairs of every log symptom; the index of a pair is its Hyperscan id.
std::vector<PatternRef> logPatternTable(const ir::Program& program);

}  // namespace attrib
