/// \file
/// `TrackerLink`: a device server's tie to its tracker. It registers, heartbeats, registers
/// again with backoff whenever the tracker goes away or forgets it (a tracker restart), and
/// passes on which sessions the tracker ended.
#ifndef TESSERA_RPC_SERVER_TRACKER_LINK_H_
#define TESSERA_RPC_SERVER_TRACKER_LINK_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "proto/tracker.grpc.pb.h"

namespace tessera {
namespace fleet {

/// Who the server is and where its tracker is.
struct TrackerLinkOptions {
  std::string tracker;      ///< HOST:PORT
  std::string token;        ///< shared secret, empty without one
  std::string tls_ca_file;  ///< PEM root certificate of a TLS tracker; empty for plaintext
  std::string server_id;    ///< stable for the life of the server process
  std::string key;          ///< device key
  std::string address;      ///< HOST:PORT clients use to reach the server
  tracker::v1::DeviceInfo info;
  int64_t max_backoff_ms = 2000;  ///< longest wait between attempts to reach the tracker
};

/// What the server tells the link about itself.
struct LinkCallbacks {
  /// The open session's id and expiry (empty id when none); reported at each check-in.
  std::function<std::pair<std::string, int64_t>()> active_session;
  /// Called when the tracker ended a session the server should close.
  std::function<void(const std::string& session_id)> session_ended;
  /// Called after each registration with the tracker's grant key ("" when it has a token).
  std::function<void(const std::string& grant_key)> registered;
};

/// Runs the registration/heartbeat loop on its own thread from construction to destruction.
class TrackerLink {
 public:
  /// Starts the loop.
  TrackerLink(TrackerLinkOptions options, LinkCallbacks callbacks);
  /// Stops the loop.
  ~TrackerLink();
  TrackerLink(const TrackerLink&) = delete;
  TrackerLink& operator=(const TrackerLink&) = delete;

  /// True while the last registration or heartbeat succeeded.
  bool connected() const { return connected_; }
  /// Number of successful registrations so far.
  int registrations() const { return registrations_; }
  /// Number of registrations the tracker answered with a refusal (a test waits for one to know
  /// that the tracker has seen the server, and turned it away).
  int refusals() const { return refusals_; }

 private:
  void Loop();
  bool RegisterOnce();
  void Sleep(int64_t ms);

  TrackerLinkOptions options_;
  LinkCallbacks callbacks_;
  std::unique_ptr<tracker::v1::Tracker::Stub> stub_;
  std::atomic<bool> connected_{false};
  std::atomic<int> registrations_{0};
  std::atomic<int> refusals_{0};
  int64_t heartbeat_ms_ = 2000;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_RPC_SERVER_TRACKER_LINK_H_
