#include "tuner/measure/device_arch.h"

#include <sys/utsname.h>

#include <cctype>

#include "common/error.h"
#include "compiler/driver/target.h"

namespace tessera {
namespace tuner {

std::string CanonicalArch(const std::string& arch) {
  if (arch == "arm64") return "aarch64";
  if (arch == "amd64") return "x86_64";
  // 32-bit Arm by any name: uname's armv7l, a triple's armv7a or thumbv7, Debian's armhf.
  if ((arch.rfind("arm", 0) == 0 && arch != "arm64") || arch.rfind("thumb", 0) == 0) return "arm";
  return arch;
}

std::string TargetArch(const std::string& target) {
  Target parsed(target);
  if (parsed.kind() == TargetKind::kCUDA) return "";
  if (!parsed.mtriple().empty()) {
    return CanonicalArch(parsed.mtriple().substr(0, parsed.mtriple().find('-')));
  }
  // No triple: LLVM and the C backend's compiler both build for this host.
  return HostArch();
}

std::string HostArch() {
  utsname host{};
  if (uname(&host) != 0) return "";
  return CanonicalArch(host.machine);
}

void CheckRunsOnThisHost(const std::string& target) {
  const std::string wanted = TargetArch(target);
  const std::string here = HostArch();
  if (wanted.empty() || here.empty() || wanted == here) return;
  TESSERA_USER_ERROR() << "target '" << target << "' builds code for " << wanted << ", which this "
                       << here << " machine cannot run, so its candidates cannot be measured here: "
                       << "measure them on " << wanted << " devices through the fleet "
                       << "(--rpc-tracker HOST:PORT --rpc-key KEY, with a tessera-rpc-server "
                       << "running on the board; docs/fleet.md, \"Add a board\")";
}

void CheckDeviceArch(const std::string& target, const std::string& key, const std::string& server,
                     const std::string& device_arch) {
  std::string wanted = TargetArch(target);
  std::string have = CanonicalArch(device_arch);
  if (wanted.empty() || have.empty() || wanted == have) return;
  TESSERA_USER_ERROR() << "target '" << target << "' builds code for " << wanted
                       << ", but device key '" << key << "' gave server " << server
                       << ", which reports arch " << have << ": use a target with -mtriple=" << have
                       << "-linux-gnu, or a device key of " << wanted << " devices";
}

namespace {

// "sm_90a" → 90 and `specific` (code for that architecture only); -1 for anything else.
int ComputeCapability(const std::string& arch, bool* specific = nullptr) {
  if (arch.rfind("sm_", 0) != 0) return -1;
  size_t end = 3;
  while (end < arch.size() && std::isdigit(static_cast<unsigned char>(arch[end]))) ++end;
  if (end == 3) return -1;
  if (specific != nullptr) *specific = end < arch.size();
  return std::stoi(arch.substr(3, end - 3));
}

}  // namespace

void CheckDeviceGPU(const std::string& target, const std::string& key, const std::string& server,
                    const tracker::v1::DeviceInfo& info) {
  Target parsed(target);
  if (parsed.kind() != TargetKind::kCUDA) return;
  if (info.gpus().empty()) {
    TESSERA_USER_ERROR() << "target '" << target << "' runs on a CUDA GPU, but device key '" << key
                         << "' gave server " << server
                         << ", which reports no GPU: use a device key of servers with a GPU "
                            "(`tessera fleet status` lists each server's GPUs)";
  }
  const tracker::v1::GpuInfo& gpu = info.gpus(0);
  bool specific = false;
  int wanted = ComputeCapability(parsed.arch(), &specific);
  int have = ComputeCapability(gpu.arch());
  // No -arch: NVRTC's default PTX, which every GPU the toolkit supports runs; an unknown device
  // capability cannot be judged here, so the device's own loader has the last word.
  if (wanted < 0 || have < 0) return;
  if (specific ? have == wanted : have >= wanted) return;
  TESSERA_USER_ERROR() << "target '" << target << "' needs a GPU of compute capability "
                       << (specific ? "exactly " : "") << "sm_" << wanted
                       << (specific ? "" : " or newer") << ", but device key '" << key
                       << "' gave server " << server << ", whose GPU 0 (" << gpu.name() << ") is "
                       << gpu.arch() << ": use -arch=" << gpu.arch()
                       << (specific ? "" : " or lower") << ", or a device key of sm_" << wanted
                       << " GPUs";
}

std::unique_ptr<fleet::RemoteSession> OpenSessionForTarget(
    const std::shared_ptr<fleet::TrackerClient>& tracker, const fleet::SessionOptions& request,
    const std::string& target) {
  std::unique_ptr<fleet::RemoteSession> session = fleet::RemoteSession::Open(tracker, request);
  const tracker::v1::Grant& grant = session->grant();
  tracker::v1::FleetStatus status = tracker->Status();
  for (const tracker::v1::ServerStatus& server : status.servers()) {
    if (server.server_id() != grant.server_id()) continue;
    try {
      CheckDeviceArch(target, request.key, grant.server_address(), server.info().arch());
      CheckDeviceGPU(target, request.key, grant.server_address(), server.info());
    } catch (...) {
      session.reset();  // give the device back before refusing it
      throw;
    }
  }
  return session;
}

}  // namespace tuner
}  // namespace tessera
