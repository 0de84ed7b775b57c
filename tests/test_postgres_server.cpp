// A throwaway PostgreSQL server for the tests: initdb into a private temporary directory, start
// on a free loopback port (socket in that directory, TCP on 127.0.0.1 only, trust
// authentication for the user "mmtune"), one fresh database per test, stopped and removed when
// the test process ends. initdb and postgres refuse to run as root: as root, the server runs as
// the "postgres" user (present wherever the server package is installed), else as "nobody".
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "store/sql.hpp"
#include "test_support.hpp"

namespace mmtune::test {
namespace {

namespace fs = std::filesystem;

// $MMTUNE_PG_BINDIR when set, else the newest /usr/lib/postgresql/*/bin; "" without initdb and
// pg_ctl there.
std::string find_bindir() {
  if (const char* env = std::getenv("MMTUNE_PG_BINDIR"); env && *env) {
    const fs::path dir(env);
    return fs::exists(dir / "initdb") && fs::exists(dir / "pg_ctl") ? dir.string() : "";
  }
  std::string best;
  int best_version = -1;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = e.path().filename().string();
    const int version = std::atoi(name.c_str());
    if (version > best_version && fs::exists(e.path() / "bin" / "initdb") &&
        fs::exists(e.path() / "bin" / "pg_ctl")) {
      best_version = version;
      best = (e.path() / "bin").string();
    }
  }
  return best;
}

int free_port() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (s < 0 || bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (s >= 0) close(s);
    throw std::runtime_error("cannot find a free loopback port");
  }
  close(s);
  return ntohs(a.sin_port);
}

std::string slurp_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

class PostgresServer {
 public:
  PostgresServer(const std::string& bindir) : bindir_(bindir) {
    std::string templ = "/tmp/mmtune-pg-XXXXXX";
    if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
    root_ = templ;
    start_watchdog();
    if (geteuid() == 0) {
      const passwd* pw = getpwnam("postgres");
      if (!pw) pw = getpwnam("nobody");
      if (!pw) throw std::runtime_error("running as root and no 'postgres' or 'nobody' user");
      uid_ = pw->pw_uid, gid_ = pw->pw_gid;
      if (chown(root_.c_str(), uid_, gid_) != 0) throw std::runtime_error("chown failed");
    }
    if (run({bindir_ + "/initdb", "-D", root_ + "/data", "-U", "mmtune", "-A", "trust", "-E",
             "UTF8", "--locale=C", "--no-sync"}) != 0) {
      throw std::runtime_error("initdb failed: " + slurp_file(root_ + "/command.log"));
    }
    for (int attempt = 0;; ++attempt) {  // another process may take the port in between
      port_ = free_port();
      const std::string options = "-p " + std::to_string(port_) + " -k " + root_ +
                                  " -c listen_addresses=127.0.0.1 -c fsync=off"
                                  " -c synchronous_commit=off -c full_page_writes=off";
      if (run({bindir_ + "/pg_ctl", "-D", root_ + "/data", "-l", root_ + "/server.log", "-w", "-t",
               "120", "-o", options, "start"}) == 0) {
        break;
      }
      if (attempt == 2) {
        throw std::runtime_error("pg_ctl start failed: " + slurp_file(root_ + "/server.log"));
      }
    }
  }

  // Closing the pipe lets the watchdog stop the server and remove the directory.
  ~PostgresServer() {
    close(watchdog_pipe_);
    int status = 0;
    waitpid(watchdog_, &status, 0);
  }

  std::string url(const std::string& database) const {
    return "postgresql://mmtune@127.0.0.1:" + std::to_string(port_) + "/" + database;
  }

  std::string create_database() {
    static std::atomic<int> counter{0};
    const std::string name = "t" + std::to_string(getpid()) + "_" + std::to_string(++counter);
    sql::Database admin(url("postgres"), sql::OpenMode::kReadWrite);
    admin.exec("CREATE DATABASE " + name);  // a generated name: identifiers cannot be bound
    return url(name);
  }

 private:
  // Runs a server binary (as the unprivileged user when root); output to command.log.
  int run(const std::vector<std::string>& args) const {
    std::vector<std::string> copy = args;  // everything allocated before fork
    std::vector<char*> argv;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log_path = root_ + "/command.log";
    const bool drop = geteuid() == 0;
    const pid_t pid = fork();
    if (pid == 0) {
      const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
      if (drop && (setgroups(0, nullptr) != 0 || setgid(gid_) != 0 || setuid(uid_) != 0)) {
        _exit(126);
      }
      execv(argv[0], argv.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  // A shell that waits for the test process to end (or drop the pipe), however it ends, then
  // shuts the server down at once (SIGQUIT: immediate) and removes the directory.
  void start_watchdog() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    watchdog_ = fork();
    if (watchdog_ == 0) {
      dup2(fds[0], STDIN_FILENO);  // dup2 clears close-on-exec on the copy
      setsid();                    // outlives a Ctrl-C to the test's process group
      const char* script =
          "read _; pid=$(head -n1 \"$1/data/postmaster.pid\" 2>/dev/null) && kill -QUIT \"$pid\";"
          " i=0; while [ -n \"$pid\" ] && kill -0 \"$pid\" 2>/dev/null && [ $i -lt 300 ]; do"
          " sleep 0.1; i=$((i+1)); done; rm -rf \"$1\"";
      execl("/bin/sh", "sh", "-c", script, "mmtune-pg-watchdog", root_.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[0]);
    watchdog_pipe_ = fds[1];
  }

  std::string bindir_, root_;
  int port_ = 0;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  pid_t watchdog_ = -1;
  int watchdog_pipe_ = -1;
};

namespace {

std::once_flag g_once;
std::unique_ptr<PostgresServer> g_server;
std::string g_why_not;

PostgresServer* server(std::string& why_not) {
  std::call_once(g_once, [] {
    if (g_why_not = postgres_unavailable(); !g_why_not.empty()) return;
    try {
      g_server = std::make_unique<PostgresServer>(find_bindir());
    } catch (const std::exception& e) {
      g_why_not = std::string("cannot start a PostgreSQL server: ") + e.what();
    }
  });
  why_not = g_why_not;
  return g_server.get();
}

}  // namespace

std::string postgres_unavailable() {
  if (!sql::have_postgres()) return "mmtune was built without PostgreSQL support (libpq not found)";
  if (find_bindir().empty()) {
    return "PostgreSQL server binaries (initdb, pg_ctl) not found in $MMTUNE_PG_BINDIR or under "
           "/usr/lib/postgresql/*/bin: install the postgresql package or set MMTUNE_PG_BINDIR";
  }
  return "";
}

std::string postgres_database() {
  std::string why;
  PostgresServer* s = server(why);
  if (!s) throw std::runtime_error(why);
  return s->create_database();
}

std::string postgres_url(const std::string& database) {
  std::string why;
  PostgresServer* s = server(why);
  if (!s) throw std::runtime_error(why);
  return s->url(database);
}

const char* to_string(Backend b) {
  return b == Backend::kSqlite ? "SQLite" : "PostgreSQL";
}

std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return to_string(info.param);
}

void BackendTest::SetUp() {
  if (GetParam() == Backend::kPostgres) {
    // Only a missing client library or server skips; a server that will not start fails.
    if (const std::string why = postgres_unavailable(); !why.empty()) GTEST_SKIP() << why;
    std::string why;
    if (!server(why)) FAIL() << why;
  }
}

std::string BackendTest::fresh_db(const std::string& name) {
  return GetParam() == Backend::kSqlite ? dir / name : postgres_database();
}

}  // namespace mmtune::test
