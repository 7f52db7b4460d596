// Fuzzes the bundle loader and the IR decoder underneath it. Random bytes almost never pass
// the bundle checksum, so every input is also decoded as a bare IR program, which reaches the
// decoder's own checks. Invariants: no crash, hang or leak; a decoded program re-encodes to
// bytes that decode to the same program.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ir/codec.h"
#include "runtime/bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string error;
  (void)attrib::runtime::loadBundle(bytes, &error);

  attrib::ir::Program program;
  if (attrib::ir::decode(bytes, &program, &error)) {
    std::string again = attrib::ir::encode(program);
    attrib::ir::Program second;
    if (!attrib::ir::decode(again, &second, &error) || attrib::ir::encode(second) != again) std::abort();
  }
  return 0;
}
