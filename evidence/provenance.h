// Where a piece of evidence came from, precisely enough to find it again.
#pragma once

#include <cstdint>
#include <string>

namespace attrib::evidence {

struct Provenance {
  std::string connector;  // "files", "loki", ...
  std::string location;   // a file path, or a stream selector
  uint64_t offset = 0;    // byte offset in the (decompressed) file, or index in the stream
  uint64_t line = 0;      // 1-based line number, 0 when not line-based
};

}  // namespace attrib::evidence
