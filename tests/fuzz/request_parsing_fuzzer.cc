// Fuzzes the Service's request-parsing layer without the network: the first byte picks a
// route's parser (workload.json, each observation format, the V1 observation, NVIDIA Recovery's
// WorkloadAttributionRequest, the bounded JSON
// parse with typed fields), the rest is the body. Invariants beyond "no crash, hang or leak":
// nothing throws out of a parser (an exception here is a 500 in the Service), a refused body
// leaves the observations untouched, and what json::parse accepts nests at most 64 deep.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "evidence/workload_json.h"
#include "json/bounded_parse.h"
#include "json/field.h"
#include "service/recovery_request.h"
#include "wire/observations.h"

namespace {

size_t depthOf(const nlohmann::json& j) {
  // Iterative, as the input may be anything json::parse let through.
  size_t deepest = 0;
  std::vector<std::pair<const nlohmann::json*, size_t>> stack{{&j, 1}};
  while (!stack.empty()) {
    auto [v, d] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    deepest = std::max(deepest, d);
    for (const auto& child : *v) stack.emplace_back(&child, d + 1);
  }
  return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string error;
  try {
    switch (data[0] % 8) {
      case 0: {
        attrib::evidence::Workload w;
        (void)attrib::evidence::parseWorkloadJson(body, &w, &error);
        break;
      }
      case 1: case 2: case 3: case 4: {
        static const char* kFormats[] = {"attrib", "raw_loki_streams", "loki_query_range", "prometheus_matrix"};
        attrib::wire::Observations o;
        if (!attrib::wire::parseObservations(kFormats[data[0] % 8 - 1], body, &o, &error)) {
          if (!o.lines.empty() || !o.metrics.empty() || !o.files.empty() || !o.reports.empty()) std::abort();
        } else {
          (void)attrib::wire::logFiles(o);
        }
        break;
      }
      case 5: {
        attrib::wire::Observations o;
        if (!attrib::wire::parseV1Observation(body, &o, &error) && !o.lines.empty()) std::abort();
        break;
      }
      case 6: {
        // NVIDIA Recovery's WorkloadAttributionRequest: a FieldError or a Failure (a 400), nothing else.
        try {
          (void)attrib::service::parseRecoveryRequest(body);
        } catch (const attrib::json::FieldError&) {
        } catch (const attrib::service::Failure&) {
        }
        break;
      }
      default: {
        nlohmann::json j;
        if (attrib::json::parse(body, &j, &error)) {
          if (depthOf(j) > attrib::json::kMaxDepth) std::abort();
          (void)j.dump();  // bounded recursion: the depth is
          // Typed reads of whatever is there: only FieldError may come out.
          attrib::json::Field root(j);
          try {
            if (root.isObject()) {
              root.forEachMember([](const std::string&, const attrib::json::Field& f) {
                (void)f.stringOr("");
              });
            } else if (root.isArray()) {
              for (size_t i = 0; i < root.size(); ++i) (void)root[i].optionalInteger();
            }
          } catch (const attrib::json::FieldError&) {
          }
        }
        break;
      }
    }
  } catch (...) {
    std::abort();  // a parser let an exception through: the Service would answer 500
  }
  return 0;
}
