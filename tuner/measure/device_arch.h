/// \file
/// Which CPU architecture (or GPU) a target's code runs on, and the check that a leased device has
/// it: code for another architecture would only fail to load on the device, one candidate after
/// another, so a mismatch is refused before any upload with a message naming both.
#ifndef TESSERA_TUNER_MEASURE_DEVICE_ARCH_H_
#define TESSERA_TUNER_MEASURE_DEVICE_ARCH_H_

#include <memory>
#include <string>

#include "fleet/client/remote_session.h"
#include "fleet/client/tracker_client.h"

namespace tessera {
namespace tuner {

/// The architecture, as `uname -m` spells it ("x86_64", "aarch64"), that code built for `target`
/// runs on: the triple's (`-mtriple=aarch64-linux-gnu`), else this host's. "" for CUDA targets,
/// whose code runs on the GPU whatever the host. Throws `UserError` for a bad target string.
std::string TargetArch(const std::string& target);

/// The same spelling for an architecture name from a triple or a device ("arm64" is "aarch64",
/// "amd64" is "x86_64").
std::string CanonicalArch(const std::string& arch);

/// The architecture of this machine, as `TargetArch` spells it.
std::string HostArch();

/// Throws `UserError` naming the target's architecture and this host's when code for `target`
/// cannot run here (another CPU architecture), saying how to measure on a board of it instead.
/// Local measurement calls this before building anything.
void CheckRunsOnThisHost(const std::string& target);

/// Throws `UserError` naming the target and its architecture, the device key, the server and the
/// device's architecture when `device_arch` is known and differs from `TargetArch(target)`.
void CheckDeviceArch(const std::string& target, const std::string& key, const std::string& server,
                     const std::string& device_arch);

/// For a CUDA target, throws `UserError` naming the target, the device key, the server and what
/// the device has when `info` reports no GPU, or when its GPU 0 (the one sessions measure on) has a
/// lower compute capability than the target's `-arch=sm_NN` (for an architecture-specific
/// `sm_NNa`, any other one). No-op for CPU targets.
void CheckDeviceGPU(const std::string& target, const std::string& key, const std::string& server,
                    const tracker::v1::DeviceInfo& info);

/// Opens a session for `request`, looks up the granted server's architecture in the tracker's
/// status and checks it against `target` (`CheckDeviceArch`, `CheckDeviceGPU`; a refused session is
/// closed before the error propagates). Fleet failures are `FleetError`s, as from
/// `RemoteSession::Open`.
std::unique_ptr<fleet::RemoteSession> OpenSessionForTarget(
    const std::shared_ptr<fleet::TrackerClient>& tracker, const fleet::SessionOptions& request,
    const std::string& target);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_MEASURE_DEVICE_ARCH_H_
