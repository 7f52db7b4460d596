#include "orchestrator/remote_service.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <thread>

#include "connectors/http/http_client.h"
#include "evidence/workload_json.h"
#include "runtime/verdict_json.h"
#include "wire/observations.h"

namespace attrib::orchestrator {
namespace {

using nlohmann::json;

// The room a file slice's record needs besides its data: the metadata, keys and quotes.
size_t sliceOverhead(const evidence::LogFile& f) {
  return wire::attribFileSlice(f, UINT64_MAX, "", std::string(256, 'x')).size() + 16;
}

// A log file read front to back in slices, reporting errors as the runtime's reader words them
// (so the Service's connector report says what an in-process one would).
class FileSlices {
 public:
  explicit FileSlices(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) error_ = "cannot open '" + path + "': " + std::generic_category().message(errno);
  }
  ~FileSlices() {
    if (fd_ >= 0) ::close(fd_);
  }
  // Up to `n` bytes; empty at the end or on error (then error() says so).
  std::string next(size_t n) {
    std::string out;
    if (fd_ < 0 || done_) return out;
    out.resize(n);
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::read(fd_, out.data() + got, n - got);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        error_ = "cannot read '" + path_ + "': " + std::generic_category().message(errno);
        done_ = true;
        break;
      }
      if (r == 0) {
        done_ = true;
        break;
      }
      got += static_cast<size_t>(r);
    }
    out.resize(got);
    return out;
  }
  bool done() const { return done_ || fd_ < 0; }
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool done_ = false;
  std::string error_;
};

// The file's metadata as the Service needs it: its mtime stands in for the file's when a syslog
// date needs a year and the workload has no start.
evidence::LogFile described(const evidence::LogFile& f) {
  evidence::LogFile d = f;
  struct stat st;
  if (!d.modified && ::stat(f.path.c_str(), &st) == 0) {
    d.modified = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  }
  return d;
}

// Every record of a workload's evidence but the files, in the order an in-process diagnosis
// reads them: the scheduler's facts, then the sources' lines, samples and reports.
std::vector<std::string> records(const connectors::WorkloadContext& context, const connectors::SourceEvidence& found) {
  std::vector<std::string> out;
  for (const auto& r : found.reports) out.push_back(wire::attribRecord(r));
  for (const auto& l : context.facts) out.push_back(wire::attribRecord(l));
  for (const auto& l : found.lines) out.push_back(wire::attribRecord(l));
  for (const auto& m : found.metrics) out.push_back(wire::attribRecord(m));
  return out;
}

std::string statusMessage(long status, const std::string& body) {
  json j = json::parse(body, nullptr, false);
  std::string message = j.is_object() && j.contains("error") && j["error"].is_object() && j["error"].contains("message") &&
                                j["error"]["message"].is_string()
                            ? j["error"]["message"].get<std::string>()
                            : "";
  if (message.size() > 300) message = message.substr(0, 300) + "...";
  switch (status) {
    case 401: return "the Service refused the token (401 unauthorized): check service.token_file";
    case 413: return fmt::format("the Service refused the request as too large (413){}", message.empty() ? "" : ": " + message);
    case 404: return fmt::format("the Service answered 404{}", message.empty() ? " (is the url an attrib Service?)" : ": " + message);
    default: return fmt::format("the Service answered {}{}", status, message.empty() ? "" : ": " + message);
  }
}

}  // namespace

struct RemoteService::Reply {
  bool ok = false;  // a 2xx answer
  long status = 0;
  std::string body;
  std::string error;  // one line when !ok
};

bool RemoteService::token(std::string* out, std::string* error) const {
  out->clear();
  if (spec_.tokenFile.empty()) return true;
  std::ifstream in(spec_.tokenFile);
  if (!in) {
    *error = fmt::format("cannot read the token file {}", spec_.tokenFile);
    return false;
  }
  std::stringstream all;
  all << in.rdbuf();
  *out = all.str();
  while (!out->empty() && std::isspace(static_cast<unsigned char>(out->back()))) out->pop_back();
  if (out->empty()) {
    *error = fmt::format("the token file {} is empty", spec_.tokenFile);
    return false;
  }
  return true;
}

RemoteService::Reply RemoteService::call(const std::string& path, const std::string* body, const char* contentType,
                                         const std::string& token) {
  connectors::http::Request request;
  request.url = spec_.url + path;
  request.timeout = spec_.timeout;
  request.maxBody = 1u << 30;
  if (body) {
    request.post = true;
    request.body = *body;
    request.headers.push_back({"Content-Type", contentType});
  }
  if (!token.empty()) request.headers.push_back({"Authorization", "Bearer " + token});
  Reply reply;
  for (int attempt = 1;; ++attempt) {
    ++stats_.requests;
    stats_.bytesSent += body ? body->size() : 0;
    connectors::http::Response r = connectors::http::get(request);
    if (!r.ok) {
      reply.error = fmt::format("no answer from the Service: {}", r.error);
      return reply;
    }
    reply.status = r.status;
    reply.body = std::move(r.body);
    if (r.truncated) {
      reply.error = "the Service's answer is larger than 1 GiB";
      return reply;
    }
    if (r.status >= 200 && r.status < 300) {
      reply.ok = true;
      return reply;
    }
    if ((r.status == 429 || r.status == 503) && attempt < spec_.attempts) {
      // Retry-After in seconds (an HTTP date is not expected from attrib; it counts as 1 s).
      char* end = nullptr;
      long seconds = r.retryAfter.empty() ? 1 : std::strtol(r.retryAfter.c_str(), &end, 10);
      if (r.retryAfter.empty() || *end != 0 || seconds < 0) seconds = 1;
      auto wait = std::min<std::chrono::milliseconds>(std::chrono::seconds(seconds), spec_.maxRetryWait);
      ++stats_.retries;
      std::this_thread::sleep_for(wait);
      continue;
    }
    reply.error = statusMessage(r.status, reply.body);
    if (r.status == 429 || r.status == 503) reply.error += fmt::format(" after {} attempt(s)", attempt);
    return reply;
  }
}

bool RemoteService::ruleset(RemoteRuleset* out, std::string* error) {
  if (known_) {
    *out = ruleset_;
    return true;
  }
  std::string bearer;
  if (!token(&bearer, error)) return false;
  Reply r = call("/v1/rulesets", nullptr, nullptr, bearer);
  if (!r.ok) {
    *error = r.error;
    return false;
  }
  json j = json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("rulesets") || !j["rulesets"].is_array() || j["rulesets"].empty() ||
      !j["rulesets"][0].is_object() || !j["rulesets"][0].contains("digest") || !j["rulesets"][0]["digest"].is_string()) {
    *error = "the Service's /v1/rulesets answer names no rule set digest (is the url an attrib Service?)";
    return false;
  }
  const json& first = j["rulesets"][0];
  ruleset_ = {};
  ruleset_.name = first.value("name", "");
  ruleset_.version = first.value("version", "");
  ruleset_.digest = first["digest"].get<std::string>();
  if (j.contains("limits") && j["limits"].is_object() && j["limits"].contains("max_body_bytes") &&
      j["limits"]["max_body_bytes"].is_number_unsigned()) {
    ruleset_.maxBody = j["limits"]["max_body_bytes"].get<uint64_t>();
  }
  known_ = true;
  *out = ruleset_;
  return true;
}

bool RemoteService::verdictOf(const Reply& reply, const connectors::WorkloadContext& context, runtime::Verdict* out,
                              std::string* error) {
  std::string why;
  std::optional<runtime::Verdict> v = runtime::parseVerdictJson(reply.body, &why);
  if (!v) {
    *error = "the Service's answer is not a verdict: " + why;
    return false;
  }
  if (v->workload.id != context.workload.id) {
    *error = fmt::format("the Service answered for workload '{}'", v->workload.id);
    return false;
  }
  // The verdict's JSON carries only part of the workload; the sinks store all of it.
  v->workload = context.workload;
  *out = std::move(*v);
  return true;
}

bool RemoteService::attribute(const connectors::WorkloadContext& context, const connectors::SourceEvidence& found,
                              runtime::Verdict* out, std::string* error) {
  RemoteRuleset rules;
  if (!ruleset(&rules, error)) return false;
  std::string bearer;
  if (!token(&bearer, error)) return false;
  uint64_t limit = rules.maxBody;
  if (spec_.maxBody > 0 && (limit == 0 || spec_.maxBody < limit)) limit = spec_.maxBody;
  if (limit == 0) limit = 64u << 20;

  std::vector<std::string> recs = records(context, found);
  std::vector<evidence::LogFile> files;
  for (const auto& f : found.files) files.push_back(described(f));
  const std::string workload = evidence::workloadToJson(context.workload);

  // One call when everything fits: estimate first (base64 is 4/3 of the bytes, escaping the
  // records inside a JSON string adds some), then measure.
  uint64_t estimate = workload.size() + 64;
  for (const auto& r : recs) estimate += r.size() + r.size() / 4;
  for (const auto& f : files) {
    struct stat st;
    uint64_t size = ::stat(f.path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    estimate += size / 3 * 4 + 8 + sliceOverhead(f);
  }
  if (estimate <= limit) {
    std::string data;
    for (const auto& f : files) {
      FileSlices in(f.path);
      std::string bytes;
      while (!in.done()) bytes += in.next(1u << 20);
      data += wire::attribFileSlice(f, 0, bytes, in.error());
    }
    for (const auto& r : recs) data += r;
    json body = {{"workload", json::parse(workload)}, {"observations", json::array({{{"format", "attrib"}, {"data", std::move(data)}}})}};
    std::string text = body.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() <= limit) {
      Reply r = call("/v1/attribute", &text, "application/json", bearer);
      if (!r.ok) {
        *error = r.error;
        return false;
      }
      return verdictOf(r, context, out, error);
    }
  }

  // A session: the context, observation bodies within the limit, then the verdict.
  Reply created = call("/v1/sessions", &workload, "application/json", bearer);
  if (!created.ok) {
    *error = created.error;
    return false;
  }
  ++stats_.sessions;
  json id = json::parse(created.body, nullptr, false);
  if (!id.is_object() || !id.contains("id") || !id["id"].is_string()) {
    *error = "the Service's answer to POST /v1/sessions has no session id";
    return false;
  }
  const std::string base = "/v1/sessions/" + id["id"].get<std::string>();
  std::string batch;
  auto flush = [&]() {
    if (batch.empty()) return true;
    Reply r = call(base + "/observations?format=attrib", &batch, "application/x-ndjson", bearer);
    batch.clear();
    if (!r.ok) *error = r.error;
    return r.ok;
  };
  auto add = [&](const std::string& record, const char* what) {
    if (batch.size() + record.size() > limit && !flush()) return false;
    if (record.size() > limit) {
      *error = fmt::format("{} of {} bytes does not fit the Service's body limit of {} bytes", what, record.size(), limit);
      return false;
    }
    batch += record;
    return true;
  };
  for (const auto& f : files) {
    size_t overhead = sliceOverhead(f);
    if (overhead + 4 > limit) {
      *error = fmt::format("the Service's body limit of {} bytes is too small for a slice of {}", limit, f.path);
      return false;
    }
    FileSlices in(f.path);
    uint64_t offset = 0;
    bool first = true;
    while (first || !in.done()) {
      // Room left in this body, else a whole new body, for the base64 of the slice.
      size_t room = limit - std::min<uint64_t>(limit, batch.size() + overhead);
      if (room < 4) {
        if (!flush()) return false;
        room = limit - overhead;
      }
      std::string bytes = in.next(std::max<size_t>(1, room / 4 * 3));
      if (bytes.empty() && !first && in.error().empty()) break;
      std::string record = wire::attribFileSlice(f, offset, bytes, in.done() ? in.error() : "");
      offset += bytes.size();
      first = false;
      if (!add(record, "a file slice")) return false;
    }
  }
  for (const auto& r : recs) {
    if (!add(r, "an evidence record")) return false;
  }
  if (!flush()) return false;
  std::string empty;
  Reply verdict = call(base + "/attribute", &empty, "application/json", bearer);
  if (!verdict.ok) {
    *error = verdict.error;
    return false;
  }
  return verdictOf(verdict, context, out, error);
}

}  // namespace attrib::orchestrator
