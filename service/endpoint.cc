#include "service/endpoint.h"

#include <typeinfo>

#include "json/bounded_parse.h"

namespace attrib::service {

const char* errorCode(int status) {
  switch (status) {
    case 400: return "bad_request";
    case 401: return "unauthorized";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 408: return "request_timeout";
    case 413: return "payload_too_large";
    case 414: return "uri_too_long";
    case 429: return "too_many_sessions";
    case 431: return "headers_too_large";
    case 503: return "overloaded";
    case 505: return "http_version_not_supported";
    case 507: return "insufficient_storage";
    default: return status >= 500 ? "internal" : "bad_request";
  }
}

httpd::Response errorResponse(int status, const std::string& message) { return errorResponse(status, message, ""); }

httpd::Response errorResponse(int status, const std::string& message, const std::string& code) {
  httpd::Response r;
  r.status = status;
  r.body = nlohmann::json{{"error", {{"code", code.empty() ? std::string(errorCode(status)) : code}, {"message", message}}}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (status == 503) r.headers.push_back({"Retry-After", "1"});
  return r;
}

httpd::Response jsonResponse(const nlohmann::json& body, int status) {
  httpd::Response r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

httpd::Response runHandler(const Handler& handler, const Call& call, const std::function<void(const std::string&)>& onInternal) {
  auto report = [&](const char* type) {
    try {
      if (onInternal) onInternal(type);
    } catch (...) {
      // The report is lost, the answer is not.
    }
  };
  try {
    return handler(call);
  } catch (const json::FieldError& e) {
    return errorResponse(400, e.what());
  } catch (const Failure& e) {
    httpd::Response r = errorResponse(e.status, e.what(), e.code);
    for (const auto& h : e.headers) r.headers.push_back(h);
    return r;
  } catch (const std::exception& e) {
    report(typeid(e).name());
  } catch (...) {
    report("unknown");
  }
  return errorResponse(500, "internal error");
}

nlohmann::json bodyObject(const httpd::Request& request) {
  nlohmann::json body;
  std::string why;
  if (!json::parse(request.body, &body, &why)) {
    throw Failure(400, why.rfind("nests", 0) == 0 ? "the body " + why : "the body is not a JSON object");
  }
  if (!body.is_object()) throw Failure(400, "the body is not a JSON object");
  return body;
}

}  // namespace attrib::service
