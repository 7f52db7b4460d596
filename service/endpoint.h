// The request-parsing layer every route of the Service runs through. A handler reads its
// request only through it: the body as JSON with the depth limit (json::parse) and its fields
// through typed accessors (json::Field), so a body of the wrong shape is a 400 naming the field
// and the type it must have. A handler answers a client error by throwing Failure (or lets
// json::FieldError fly); runHandler turns every exception into an answer and none escapes it:
//   json::FieldError  -> 400 with its message
//   Failure           -> its status and message
//   anything else     -> 500 "internal error" (no detail: it could carry evidence or secrets),
//                        reported to `onInternal` so that it is logged and counted
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "httpd/message.h"
#include "json/field.h"

namespace attrib::service {

// A client error with its status (404, 413, 429, 507...).
class Failure : public std::runtime_error {
 public:
  // `code`: the body's error.code when the status's own (errorCode) would mislead, e.g. a 503
  // that is not an overload.
  Failure(int status, const std::string& message, std::vector<httpd::Header> headers = {}, std::string code = "")
      : std::runtime_error(message), status(status), headers(std::move(headers)), code(std::move(code)) {}
  int status;
  std::vector<httpd::Header> headers;
  std::string code;  // "": errorCode(status)
};

struct Call {
  const httpd::Request& request;
  const std::vector<std::string>& params;  // the route's {name} segments
};

using Handler = std::function<httpd::Response(const Call&)>;

// {"error": {"code", "message"}} with `status`; the code is errorCode(status), or `code`.
httpd::Response errorResponse(int status, const std::string& message);
httpd::Response errorResponse(int status, const std::string& message, const std::string& code);
// The code of an error status: bad_request, unauthorized, not_found, ... (docs/service.md).
const char* errorCode(int status);
// A 200 (or `status`) with a JSON body.
httpd::Response jsonResponse(const nlohmann::json& body, int status = 200);

// Runs `handler`; see above. `onInternal` gets the exception's type, never its message.
httpd::Response runHandler(const Handler& handler, const Call& call, const std::function<void(const std::string& type)>& onInternal);

// The request body as a JSON object (the depth limit applies): Failure(400) otherwise.
nlohmann::json bodyObject(const httpd::Request& request);

}  // namespace attrib::service
