// tessera-rpc-server: the device daemon. See README.md ("Device fleet") for the flags.
#include <grpcpp/grpcpp.h>
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "fleet/server/listen.h"
#include "proto/grant.h"
#include "rpc_server/client/flags.h"
#include "rpc_server/client/fleet_error.h"
#include "rpc_server/client/shutdown_signals.h"
#include "rpc_server/device_service.h"
#include "rpc_server/tracker_link.h"
#include "rpc_server/worker.h"

namespace {

using tessera::fleet::ConfigError;

tessera::tracker::v1::DeviceInfo DescribeDevice(const std::string& target) {
  tessera::tracker::v1::DeviceInfo info;
  utsname name;
  if (uname(&name) == 0) info.set_arch(name.machine);
  info.set_cores(static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  info.set_memory_bytes(static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE));
  info.set_target(target.empty() ? "llvm -mtriple=" + info.arch() + "-linux-gnu" : target);
  return info;
}

void MakeDirectories(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      throw ConfigError("--workdir '" + path + "': cannot create '" + prefix +
                        "': " + std::strerror(errno));
    }
    if (slash == std::string::npos) return;
  }
}

// Session directories left by a server that was killed are removed before serving again.
void RemoveStaleSessions(const std::string& workdir) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(workdir, error)) {
    if (entry.path().filename().string().rfind("session-", 0) == 0) {
      std::filesystem::remove_all(entry.path(), error);
    }
  }
}

constexpr const char* kUsage =
    "usage: tessera-rpc-server --tracker HOST:PORT --key DEVICE_KEY [--listen HOST:PORT "
    "(port 0: OS-chosen)]\n"
    "           [--advertise HOST:PORT] [--token-file FILE] [--workdir DIR] [--target TARGET]\n"
    "           [--call-timeout-ms 10000] [--max-upload-bytes N] [--max-array-bytes N] [--tls-ca "
    "PEM]\n"
    "  Registers this device with the tracker and runs uploaded kernels; see README.md (\"Device "
    "fleet\").\n";

int Run(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--help") != args.end()) {
    std::cout << kUsage;
    return 0;
  }
  tessera::fleet::Flags flags("tessera-rpc-server", args);
  flags.CheckKnown({"tracker", "key", "listen", "advertise", "token-file", "workdir", "target",
                    "call-timeout-ms", "max-upload-bytes", "max-array-bytes", "tls-ca"});
  tessera::fleet::TrackerLinkOptions link;
  link.tracker = flags.Require("tracker");
  link.key = flags.Require("key");
  std::string host;
  int port = 0;
  tessera::fleet::SplitHostPort("tracker", link.tracker, &host, &port);
  std::string listen =
      flags.Get("listen", tessera::fleet::DefaultServerListenAddress(link.tracker));
  tessera::fleet::SplitHostPort("listen", listen, &host, &port);

  tessera::fleet::DeviceOptions device;
  device.server_id = tessera::fleet::RandomHexId(8);
  device.key = link.key;
  device.workdir = flags.Get("workdir", "/tmp/tessera-rpc-" + std::to_string(getpid()));
  device.call_timeout_ms = flags.GetInt("call-timeout-ms", device.call_timeout_ms);
  device.max_upload_bytes = flags.GetInt("max-upload-bytes", device.max_upload_bytes);
  device.max_array_bytes = flags.GetInt("max-array-bytes", device.max_array_bytes);
  if (device.call_timeout_ms <= 0 || device.max_upload_bytes <= 0 || device.max_array_bytes <= 0) {
    throw ConfigError("tessera-rpc-server: timeouts and limits must be positive");
  }
  MakeDirectories(device.workdir);
  RemoveStaleSessions(device.workdir);

  std::string token;
  if (flags.Has("token-file")) token = tessera::fleet::ReadTokenFile(flags.Get("token-file"));
  tessera::fleet::DeviceService service(device);
  if (!token.empty()) service.SetGrantKey(tessera::fleet::GrantKeyFromToken(token));

  grpc::ServerBuilder builder;
  int selected_port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &selected_port);
  tessera::fleet::ClaimPortsExclusively(&builder);
  builder.SetMaxReceiveMessageSize(tessera::fleet::kMaxMessageBytes);
  builder.SetMaxSendMessageSize(tessera::fleet::kMaxMessageBytes);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, (16 << 20) - 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_WRITE_BUFFER_SIZE, 8 << 20);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || selected_port == 0) {
    throw ConfigError("tessera-rpc-server: cannot listen on '" + listen +
                      "': " + tessera::fleet::ListenFailureReason(listen));
  }
  std::cout << "listening on " << host << ":" << selected_port << std::endl;
  std::string advertised = host + ":" + std::to_string(selected_port);
  if (flags.Has("advertise")) {
    advertised = flags.Get("advertise");
  } else if (host == "0.0.0.0" || host == "[::]") {
    char name[256] = {0};
    gethostname(name, sizeof(name) - 1);
    advertised = std::string(name) + ":" + std::to_string(selected_port);
  }

  link.token = token;
  link.tls_ca_file = flags.Get("tls-ca");
  link.server_id = device.server_id;
  link.address = advertised;
  link.info = DescribeDevice(flags.Get("target"));
  tessera::fleet::LinkCallbacks callbacks;
  callbacks.active_session = [&service] { return service.ActiveSession(); };
  callbacks.session_ended = [&service](const std::string& id) { service.EndSession(id); };
  callbacks.registered = [&service, &token](const std::string& key) {
    if (token.empty() && !key.empty()) service.SetGrantKey(key);
  };
  tessera::fleet::TrackerLink tracker_link(link, callbacks);

  tessera::fleet::WaitForShutdownSignal();
  std::cerr << "tessera-rpc-server: shutting down" << std::endl;
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The same binary is the worker that runs uploaded code (see rpc_server/worker.h).
  if (argc == 3 && std::string(argv[1]) == "--worker-fd") {
    sigset_t inherited;
    sigfillset(&inherited);
    pthread_sigmask(SIG_UNBLOCK, &inherited, nullptr);
    return tessera::fleet::RunWorker(std::atoi(argv[2]));
  }
  // Array chunks are megabytes: keep freed buffers in the heap instead of unmapping them, so
  // each chunk does not pay fresh page faults.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  tessera::fleet::BlockShutdownSignals();
  try {
    return Run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << std::endl;
    return 1;
  }
}
