// The call worker's confinement end to end (rpc_server/confine.h): an uploaded kernel tries to
// open a socket and reach a port of this test, read a root-only file outside its session
// directory and write outside it; each attempt fails, and the server goes on answering.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "fleet/client/remote_session.h"
#include "tests/integration/fleet_fixture.h"

namespace tessera {
namespace {

using fleet::RemoteArg;
using fleet::RemoteSession;
using testing::Fleet;

const char* kKernels = "tests/rpc_server/libescape_kernels.so";

enum Result {
  kSocket,
  kConnect,
  kRead,
  kWrite,
  kUid,
  kNoNewPrivs,
  kSeccomp,
  kNetNamespace,
  kWriteInside,
  kResults
};

// A directory in /tmp that every user may write to, so that only the confinement stops the
// worker (the test's own temporary directory may already be closed to an unprivileged user).
class OpenDirectory {
 public:
  OpenDirectory() {
    char pattern[] = "/tmp/tessera-escape-XXXXXX";
    EXPECT_NE(mkdtemp(pattern), nullptr) << std::strerror(errno);
    path_ = pattern;
    EXPECT_EQ(chmod(path_.c_str(), 0777), 0) << std::strerror(errno);
  }
  ~OpenDirectory() {
    unlink((path_ + "/secret").c_str());
    unlink((path_ + "/dropped").c_str());
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A loopback listener on an OS-chosen port, for the kernel to try to reach.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof(address);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), size), 0);
    EXPECT_EQ(listen(fd_, 1), 0);
    EXPECT_EQ(getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size), 0);
    port_ = ntohs(address.sin_port);
  }
  ~Listener() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(WorkerConfinementTest, EachEscapeIsRefusedAndTheServerGoesOn) {
  OpenDirectory outside;
  const std::string secret = outside.path() + "/secret";
  const std::string dropped = outside.path() + "/dropped";
  {
    std::ofstream file(secret);
    file << "root only\n";
  }
  ASSERT_EQ(chmod(secret.c_str(), 0600), 0);
  Listener listener;

  Fleet fleet;
  fleet.AddServer("cpu");
  auto client = fleet.Client();
  fleet::SessionOptions options;
  options.key = "cpu";
  options.queue_timeout_ms = 5000;
  auto session = RemoteSession::Open(client, options);
  session->UploadFile("escape.so", kKernels);
  const int64_t module = session->LoadModule("escape.so");
  std::string paths = secret + '\0' + dropped + '\0';
  const int64_t path_array = session->AllocArray({static_cast<int64_t>(paths.size())}, "uint8");
  session->CopyIn(path_array, paths.data(), paths.size());
  const int64_t result_array = session->AllocArray({kResults}, "int64");

  session->Call(module, "escape",
                {RemoteArg::Array(path_array), RemoteArg::Array(result_array),
                 RemoteArg::Int(listener.port())});
  int64_t results[kResults];
  session->CopyOut(result_array, results, sizeof(results));

  EXPECT_EQ(results[kNoNewPrivs], 1);
  if (geteuid() == 0) {
    passwd* nobody = getpwnam("nobody");
    ASSERT_NE(nobody, nullptr) << "the server runs its worker as nobody; this machine has none";
    EXPECT_EQ(results[kUid], static_cast<int64_t>(nobody->pw_uid)) << "the worker runs as root";
  }
  // No network: the seccomp filter refuses the socket, or (where the kernel refused the filter)
  // the worker's own network namespace has no way to this test's port. One must hold.
  struct stat own_namespace;
  ASSERT_EQ(stat("/proc/self/ns/net", &own_namespace), 0);
  const bool own_network = results[kNetNamespace] != static_cast<int64_t>(own_namespace.st_ino);
  const bool filtered = results[kSeccomp] == 2;
  EXPECT_TRUE(own_network || filtered) << "neither a network namespace nor seccomp is in force";
  if (filtered) {
    EXPECT_EQ(results[kSocket], EPERM) << std::strerror(static_cast<int>(results[kSocket]));
  } else {
    EXPECT_NE(results[kConnect], 0) << "the worker reached port " << listener.port();
  }
  EXPECT_NE(results[kRead], 0) << "the worker read " << secret;
  EXPECT_TRUE(results[kRead] == EACCES || results[kRead] == EPERM)
      << std::strerror(static_cast<int>(results[kRead]));
  EXPECT_NE(results[kWrite], 0) << "the worker wrote " << dropped;
  EXPECT_TRUE(results[kWrite] == EACCES || results[kWrite] == EPERM)
      << std::strerror(static_cast<int>(results[kWrite]));
  struct stat st;
  EXPECT_NE(stat(dropped.c_str(), &st), 0) << dropped << " exists";
  // Its own directory stays writable.
  EXPECT_EQ(results[kWriteInside], 0) << std::strerror(static_cast<int>(results[kWriteInside]));

  // The server goes on: the same session calls again, and a new session is served.
  session->Call(module, "escape",
                {RemoteArg::Array(path_array), RemoteArg::Array(result_array),
                 RemoteArg::Int(listener.port())});
  session->Close();
  auto next = RemoteSession::Open(client, options);
  next->UploadFile("escape.so", kKernels);
  EXPECT_GT(next->LoadModule("escape.so"), 0);
}

}  // namespace
}  // namespace tessera
