#include "sinks/stream_sink.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

namespace attrib::sinks {

bool streamFormatFromName(const std::string& name, StreamFormat* out) {
  if (name == "json") *out = StreamFormat::Json;
  else if (name == "jsonl") *out = StreamFormat::JsonLines;
  else if (name == "text") *out = StreamFormat::Text;
  else return false;
  return true;
}

bool StreamSink::write(const runtime::Verdict& verdict, std::string* error) {
  std::string text;
  switch (format_) {
    case StreamFormat::Json: text = runtime::toJson(verdict, render_); break;
    case StreamFormat::JsonLines:
      text = nlohmann::ordered_json::parse(runtime::toJson(verdict, render_)).dump(-1, ' ', false,
                                                                                  nlohmann::json::error_handler_t::replace) +
             "\n";
      break;
    case StreamFormat::Text: text = runtime::toText(verdict); break;
  }
  if (std::fwrite(text.data(), 1, text.size(), out_) != text.size() || std::fflush(out_) != 0) {
    *error = std::string("cannot write the verdict: ") + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace attrib::sinks
