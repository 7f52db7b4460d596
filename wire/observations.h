// Observations the Service accepts (POST /v1/sessions/{id}/observations?format=F), turned into
// the runtime's evidence. Formats:
//   attrib            JSON lines: {"node","source","time","rank","gpu","text","where"} for a log
//                     line, {"metric","labels","node","gpu","time","value","where"} for a sample
//                     (value: a number, "NaN", "+Inf" or "-Inf"), {"file": {"path","name","node",
//                     "source","rank","modified"},"offset","data","error"} for a slice of a log
//                     file (data: base64 of its bytes, gzip included), {"report": {...}} for a
//                     connector report of the sender's; "where" ({"connector","location",
//                     "offset","line"}) is the evidence's provenance, kept in the verdict
//   raw_loki_streams  {"streams": [{"stream": {labels}, "values": [["<ns>", "line"], ...]}]}
//   loki_query_range  a Loki query_range answer (data.result streams)
//   prometheus_matrix a Prometheus query_range answer (data.result matrix)
// Times: RFC 3339 strings or integer nanoseconds. A malformed body is an error that names the
// offending field ("line 3: 'time' must be RFC 3339 or integer nanoseconds"); nothing of it is kept.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/log_input.h"
#include "evidence/workload_evidence.h"

namespace attrib::wire {

// A log file delivered in slices ({"file": ...} records of the attrib format), scanned like the
// file itself: the same offsets, line numbers, gzip handling and connector report.
struct FileObservation {
  evidence::LogFile file;  // path, name, node, source, rank, modified (bytes unset)
  std::vector<std::shared_ptr<const std::string>> pieces;  // the slices, in order (shared with snapshots)
  uint64_t offset = 0;   // where the first piece starts (0 in a session)
  uint64_t size = 0;     // bytes in the pieces
  std::string error;     // a read error the sender met after these bytes
};

struct Observations {
  std::vector<evidence::LogLine> lines;
  std::vector<evidence::MetricSample> metrics;
  std::vector<FileObservation> files;             // in order of their first slice
  std::vector<evidence::ConnectorReport> reports;  // the sender's connector reports, in order
  uint64_t fileBytes() const;
};

// Parses `body` in `format` and appends it to `out`; on error nothing is appended and `error`
// names the field. JSON is read with json::parse's depth limit and every field through typed
// accessors: no body, however hostile, throws or recurses without bound.
bool parseObservations(const std::string& format, const std::string& body, Observations* out, std::string* error);

// The V1 API's observation request, {"context": {source, format, ...}, "body": "<JSON text>"}:
// format raw_loki_streams (the default; stream values may carry V1's payload {body, severity,
// attributes: {hostname, appname}}), prometheus_metrics (a Prometheus matrix) or any format of
// parseObservations. Appends to `out` like parseObservations.
bool parseV1Observation(const std::string& request, Observations* out, std::string* error);

// Appends `from` to `into`: a file slice must continue its file (its offset = the bytes of it
// received so far); with `fromStart`, a file new to `into` must begin at byte 0 (else `into`
// is a batch that may hold a later part of a file). On error nothing is appended.
bool mergeObservations(Observations* into, Observations from, std::string* error, bool fromStart = true);

// The files, whole, for the runtime's scanner.
std::vector<evidence::LogFile> logFiles(const Observations& observations);

// The attrib format, written (one JSON line each, with its '\n'); parseObservations reads it
// back to the same values, provenance included. The orchestrator sends evidence this way.
std::string attribRecord(const evidence::LogLine& line);
std::string attribRecord(const evidence::MetricSample& sample);
std::string attribRecord(const evidence::ConnectorReport& report);
// A slice of `file` starting at byte `offset`; `error`: a read error met after it.
std::string attribFileSlice(const evidence::LogFile& file, uint64_t offset, std::string_view bytes, const std::string& error = "");

}  // namespace attrib::wire
