#include "tests/testing/postgres_server.h"

#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "common/subprocess.h"

namespace tessera {
namespace testing {
namespace {

constexpr const char* kScript = "tests/testing/postgres.sh";

struct Server {
  std::string root;     // empty when not running
  std::string why_not;  // why it is not
  int databases = 0;
  bool missing = false;  // no server binaries: skip rather than fail

  Server() {
    ProgramResult started = RunProgram({"bash", kScript, "start"});
    if (!started.ok()) {
      missing = started.exit_status == 77;
      why_not = started.exit_status == 77
                    ? "no PostgreSQL server here (install Debian's postgresql)"
                    : "PostgreSQL did not start: " + started.output;
      return;
    }
    root = started.output;
    while (!root.empty() && (root.back() == '\n' || root.back() == ' ')) root.pop_back();
    root = root.substr(root.rfind('\n') + 1);
  }
  ~Server() {
    if (!root.empty()) RunProgram({"bash", kScript, "stop", root});
  }
};

Server& TheServer() {
  static Server server;  // stopped at exit
  return server;
}

std::mutex mutex;

}  // namespace

bool PostgresAvailable(std::string* why_not) {
  std::lock_guard<std::mutex> lock(mutex);
  Server& server = TheServer();
  if (why_not) *why_not = server.why_not;
  if (server.root.empty() && !server.missing) throw std::runtime_error(server.why_not);
  return !server.root.empty();
}

std::string NewPostgresDatabase() {
  std::lock_guard<std::mutex> lock(mutex);
  Server& server = TheServer();
  if (server.root.empty()) throw std::runtime_error("PostgreSQL is not running: " + server.why_not);
  const std::string name = "test_" + std::to_string(++server.databases);
  ProgramResult made = RunProgram({"bash", kScript, "createdb", server.root, name});
  if (!made.ok()) throw std::runtime_error("createdb " + name + ": " + made.output);
  return "postgresql:///" + name + "?host=" + server.root + "&user=tessera";
}

bool StoreLocation(const std::string& store, std::string* location, std::string* why_not) {
  location->clear();
  if (store != "postgresql") return true;
  if (!PostgresAvailable(why_not)) return false;
  *location = NewPostgresDatabase();
  return true;
}

void RestartPostgres() {
  std::lock_guard<std::mutex> lock(mutex);
  Server& server = TheServer();
  ProgramResult restarted = RunProgram({"bash", kScript, "restart", server.root});
  if (!restarted.ok()) throw std::runtime_error("restarting PostgreSQL: " + restarted.output);
}

}  // namespace testing
}  // namespace tessera
