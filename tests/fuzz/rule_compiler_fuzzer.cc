// Fuzzes the whole front end on arbitrary bytes: parse, check, render every diagnostic in
// every format, and format. Beyond "no crash, hang or leak" it asserts two invariants:
// formatting is idempotent, and formatting never changes whether a file parses.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/compilation.h"
#include "compiler/diagnostic_render.h"
#include "compiler/formatter.h"

namespace {

std::optional<std::string> formatText(const std::string& text) {
  attrib::SourceManager sources;
  attrib::DiagnosticSink sink;
  attrib::FileId id = sources.add("fuzz.attr", text);
  return attrib::formatFile(attrib::parseFile(sources, id, sink));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  attrib::DiagnosticSink sink;
  attrib::Compilation compilation(sink);
  compilation.addSource("fuzz.attr", text);
  compilation.check();
  for (const auto& d : sink.diagnostics()) (void)attrib::renderText(d, compilation.sources());
  (void)attrib::renderJsonLines(sink.diagnostics(), compilation.sources());
  (void)attrib::renderSarif(sink.diagnostics(), compilation.sources(), "fuzz");

  if (auto once = formatText(text)) {
    auto twice = formatText(*once);
    if (!twice || *twice != *once) std::abort();  // formatting must keep the file valid and be stable
  }
  return 0;
}
