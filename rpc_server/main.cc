// tessera-rpc-server: the device daemon. See docs/fleet.md.
#include <grpcpp/grpcpp.h>
#include <malloc.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "common/command_line.h"
#include "common/error.h"
#include "common/file.h"
#include "common/shutdown_signals.h"
#include "deploy/artifact.h"
#include "fleet/client/channel.h"
#include "fleet/secrets.h"
#include "fleet/server/listen.h"
#include "proto/grant.h"
#include "rpc_server/device_service.h"
#include "rpc_server/dial_out.h"
#include "rpc_server/sandbox.h"
#include "rpc_server/tracker_link.h"
#include "rpc_server/worker.h"
#include "runtime/cuda_devices.h"

namespace {

using tessera::ConfigError;

tessera::tracker::v1::DeviceInfo DescribeDevice(const std::string& target) {
  tessera::tracker::v1::DeviceInfo info;
  utsname name;
  if (uname(&name) == 0) info.set_arch(name.machine);
  info.set_cores(static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  info.set_memory_bytes(static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE));
  info.set_target(target.empty() ? "llvm -mtriple=" + info.arch() + "-linux-gnu" : target);
  // Reported so that the tuner refuses a cuda target on a key without a fitting GPU before any
  // upload; no driver means zero GPUs, silently, as on every CPU-only board.
  for (const tessera::runtime::CUDADeviceProperties& gpu : tessera::runtime::ListCUDADevices()) {
    tessera::tracker::v1::GpuInfo* out = info.add_gpus();
    out->set_name(gpu.name);
    out->set_arch(gpu.arch());
    out->set_memory_bytes(gpu.memory_bytes);
  }
  return info;
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

// A server whose call worker cannot start would register, be granted sessions and fail every
// call: it refuses to start instead, saying why. The probe's confinement report (what is and is
// not in force) goes to the log once.
void ProbeWorker(const tessera::fleet::DeviceOptions& device) {
  try {
    tessera::fleet::Sandbox directory(device.workdir + "/session-probe-" + std::to_string(getpid()),
                                      device.worker_uid, device.worker_gid);
    tessera::fleet::WorkerConfinement confinement;
    confinement.directory = directory.root();
    confinement.uid = device.worker_uid;
    confinement.gid = device.worker_gid;
    tessera::fleet::WorkerProcess probe(device.worker_executable, confinement);
    tessera::fleet::LogConfinement(probe.confinement());
  } catch (const tessera::fleet::SandboxError& e) {
    throw ConfigError(std::string("tessera-rpc-server: not registering: ") + e.what());
  } catch (const tessera::fleet::WorkerStartFailure& e) {
    throw ConfigError(
        std::string("tessera-rpc-server: not registering: no call could be served, ") + e.what());
  }
}

struct ServerFlags {
  std::string tracker, key, listen, advertise, token_file, workdir, target;
  std::string tls_ca, worker_user;
  bool dial_out = false;
  tessera::fleet::DeviceOptions device;
};

// Uploaded code runs as an unprivileged user when the server runs as root.
void ResolveWorkerUser(ServerFlags& flags, tessera::fleet::DeviceOptions* device) {
  if (flags.worker_user.empty() && geteuid() == 0) flags.worker_user = "nobody";
  if (!flags.worker_user.empty()) {
    std::string why;
    if (!tessera::fleet::LookUpUser(flags.worker_user, &device->worker_uid, &device->worker_gid,
                                    &why)) {
      throw ConfigError("tessera-rpc-server: --worker-user: " + why);
    }
    if (geteuid() != 0 && device->worker_uid != geteuid()) {
      throw ConfigError("tessera-rpc-server: --worker-user " + flags.worker_user +
                        ": only a server started as root can run its worker as another user");
    }
  }
}

// No port at all: sessions come through the tracker's relay into an in-process channel.
std::unique_ptr<grpc::Server> StartRelayed(grpc::ServerBuilder& builder, const ServerFlags& flags,
                                           const tessera::fleet::DeviceOptions& device,
                                           const std::string& token, std::string* advertised,
                                           std::unique_ptr<tessera::fleet::DialOut>* dial_out) {
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) throw tessera::InternalError("tessera-rpc-server: cannot start the device service");
  *advertised = "relay:" + device.server_id;
  std::cout << "relayed as " << *advertised << std::endl;
  tessera::fleet::DialOutOptions relay;
  relay.tracker = flags.tracker;
  relay.token = token;
  relay.tls_ca_file = flags.tls_ca;
  relay.server_id = device.server_id;
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(tessera::fleet::kMaxMessageBytes);
  args.SetMaxSendMessageSize(tessera::fleet::kMaxMessageBytes);
  *dial_out = std::make_unique<tessera::fleet::DialOut>(relay, server->InProcessChannel(args));
  // Registered before attached, the server could be granted while clients cannot reach it.
  if (!(*dial_out)->WaitAttached(10000)) {
    std::cerr << "warning: tessera-rpc-server: not attached to the relay of " << flags.tracker
              << " yet; registering anyway (it keeps trying)" << std::endl;
  }
  return server;
}

std::unique_ptr<grpc::Server> StartListening(grpc::ServerBuilder& builder, ServerFlags& flags,
                                             std::string* advertised) {
  std::string host;
  int port = 0;
  if (flags.listen.empty())
    flags.listen = tessera::fleet::DefaultServerListenAddress(flags.tracker);
  tessera::SplitHostPort("listen", flags.listen, &host, &port);
  int selected_port = 0;
  builder.AddListeningPort(flags.listen, grpc::InsecureServerCredentials(), &selected_port);
  tessera::fleet::ClaimPortsExclusively(&builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || selected_port == 0) {
    throw ConfigError("tessera-rpc-server: cannot listen on '" + flags.listen +
                      "': " + tessera::fleet::ListenFailureReason(flags.listen));
  }
  std::cout << "listening on " << host << ":" << selected_port << std::endl;
  *advertised = host + ":" + std::to_string(selected_port);
  if (!flags.advertise.empty()) {
    *advertised = flags.advertise;
  } else if (host == "0.0.0.0" || host == "[::]") {
    char name[256] = {0};
    gethostname(name, sizeof(name) - 1);
    *advertised = std::string(name) + ":" + std::to_string(selected_port);
  }
  return server;
}

int Serve(ServerFlags& flags) {
  tessera::fleet::TrackerLinkOptions link;
  link.tracker = flags.tracker;
  link.key = flags.key;
  tessera::fleet::DeviceOptions device = flags.device;
  device.server_id = tessera::fleet::RandomHexId(8);
  device.key = link.key;
  device.workdir =
      flags.workdir.empty() ? "/tmp/tessera-rpc-" + std::to_string(getpid()) : flags.workdir;
  tessera::MakeDirectories(device.workdir, "--workdir");
  RemoveStaleSessions(device.workdir);

  ResolveWorkerUser(flags, &device);
  ProbeWorker(device);
  std::string token;
  if (!flags.token_file.empty()) token = tessera::fleet::ReadTokenFile(flags.token_file);
  tessera::fleet::DeviceService service(device);
  if (!token.empty()) service.SetGrantKey(tessera::fleet::GrantKeyFromToken(token));

  grpc::ServerBuilder builder;
  tessera::fleet::ApplyFleetServerArguments(&builder);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server;
  std::string advertised;
  std::unique_ptr<tessera::fleet::DialOut> dial_out;
  if (flags.dial_out) {
    server = StartRelayed(builder, flags, device, token, &advertised, &dial_out);
  } else {
    server = StartListening(builder, flags, &advertised);
  }

  link.token = token;
  link.tls_ca_file = flags.tls_ca;
  link.server_id = device.server_id;
  link.address = advertised;
  link.info = DescribeDevice(flags.target);
  tessera::fleet::LinkCallbacks callbacks;
  callbacks.active_session = [&service] { return service.ActiveSession(); };
  callbacks.session_ended = [&service](const std::string& id) { service.EndSession(id); };
  callbacks.registered = [&service, &token](const std::string& key) {
    if (token.empty() && !key.empty()) service.SetGrantKey(key);
  };
  tessera::fleet::TrackerLink tracker_link(link, callbacks);

  tessera::WaitForShutdownSignal();
  std::cerr << "tessera-rpc-server: shutting down" << std::endl;
  dial_out.reset();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The same binary is the worker that runs uploaded code (see rpc_server/worker.h).
  if (argc >= 3 && std::string(argv[1]) == "--worker-fd") {
    sigset_t inherited;
    sigfillset(&inherited);
    pthread_sigmask(SIG_UNBLOCK, &inherited, nullptr);
    return tessera::fleet::RunWorkerCommandLine(argc, argv);
  }
  // Array chunks are megabytes: keep freed buffers in the heap instead of unmapping them, so
  // each chunk does not pay fresh page faults.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  tessera::BlockShutdownSignals();
  ServerFlags flags;
  CLI::App app{
      "Registers this device with the tracker and runs uploaded kernels; see docs/fleet.md.",
      "tessera-rpc-server"};
  app.option_defaults()->always_capture_default();
  tessera::AddVersionFlag(
      app, "runs artifact formats 1 to " + std::to_string(tessera::deploy::kArtifactFormatVersion));
  app.add_option("--tracker", flags.tracker, "the tracker's address")
      ->required()
      ->check(tessera::HostPort());
  app.add_option("--key", flags.key, "device key to register under")
      ->required()
      ->type_name("DEVICE_KEY");
  auto* dial_out = app.add_flag(
      "--dial-out", flags.dial_out,
      "behind NAT or a firewall: listen on no port; sessions come through the tracker, over one "
      "connection this server keeps open to it");
  app.add_option("--listen", flags.listen,
                 "address to serve sessions on (default: an OS-chosen port, on 127.0.0.1 when the "
                 "tracker is on loopback)")
      ->check(tessera::HostPort())
      ->excludes(dial_out);
  app.add_option("--advertise", flags.advertise,
                 "address clients reach this server at (default: the listening one)")
      ->check(tessera::HostPort())
      ->excludes(dial_out);
  app.add_option("--token-file", flags.token_file, "shared secret of the fleet");
  app.add_option("--workdir", flags.workdir,
                 "session sandboxes go here (default /tmp/tessera-rpc-PID)")
      ->type_name("DIR");
  app.add_option("--target", flags.target,
                 "target string reported to clients (default llvm -mtriple=ARCH-linux-gnu)");
  app.add_option("--call-timeout-ms", flags.device.call_timeout_ms,
                 "a call running longer is stopped")
      ->check(tessera::Positive());
  app.add_option("--max-upload-bytes", flags.device.max_upload_bytes, "largest upload")
      ->check(tessera::Positive());
  app.add_option("--max-array-bytes", flags.device.max_array_bytes, "largest array")
      ->check(tessera::Positive());
  app.add_option("--tls-ca", flags.tls_ca, "PEM root certificate of a TLS tracker");
  // Under user-mode emulation (qemu-aarch64 on an x86 host) re-executing this binary needs the
  // emulator in front of it: a script that starts it through the emulator.
  app.add_option("--worker-executable", flags.device.worker_executable,
                 "program started with --worker-fd N to run uploaded code (default: this binary)")
      ->check(CLI::ExistingFile);
  app.add_option("--worker-user", flags.worker_user,
                 "user the call worker runs uploaded code as (default: nobody when the server "
                 "runs as root, else the server's own)")
      ->type_name("USER");
  tessera::AddLogLevelOption(app);
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr,
                                 [&flags] { return Serve(flags); });
}
