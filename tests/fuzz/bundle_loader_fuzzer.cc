// Fuzzes the bundle loader and the IR decoder underneath it. Mutated bundles almost never pass
// the checksum, so the program section of a bundle-shaped input (and any other input as a
// whole) is also decoded directly, which reaches the decoder's own checks. Invariants: no
// crash, hang or leak; a decoded program re-encodes to bytes that decode to the same program.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ir/codec.h"
#include "runtime/bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string error;
  (void)attrib::runtime::loadBundle(bytes, &error);

  std::string_view programBytes = bytes;
  if (attrib::runtime::looksLikeBundle(bytes) && size > 12) {
    // Skip the header and the digest, name, versions that precede the program.
    attrib::ir::Reader r(bytes.substr(12));
    std::string_view skipped;
    for (int i = 0; i < 5; ++i) r.bytes(&skipped);
    if (!r.bytes(&programBytes)) programBytes = {};
  }
  attrib::ir::Program program;
  if (attrib::ir::decode(programBytes, &program, &error)) {
    std::string again = attrib::ir::encode(program);
    attrib::ir::Program second;
    if (!attrib::ir::decode(again, &second, &error) || attrib::ir::encode(second) != again) std::abort();
  }
  return 0;
}
