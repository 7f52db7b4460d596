// Verdicts to a stream the caller owns (stdout for `attrib diagnose`): the JSON document, one
// JSON line per verdict, or the short text summary.
#pragma once

#include <cstdio>

#include "sinks/sink.h"

namespace attrib::sinks {

enum class StreamFormat { Json, JsonLines, Text };

// "json", "jsonl" or "text"; false for anything else.
bool streamFormatFromName(const std::string& name, StreamFormat* out);

class StreamSink : public Sink {
 public:
  StreamSink(std::FILE* out, StreamFormat format, runtime::RenderOptions render = {})
      : out_(out), format_(format), render_(render) {}
  bool write(const runtime::Verdict& verdict, std::string* error) override;

 private:
  std::FILE* out_;
  StreamFormat format_;
  runtime::RenderOptions render_;
};

}  // namespace attrib::sinks
