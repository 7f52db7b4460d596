// A real PostgreSQL 15 (Debian's postgresql-15) for tests: initdb into a fresh temp directory,
// `postgres` on its own free port on 127.0.0.1 (the unix socket inside the temp directory, no
// other address), stopped and removed at the end. PostgreSQL refuses to run as root, so under
// root (CI) initdb and postgres run as the `postgres` user (dropped privileges in the child,
// like setpriv). fsync is off: the tests kill clients, never the server, and want speed.
//
// The superuser is `attrib_admin` with a random password, asked for on TCP (scram-sha-256), so
// tests see that passwords never leak into messages. One server per test binary run (ctest runs
// each suite's binary once), each test in its own database (createDatabase()).
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <libpq-fe.h>

#include "tests/connectors/loopback.h"

namespace attrib::testing {

class PostgresServer {
 public:
  static constexpr const char* kBin = "/usr/lib/postgresql/15/bin";

  // Starts the server; "" when it runs, else why not (missing() says whether it is not
  // installed). `durable`: PostgreSQL's own fsync settings (benchmarks), else fsync off.
  std::string start(bool durable = false) {
    if (::access((std::string(kBin) + "/postgres").c_str(), X_OK) != 0) {
      missing_ = true;
      return "PostgreSQL 15 is not installed (scripts/install-deps.sh installs postgresql-15)";
    }
    char tmpl[] = "/tmp/attrib-pg-XXXXXX";
    if (!::mkdtemp(tmpl)) return "cannot make a temp directory";
    dir_ = tmpl;
    uid_t uid = ::getuid();
    gid_t gid = ::getgid();
    if (::geteuid() == 0) {
      passwd* pw = ::getpwnam("postgres");
      if (!pw) return "running as root and there is no 'postgres' user to run PostgreSQL as";
      uid = pw->pw_uid;
      gid = pw->pw_gid;
      runAs_ = true;
      runUid_ = uid;
      runGid_ = gid;
    }
    std::random_device rd;
    password_ = "pw-" + std::to_string(rd()) + "-" + std::to_string(rd()) + "-secret";
    std::ofstream(dir_ / "pwfile") << password_ << "\n";
    std::filesystem::create_directories(dir_ / "socket");
    if (::chown(dir_.c_str(), uid, gid) != 0 || ::chown((dir_ / "pwfile").c_str(), uid, gid) != 0 ||
        ::chown((dir_ / "socket").c_str(), uid, gid) != 0) {
      return "cannot give the temp directory to the postgres user";
    }
    int rc = run({std::string(kBin) + "/initdb", "-D", (dir_ / "data").string(), "-U", "attrib_admin", "--pwfile",
                  (dir_ / "pwfile").string(), "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8",
                  "--locale=C"},
                 (dir_ / "initdb.log").string(), /*wait=*/true);
    if (rc != 0) return "initdb failed; see " + (dir_ / "initdb.log").string() + ": " + tail("initdb.log");
    port_ = freeLoopbackPort();
    std::vector<std::string> argv{std::string(kBin) + "/postgres", "-D", (dir_ / "data").string(), "-k", (dir_ / "socket").string(),
                                  "-p", std::to_string(port_), "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=60",
                                  "-c", "log_min_messages=warning"};
    if (!durable) argv.insert(argv.end(), {"-c", "fsync=off", "-c", "full_page_writes=off"});
    pid_ = run(argv, (dir_ / "postgres.log").string(), /*wait=*/false);
    if (pid_ <= 0) return "cannot start postgres";
    // 60 s: the bound only matters on failure, and a loaded two-core machine has been slow.
    for (int i = 0; i < 1200; ++i) {
      if (PQping(url("postgres").c_str()) == PQPING_OK) return "";
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return "postgres exited at start: " + tail("postgres.log");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "postgres did not accept connections within 60 s: " + tail("postgres.log");
  }

  ~PostgresServer() { stop(); }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGINT);  // fast shutdown: clients are cut, nothing is waited for
      for (int i = 0; i < 200; ++i) {
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
          pid_ = -1;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
      }
    }
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }

  bool missing() const { return missing_; }
  int port() const { return port_; }
  const std::string& password() const { return password_; }
  const std::filesystem::path& dir() const { return dir_; }

  // A postgresql:// URL for `database` over TCP with the password.
  std::string url(const std::string& database) const {
    return "postgresql://attrib_admin:" + password_ + "@127.0.0.1:" + std::to_string(port_) + "/" + database;
  }
  // The same as keyword=value.
  std::string conninfo(const std::string& database) const {
    return "host=127.0.0.1 port=" + std::to_string(port_) + " user=attrib_admin password=" + password_ + " dbname=" + database;
  }

  // A fresh, empty database; "" on success, else why. `name` is lower-cased and cut to
  // PostgreSQL's 63 bytes.
  std::string createDatabase(std::string& name) {
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (name.size() > 63) name.resize(63);
    PGconn* c = PQconnectdb(conninfo("postgres").c_str());
    std::string why;
    if (PQstatus(c) != CONNECTION_OK) {
      why = PQerrorMessage(c);
    } else {
      PQclear(PQexec(c, "SET client_min_messages = warning"));
      std::string drop = "DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)";
      PQclear(PQexec(c, drop.c_str()));
      std::string create = "CREATE DATABASE \"" + name + "\"";  // test-chosen names only
      PGresult* r = PQexec(c, create.c_str());
      if (PQresultStatus(r) != PGRES_COMMAND_OK) why = PQresultErrorMessage(r);
      PQclear(r);
    }
    PQfinish(c);
    return why;
  }

 private:
  // argv as the postgres user when we are root; output to `log`. wait: the exit code; else the pid.
  int run(const std::vector<std::string>& argv, const std::string& log, bool wait) {
    pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::setsid();
      if (runAs_) {
        if (fd >= 0 && ::fchown(fd, runUid_, runGid_) != 0) ::_exit(126);
        if (::setgroups(0, nullptr) != 0 || ::setgid(runGid_) != 0 || ::setuid(runUid_) != 0) ::_exit(126);
      }
      // Dies with the test (set after the uid change, which clears it).
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::chdir(dir_.c_str()) != 0) ::_exit(126);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    if (!wait) return pid;
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  }

  std::string tail(const std::string& file) const {
    std::ifstream in(dir_ / file);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return all.size() > 600 ? all.substr(all.size() - 600) : all;
  }

  std::filesystem::path dir_;
  std::string password_;
  int port_ = 0;
  pid_t pid_ = -1;
  bool missing_ = false;
  bool runAs_ = false;
  uid_t runUid_ = 0;
  gid_t runGid_ = 0;
};

// The server shared by a test binary's tests: started on first use, stopped at exit.
inline PostgresServer& sharedPostgres(std::string* failure) {
  static PostgresServer server;
  static std::string why = server.start();
  static bool registered = [] {
    std::atexit([] { server.stop(); });
    return true;
  }();
  (void)registered;
  *failure = why;
  return server;
}

}  // namespace attrib::testing
