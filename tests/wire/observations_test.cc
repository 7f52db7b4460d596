// The attrib observation format as `attrib run` writes it (attribRecord, attribFileSlice) and the
// Service reads it back: provenance, NaN and infinite samples, connector reports, files in
// slices (binary bytes included) that must arrive in order, and the errors for bad records.
#include "wire/observations.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attrib::wire {
namespace {

TEST(Observations, RecordsReadBackToTheSameValues) {
  evidence::LogLine line;
  line.node = "gpu-07";
  line.source = "syslog";
  line.time = 1'795'948'920'123'456'789;
  line.rank = 3;
  line.gpu = "1";
  line.text = "Xid 79 \"quoted\"";
  line.where = {"loki", "{node=\"gpu-07\"}", 17, 0};
  evidence::MetricSample nan, inf;
  nan.name = "DCGM_FI_DEV_GPU_TEMP";
  nan.labels = {{"Hostname", "gpu-07"}, {"gpu", "0"}};
  nan.node = "gpu-07";
  nan.gpu = "0";
  nan.time = 5;
  nan.value = std::nan("");
  nan.where = {"prometheus", "DCGM_FI_DEV_GPU_TEMP{Hostname=\"gpu-07\"}", 0, 0};
  inf = nan;
  inf.value = -INFINITY;
  evidence::ConnectorReport report{"loki", "{job=\"x\"}", evidence::ConnectorReport::Status::Partial, 4, 99, "cut at the limit", 12};
  std::string body = attribRecord(line) + attribRecord(nan) + attribRecord(inf) + attribRecord(report);
  Observations o;
  std::string error;
  ASSERT_TRUE(parseObservations("attrib", body, &o, &error)) << error;
  ASSERT_EQ(o.lines.size(), 1u);
  EXPECT_EQ(o.lines[0].node, "gpu-07");
  EXPECT_EQ(o.lines[0].time, line.time);
  EXPECT_EQ(o.lines[0].rank, 3);
  EXPECT_EQ(o.lines[0].gpu, "1");
  EXPECT_EQ(o.lines[0].text, line.text);
  EXPECT_EQ(o.lines[0].where.connector, "loki");
  EXPECT_EQ(o.lines[0].where.location, line.where.location);
  EXPECT_EQ(o.lines[0].where.offset, 17u);
  ASSERT_EQ(o.metrics.size(), 2u);
  EXPECT_TRUE(std::isnan(o.metrics[0].value));
  EXPECT_EQ(o.metrics[1].value, -INFINITY);
  EXPECT_EQ(o.metrics[0].labels, nan.labels);
  EXPECT_EQ(o.metrics[0].where.location, nan.where.location);
  ASSERT_EQ(o.reports.size(), 1u);
  EXPECT_EQ(o.reports[0].status, evidence::ConnectorReport::Status::Partial);
  EXPECT_EQ(o.reports[0].reason, "cut at the limit");
  EXPECT_EQ(o.reports[0].elapsedMs, 12);
}

TEST(Observations, FilesArriveInSlicesInOrder) {
  evidence::LogFile file;
  file.path = "/logs/gpu-07/syslog.log.gz";
  file.name = "gpu-07/syslog.log.gz";
  file.node = "gpu-07";
  file.source = "syslog";
  file.rank = 2;
  file.modified = 42;
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);  // every byte value, NUL included
  Observations session;
  std::string error;
  // Slices of 1, 2 and 3 bytes exercise base64 padding; the body holds two, a later one the rest.
  Observations first;
  ASSERT_TRUE(parseObservations("attrib", attribFileSlice(file, 0, bytes.substr(0, 1)) + attribFileSlice(file, 1, bytes.substr(1, 2)),
                                &first, &error))
      << error;
  ASSERT_TRUE(mergeObservations(&session, std::move(first), &error)) << error;
  Observations rest;
  ASSERT_TRUE(parseObservations("attrib", attribFileSlice(file, 3, bytes.substr(3), "cannot read '/logs': I/O error"), &rest, &error))
      << error;
  ASSERT_TRUE(mergeObservations(&session, std::move(rest), &error)) << error;
  auto files = logFiles(session);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(*files[0].bytes, bytes);
  EXPECT_EQ(files[0].name, file.name);
  EXPECT_EQ(files[0].rank, 2);
  EXPECT_EQ(files[0].modified, 42);
  EXPECT_EQ(files[0].readError, "cannot read '/logs': I/O error");
  // A slice out of place (a gap, a repeat, or a file's later part first) is refused whole.
  for (uint64_t offset : {uint64_t{300}, uint64_t{0}}) {
    Observations bad;
    ASSERT_TRUE(parseObservations("attrib", attribFileSlice(file, offset, "x"), &bad, &error)) << error;
    EXPECT_FALSE(mergeObservations(&session, std::move(bad), &error));
    EXPECT_EQ(error, "file '/logs/gpu-07/syslog.log.gz': a slice at byte " + std::to_string(offset) + ", but 256 byte(s) of it were received");
  }
  evidence::LogFile other = file;
  other.path = "/other";
  Observations later;
  ASSERT_TRUE(parseObservations("attrib", attribFileSlice(other, 5, "x"), &later, &error));
  EXPECT_FALSE(mergeObservations(&session, std::move(later), &error));
  EXPECT_EQ(error, "file '/other': a slice at byte 5, but 0 byte(s) of it were received");
  EXPECT_EQ(logFiles(session).size(), 1u);
}

TEST(Observations, BadRecordsNameTheirLineAndField) {
  struct Case {
    std::string body, message;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"text": "x", "where": {"line": -1}})", "line 1: 'where' must be"},
           {R"({"text": "x", "where": {"file": "y"}})", "line 1: 'where' must be"},
           {"\n" R"({"metric": "m", "time": 1, "value": "hot"})", "line 2: a sample needs a numeric 'value' (or \"NaN\", \"+Inf\", \"-Inf\") and a 'time'"},
           {R"({"report": {"status": "fine"}})", "line 1: 'report.status' must be ok, empty, partial or error"},
           {R"({"report": {"observations": -2}})", "line 1: 'report.observations' must be a non-negative integer"},
           {R"({"report": 3})", "line 1: 'report' must be an object"},
           {R"({"file": {"name": "x"}, "offset": 0})", "line 1: 'file.path' (a string) is required"},
           {R"({"file": {"path": "/x"}})", "line 1: 'offset' (a non-negative integer) is required"},
           {R"({"file": {"path": "/x"}, "offset": 0, "data": "abc"})", "line 1: 'data' must be base64 text"},
           {R"({"file": {"path": "/x"}, "offset": 0, "data": "a=bc"})", "line 1: 'data' must be base64 text"},
           {R"({"file": {"path": "/x", "rank": "3"}, "offset": 0})", "line 1: 'file.rank' must be an integer"},
           {R"({"file": {"path": "/x", "size": 3}, "offset": 0})", "line 1: 'file.size' is not a field of a file slice"},
       }) {
    Observations o;
    std::string error;
    EXPECT_FALSE(parseObservations("attrib", c.body, &o, &error)) << c.body;
    EXPECT_EQ(error.rfind(c.message, 0), 0u) << "want: " << c.message << "\ngot:  " << error;
    EXPECT_TRUE(o.lines.empty() && o.files.empty() && o.reports.empty()) << "nothing of a bad body is kept";
  }
}

}  // namespace
}  // namespace attrib::wire
