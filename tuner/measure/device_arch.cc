#include "tuner/measure/device_arch.h"

#include <sys/utsname.h>

#include "common/error.h"
#include "compiler/driver/target.h"

namespace tessera {
namespace tuner {

std::string CanonicalArch(const std::string& arch) {
  if (arch == "arm64") return "aarch64";
  if (arch == "amd64") return "x86_64";
  return arch;
}

std::string TargetArch(const std::string& target) {
  Target parsed(target);
  if (parsed.kind() == TargetKind::kCUDA) return "";
  if (!parsed.mtriple().empty()) {
    return CanonicalArch(parsed.mtriple().substr(0, parsed.mtriple().find('-')));
  }
  // No triple: LLVM and the C backend's compiler both build for this host.
  utsname host{};
  if (uname(&host) != 0) return "";
  return CanonicalArch(host.machine);
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
    } catch (...) {
      session.reset();  // give the device back before refusing it
      throw;
    }
  }
  return session;
}

}  // namespace tuner
}  // namespace tessera
