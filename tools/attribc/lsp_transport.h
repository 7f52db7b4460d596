// JSON-RPC 2.0 messages framed as the Language Server Protocol frames them: a header block
// ("Content-Length: N", other headers ignored) and a blank line, then N bytes of JSON.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace attrib::tools {

class LspTransport {
 public:
  // Reads from `in` and writes to `out` (file descriptors: stdin and stdout for `attribc lsp`).
  LspTransport(int in, int out) : in_(in), out_(out) {}

  enum class Read { Message, End, Malformed };
  // The next message. End: the input closed between messages. Malformed: a bad header, a
  // body over the limit, or a body that is not JSON; `error` says which (the frame is skipped
  // when its length was known, so the stream stays usable).
  Read read(nlohmann::json* message, std::string* error);
  // Whether a byte is ready to read within `timeoutMs` (buffered input counts).
  bool pending(int timeoutMs);
  void write(const nlohmann::json& message);

  static constexpr size_t kMaxMessageBytes = 64u << 20;

 private:
  bool fill();  // reads what is available into buffer_; false at end of input or on error
  bool readLine(std::string* line);
  bool readBytes(size_t n, std::string* out);

  int in_, out_;
  std::string buffer_;
  size_t pos_ = 0;
};

}  // namespace attrib::tools
