#include "tools/attribc/lsp_transport.h"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace attrib::tools {

bool LspTransport::fill() {
  if (pos_ > 0 && pos_ == buffer_.size()) {
    buffer_.clear();
    pos_ = 0;
  }
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(in_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

bool LspTransport::pending(int timeoutMs) {
  if (pos_ < buffer_.size()) return true;
  pollfd p{in_, POLLIN, 0};
  return ::poll(&p, 1, timeoutMs) > 0;
}

bool LspTransport::readLine(std::string* line) {
  for (;;) {
    size_t nl = buffer_.find('\n', pos_);
    if (nl != std::string::npos) {
      *line = buffer_.substr(pos_, nl - pos_);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      pos_ = nl + 1;
      return true;
    }
    if (buffer_.size() - pos_ > 64 * 1024) return false;  // no header line is this long
    if (!fill()) return false;
  }
}

bool LspTransport::readBytes(size_t n, std::string* out) {
  while (buffer_.size() - pos_ < n) {
    if (!fill()) return false;
  }
  *out = buffer_.substr(pos_, n);
  pos_ += n;
  return true;
}

LspTransport::Read LspTransport::read(nlohmann::json* message, std::string* error) {
  std::string line;
  long long length = -1;
  bool any = false;
  for (;;) {
    if (!readLine(&line)) {
      if (!any && pos_ == buffer_.size()) return Read::End;
      *error = "the input ended inside a message header";
      return Read::End;
    }
    if (line.empty()) {
      if (!any) continue;  // stray blank lines between messages
      break;
    }
    any = true;
    static constexpr std::string_view kLength = "content-length:";
    std::string lower;
    for (char c : line.substr(0, kLength.size())) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == kLength) {
      char* end = nullptr;
      length = std::strtoll(line.c_str() + kLength.size(), &end, 10);
      while (end && (*end == ' ' || *end == '\t')) ++end;
      if (!end || *end != 0 || length < 0) length = -2;
    }
  }
  if (length < 0) {
    *error = length == -1 ? "a message without a Content-Length header" : "a Content-Length that is not a number";
    return Read::Malformed;
  }
  if (static_cast<size_t>(length) > kMaxMessageBytes) {
    // Skip it rather than hold it: the limit is what keeps memory bounded.
    std::string skipped;
    for (long long left = length; left > 0;) {
      size_t n = static_cast<size_t>(std::min<long long>(left, 1 << 20));
      if (!readBytes(n, &skipped)) break;
      left -= static_cast<long long>(n);
    }
    *error = fmt::format("a message of {} bytes, over the {} MiB limit", length, kMaxMessageBytes >> 20);
    return Read::Malformed;
  }
  std::string body;
  if (!readBytes(static_cast<size_t>(length), &body)) {
    *error = "the input ended inside a message body";
    return Read::End;
  }
  *message = nlohmann::json::parse(body, nullptr, false);
  if (message->is_discarded() || !message->is_object()) {
    *error = "a message body that is not a JSON object";
    return Read::Malformed;
  }
  return Read::Message;
}

void LspTransport::write(const nlohmann::json& message) {
  std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string frame = fmt::format("Content-Length: {}\r\n\r\n{}", body.size(), body);
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t n = ::write(out_, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client went away; reading will end too
    done += static_cast<size_t>(n);
  }
}

}  // namespace attrib::tools
