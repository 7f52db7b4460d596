// The Service's PostgreSQL session store against a real PostgreSQL 15
// (tests/pg/postgres_server.h): two Service instances (in-process, through Service::call) on
// one database serve one session between them and give the verdict the in-memory store gives;
// the bounds hold across replicas; idle sessions expire; sweepers on every replica at once
// remove each expired session once and keep the used ones.
#include "service/postgres_session_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "pg/connection.h"
#include "service/service.h"
#include "tests/pg/postgres_fixture.h"
#include "tests/runtime/engine_util.h"

namespace attrib::service {
namespace {

using nlohmann::json;

const char* kWorkload = R"({"id": "slurm/77", "scheduler": "slurm", "state": "FAILED", "exit_code": 1,
  "start": "2026-11-29T10:00:00Z", "end": "2026-11-29T11:00:00Z", "nodes": ["gpu-01", "gpu-02", "gpu-07"]})";

std::string xidLine() {
  return R"({"node": "gpu-07", "source": "syslog", "time": "2026-11-29T10:42:00Z", "text": "Nov 29 10:42:00 gpu-07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.", "where": {"connector": "files", "location": "gpu-07/syslog", "offset": 0, "line": 1}})"
         "\n";
}

std::string ncclLines() {
  std::string out;
  for (int rank = 0; rank < 4; ++rank) {
    out += json{{"node", rank < 2 ? "gpu-01" : "gpu-02"},
                {"rank", rank},
                {"time", "2026-11-29T10:52:00Z"},
                {"text", "[rank" + std::to_string(rank) + "]:[E ProcessGroupNCCL.cpp:563] [Rank " + std::to_string(rank) +
                             "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, "
                             "NumelOut=1, Timeout(ms)=600000) ran for 600250 milliseconds before timing out."}}
               .dump() +
           "\n";
  }
  return out;
}

// A dmesg file of gpu-02 in two slices, and a DCGM sample and a report.
std::string fileSlice(uint64_t offset, const std::string& bytes) {
  evidence::LogFile f;
  f.path = "gpu-02/dmesg.log";
  f.name = "dmesg";
  f.node = "gpu-02";
  f.source = "dmesg";
  return wire::attribFileSlice(f, offset, bytes);
}
const std::string kDmesg1 = "[Sun Nov 29 10:41:00 2026] eth0: link up\n[Sun Nov 29 10:41:30 2026] mlx5_core 0000:5e:00.0: ";
const std::string kDmesg2 = "port 1 state changed to ACTIVE\n[Sun Nov 29 10:45:00 2026] systemd[1]: Started Session 5.\n";
std::string extras() {
  return R"({"metric": "DCGM_FI_DEV_GPU_TEMP", "labels": {"gpu": "0"}, "node": "gpu-07", "gpu": "0", "time": "2026-11-29T10:40:00Z", "value": 71})"
         "\n"
         R"({"report": {"connector": "loki", "source": "gpu-07/syslog", "status": "partial", "observations": 9, "bytes": 900, "reason": "rate limited", "elapsed_ms": 4}})"
         "\n";
}

// A verdict without what differs from run to run (timings).
json stable(const std::string& body) {
  json v = json::parse(body);
  v.erase("stats");
  for (auto& r : v["connector_reports"]) r.erase("elapsed_ms");
  return v;
}

class PostgresSessions : public testing::PostgresTest {
 protected:
  PostgresSessions() : PostgresTest("sessions") {}
  std::shared_ptr<PostgresSessionStore> store(SessionLimits limits = {}) {
    std::string error;
    std::shared_ptr<PostgresSessionStore> s = PostgresSessionStore::open(server_->url(db_), limits, &error, 3);
    EXPECT_TRUE(s) << error;
    return s;
  }
  std::unique_ptr<Service> replica(std::shared_ptr<SessionStore> store) {
    ServiceOptions o;
    o.store = std::move(store);
    return std::make_unique<Service>(attrib::testing::stdlibEngine(), o);
  }
  int64_t scalar(const std::string& sql) {
    pg::Error e;
    auto c = pg::Connection::open(server_->url(db_), &e);
    EXPECT_TRUE(c) << e.message;
    pg::Result r = c->exec(sql);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.integer(0, 0);
  }
};

// The same requests through `first` and `second` (which may be one Service); the final verdict.
std::string feed(Service& first, Service& second, std::string* id) {
  httpd::Response created = first.call("POST", "/v1/sessions", kWorkload);
  EXPECT_EQ(created.status, 201) << created.body;
  *id = json::parse(created.body)["id"];
  std::string base = "/v1/sessions/" + *id;
  EXPECT_EQ(second.call("POST", base + "/observations", ncclLines()).status, 200);
  EXPECT_EQ(first.call("POST", base + "/observations", fileSlice(0, kDmesg1)).status, 200);
  EXPECT_EQ(second.call("POST", base + "/observations", xidLine() + fileSlice(kDmesg1.size(), kDmesg2)).status, 200);
  // Out of order: refused, and nothing of that body is kept.
  httpd::Response late = first.call("POST", base + "/observations", xidLine() + fileSlice(3, "xyz"));
  EXPECT_EQ(late.status, 400) << late.body;
  EXPECT_NE(late.body.find("a slice at byte 3"), std::string::npos) << late.body;
  httpd::Response last = first.call("POST", base + "/observations", extras());
  EXPECT_EQ(last.status, 200) << last.body;
  httpd::Response verdict = second.call("POST", base + "/attribute", "");
  EXPECT_EQ(verdict.status, 200) << verdict.body;
  return verdict.body;
}

TEST_F(PostgresSessions, TwoReplicasServeOneSessionAndGiveTheMemoryStoresVerdict) {
  auto a = replica(store());
  auto b = replica(store());
  auto memory = replica(nullptr);
  std::string id, memoryId;
  std::string shared = feed(*a, *b, &id);
  std::string alone = feed(*memory, *memory, &memoryId);
  json v = stable(shared);
  EXPECT_EQ(v["root_cause"]["symptom"], "gpu.xid.xid79") << shared;
  EXPECT_EQ(v, stable(alone));
  // Either replica describes it, with the verdict the other one gave.
  for (Service* s : {a.get(), b.get()}) {
    httpd::Response d = s->call("GET", "/v1/sessions/" + id, "");
    ASSERT_EQ(d.status, 200) << d.body;
    json j = json::parse(d.body);
    httpd::Response m = memory->call("GET", "/v1/sessions/" + memoryId, "");
    json jm = json::parse(m.body);
    j.erase("verdict"), jm.erase("verdict");
    j.erase("id"), jm.erase("id");
    EXPECT_EQ(j, jm) << d.body << "\n" << m.body;
    EXPECT_EQ(stable(json::parse(d.body)["verdict"].dump()), v);
  }
  EXPECT_EQ(a->call("GET", "/v1/sessions/0123456789abcdef0123456789abcdef", "").status, 404);
}

TEST_F(PostgresSessions, ConcurrentAppendsThroughTwoReplicasAreAllKept) {
  auto sa = store(), sb = store();
  std::string id;
  ASSERT_TRUE(sa->create({}, &id));
  std::mutex mu;
  std::set<uint64_t> sequences;
  auto post = [&](SessionStore* s) {
    for (int i = 0; i < 25; ++i) {
      wire::Observations o;
      std::string why;
      ASSERT_TRUE(wire::parseObservations("attrib", ncclLines(), &o, &why)) << why;
      SessionCounts counts;
      uint64_t seq = 0;
      StoreStatus st = s->append(id, std::move(o), std::nullopt, &counts, &seq);
      ASSERT_TRUE(st) << st.message;
      std::lock_guard<std::mutex> l(mu);
      sequences.insert(seq);
    }
  };
  std::thread t1(post, sa.get()), t2(post, sb.get());
  t1.join();
  t2.join();
  EXPECT_EQ(sequences.size(), 50u);
  EXPECT_EQ(*sequences.rbegin(), 50u);
  std::string workloadId, verdict;
  SessionCounts counts;
  ASSERT_TRUE(sb->describe(id, &workloadId, &counts, &verdict));
  EXPECT_EQ(counts.lines, 200u);
  evidence::Workload w;
  wire::Observations all;
  std::shared_ptr<void> hold;
  ASSERT_TRUE(sa->snapshot(id, &w, &all, &hold));
  EXPECT_EQ(all.lines.size(), 200u);
  EXPECT_GT(sa->bytes(), sb->bytes()) << "a replica counts its own copies being attributed";
  hold.reset();
  EXPECT_EQ(sa->bytes(), sb->bytes());
}

TEST_F(PostgresSessions, BoundsHoldAcrossReplicasAndARefusedCallChangesNothing) {
  SessionLimits limits;
  limits.maxSessions = 2;
  limits.maxObservationsPerSession = 6;
  auto sa = store(limits), sb = store(limits);
  std::string one, two, three;
  ASSERT_TRUE(sa->create({}, &one));
  ASSERT_TRUE(sb->create({}, &two));
  StoreStatus full = sa->create({}, &three);
  EXPECT_EQ(full.status, 429) << full.message;
  EXPECT_EQ(sb->create({}, &three).status, 429);
  EXPECT_EQ(sa->sessions(), 2u);
  auto lines = [] {
    wire::Observations o;
    std::string why;
    EXPECT_TRUE(wire::parseObservations("attrib", ncclLines(), &o, &why)) << why;
    return o;
  };
  SessionCounts counts;
  uint64_t seq;
  ASSERT_TRUE(sa->append(one, lines(), std::nullopt, &counts, &seq));
  uint64_t before = sb->bytes();
  StoreStatus many = sb->append(one, lines(), std::nullopt, &counts, &seq);
  EXPECT_EQ(many.status, 413) << many.message;
  EXPECT_EQ(sb->bytes(), before);
  std::string workloadId, verdict;
  ASSERT_TRUE(sa->describe(one, &workloadId, &counts, &verdict));
  EXPECT_EQ(counts.lines, 4u);
  EXPECT_EQ(scalar("SELECT count(*) FROM attrib_session_appends"), 1);
  // The byte budget: a third replica with a small one refuses what does not fit.
  SessionLimits tight;
  tight.maxBytes = sa->bytes() + 600;
  auto sc = store(tight);
  StoreStatus big = sc->append(two, lines(), std::nullopt, &counts, &seq);
  EXPECT_EQ(big.status, 507) << big.message;
  EXPECT_EQ(sa->bytes(), before);
}

TEST_F(PostgresSessions, IdleSessionsExpireOnEveryReplica) {
  SessionLimits limits;
  limits.ttl = std::chrono::seconds(1);
  auto sa = store(limits), sb = store(limits);
  auto a = replica(sa), b = replica(sb);
  httpd::Response created = a->call("POST", "/v1/sessions", kWorkload);
  ASSERT_EQ(created.status, 201);
  std::string id = json::parse(created.body)["id"];
  EXPECT_EQ(b->call("GET", "/v1/sessions/" + id, "").status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_EQ(b->call("GET", "/v1/sessions/" + id, "").status, 404);
  EXPECT_EQ(a->call("POST", "/v1/sessions/" + id + "/observations", ncclLines()).status, 404);
  EXPECT_EQ(sb->sweep(), 1);
  EXPECT_EQ(sa->sessions(), 0u);
  EXPECT_EQ(sa->bytes(), 0u);
  EXPECT_EQ(scalar("SELECT count(*) FROM attrib_session_appends"), 0);
}

TEST_F(PostgresSessions, ConcurrentSweepersRemoveEachExpiredSessionOnceAndKeepUsedOnes) {
  SessionLimits limits;
  limits.ttl = std::chrono::seconds(1);
  std::vector<std::shared_ptr<PostgresSessionStore>> stores;
  for (int i = 0; i < 4; ++i) stores.push_back(store(limits));
  std::string keep;
  ASSERT_TRUE(stores[0]->create({}, &keep));
  for (int i = 0; i < 30; ++i) {
    std::string id;
    wire::Observations o;
    std::string why;
    ASSERT_TRUE(wire::parseObservations("attrib", ncclLines(), &o, &why));
    SessionCounts counts;
    uint64_t seq;
    ASSERT_TRUE(stores[i % 4]->create({}, &id));
    ASSERT_TRUE(stores[(i + 1) % 4]->append(id, std::move(o), std::nullopt, &counts, &seq));
  }
  // The kept session is used all along; the others go idle.
  std::atomic<bool> done{false};
  std::thread user([&] {
    while (!done) {
      std::string w, v;
      SessionCounts c;
      wire::Observations o;
      std::string why;
      wire::parseObservations("attrib", xidLine(), &o, &why);
      uint64_t seq;
      EXPECT_TRUE(stores[3]->append(keep, std::move(o), std::nullopt, &c, &seq));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  std::atomic<int64_t> removed{0};
  std::atomic<int> skipped{0};
  std::vector<std::thread> sweepers;
  for (int i = 0; i < 4; ++i) {
    sweepers.emplace_back([&, i] {
      for (int round = 0; round < 5; ++round) {
        int64_t n = stores[i]->sweep();
        if (n < 0) ++skipped;
        else removed += n;
      }
    });
  }
  for (auto& t : sweepers) t.join();
  done = true;
  user.join();
  EXPECT_EQ(removed.load(), 30);
  EXPECT_EQ(stores[1]->sessions(), 1u);
  std::string w, v;
  SessionCounts c;
  EXPECT_TRUE(stores[2]->describe(keep, &w, &c, &v));
  EXPECT_EQ(scalar("SELECT count(*) FROM attrib_sessions"), 1);
  EXPECT_EQ(scalar("SELECT bytes FROM attrib_session_totals"), scalar("SELECT sum(bytes) FROM attrib_sessions"))
      << "the totals are the sum of what is stored";
}

TEST_F(PostgresSessions, AnUnreachableDatabaseIsAOneLineErrorAndANewerSchemaIsRefused) {
  std::string error;
  int closed = testing::freeLoopbackPort();
  EXPECT_FALSE(PostgresSessionStore::open("postgresql://attrib_admin:" + server_->password() + "@127.0.0.1:" + std::to_string(closed) + "/x",
                                          {}, &error));
  EXPECT_EQ(error.rfind("the PostgreSQL session store: cannot connect to PostgreSQL at 127.0.0.1:", 0), 0u) << error;
  EXPECT_EQ(error.find(server_->password()), std::string::npos) << error;
  ASSERT_TRUE(store());
  scalar("INSERT INTO attrib_session_schema VALUES (7) RETURNING version");
  EXPECT_FALSE(PostgresSessionStore::open(server_->url(db_), {}, &error));
  EXPECT_NE(error.find("schema version 7 is newer than this attrib's 1"), std::string::npos) << error;
}

}  // namespace
}  // namespace attrib::service
