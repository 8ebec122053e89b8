#include "tracker/fleet_state.h"

#include <algorithm>

#include "common/log.h"
#include "fleet/secrets.h"
#include "tracker/fair_share.h"

namespace tessera {
namespace tracker {

void FleetState::RegisterServer(const v1::RegisterRequest& request, int64_t now_ms) {
  // A server restarted on the same address leaves a dead twin behind; the new one replaces it.
  for (auto it = servers_.begin(); it != servers_.end();) {
    if (it->first != request.server_id() && it->second.address == request.address() &&
        it->second.dead) {
      it = servers_.erase(it);
    } else {
      ++it;
    }
  }
  ServerEntry& server = servers_[request.server_id()];
  if (!server.session_id.empty() && server.session_id != request.active_session_id()) {
    EndSession(server.session_id, "device lost: server '" + request.address() + "' restarted",
               now_ms);
  }
  server.server_id = request.server_id();
  server.key = request.key();
  server.address = request.address();
  server.info = request.info();
  server.dead = false;
  server.last_heartbeat_ms = now_ms;
  server.free_since_ms = now_ms;
  known_keys_[request.key()] = true;
  const std::string& adopted = request.active_session_id();
  const int64_t adopted_expires_ms = request.active_session_expires_unix_ms() - unix_offset_ms_;
  if (!adopted.empty() && adopted_expires_ms > now_ms && sessions_.count(adopted) == 0) {
    SessionEntry session;
    session.session_id = adopted;
    session.key = request.key();
    session.server_id = request.server_id();
    session.granted_ms = now_ms;
    session.expires_ms = adopted_expires_ms;
    session.last_keepalive_ms = now_ms;
    sessions_[adopted] = session;
  }
  if (sessions_.count(adopted) != 0) server.session_id = adopted;
  TESSERA_LOG(kInfo) << "server registered key=" << server.key << " server=" << server.server_id
                     << " address=" << server.address
                     << (server.session_id.empty() ? "" : " session=" + server.session_id);
}

bool FleetState::Heartbeat(const std::string& server_id, const std::string& active_session_id,
                           int64_t now_ms, std::vector<std::string>* ended_sessions) {
  auto it = servers_.find(server_id);
  if (it == servers_.end() || it->second.dead) return false;
  it->second.last_heartbeat_ms = now_ms;
  auto closing = to_close_.find(server_id);
  if (closing != to_close_.end()) {
    *ended_sessions = closing->second;
    to_close_.erase(closing);
  }
  // The server still holding a session the tracker ended (a lost reply) is told again.
  if (!active_session_id.empty() && sessions_.count(active_session_id) == 0 &&
      std::find(ended_sessions->begin(), ended_sessions->end(), active_session_id) ==
          ended_sessions->end()) {
    ended_sessions->push_back(active_session_id);
  }
  return true;
}

void FleetState::Enqueue(PendingRequest request) {
  auto it = queue_.find(request.request_id);
  if (it != queue_.end()) {
    it->second.attached = true;
    return;
  }
  if (request.seq == 0) {
    request.seq = next_seq_;
  }
  next_seq_ = std::max(next_seq_, request.seq + 1);
  queue_[request.request_id] = request;
}

void FleetState::Cancel(const std::string& request_id) { queue_.erase(request_id); }

const PendingRequest* FleetState::BestRequestFor(const std::string& key) const {
  const PendingRequest* best = nullptr;
  FairShareRank best_rank;
  auto served = [this](const std::string& user) {
    auto it = last_served_.find(user);
    return it == last_served_.end() ? 0 : it->second;
  };
  // One scan of the queue, one lookup of each request's user: this runs under the tracker's lock
  // for every server it hands on.
  for (const auto& [id, request] : queue_) {
    if (request.key != key || !request.attached) continue;
    if (best != nullptr && request.priority < best_rank.priority) continue;
    const FairShareRank rank{request.priority, served(request.user), request.seq};
    if (best == nullptr || ServedBefore(rank, best_rank)) {
      best = &request;
      best_rank = rank;
    }
  }
  return best;
}

// Dial-out servers (proto/relay.proto) register the address "relay:SERVER_ID".
bool FleetState::Reachable(const ServerEntry& server) const {
  return server.address.rfind("relay:", 0) != 0 || relay_attached_.count(server.server_id) != 0;
}

std::map<std::string, RequestOutcome> FleetState::Dispatch(int64_t now_ms) {
  std::map<std::string, RequestOutcome> outcomes;
  std::vector<ServerEntry*> free_servers;
  for (auto& [id, server] : servers_) {
    if (!server.dead && server.session_id.empty() && Reachable(server)) {
      free_servers.push_back(&server);
    }
  }
  std::sort(free_servers.begin(), free_servers.end(),
            [](const ServerEntry* a, const ServerEntry* b) {
              return a->free_since_ms < b->free_since_ms;
            });
  for (ServerEntry* server : free_servers) {
    const PendingRequest* request = BestRequestFor(server->key);
    if (request == nullptr) continue;
    int64_t limit = request->session_limit_ms > 0
                        ? std::min(request->session_limit_ms, settings_.max_session_ms)
                        : settings_.max_session_ms;
    SessionEntry session;
    session.session_id = fleet::RandomHexId();
    session.key = server->key;
    session.user = request->user;
    session.server_id = server->server_id;
    session.granted_ms = now_ms;
    session.expires_ms = now_ms + limit;
    session.last_keepalive_ms = now_ms;
    sessions_[session.session_id] = session;
    server->session_id = session.session_id;
    last_served_[request->user] = ++grants_;

    TESSERA_LOG(kInfo) << "grant issued key=" << session.key << " server=" << session.server_id
                       << " session=" << session.session_id << " user=" << session.user
                       << " request=" << request->request_id;
    RequestOutcome& outcome = outcomes[request->request_id];
    outcome.granted = true;
    outcome.grant.set_session_id(session.session_id);
    outcome.grant.set_key(server->key);
    outcome.grant.set_server_id(server->server_id);
    outcome.grant.set_server_address(server->address);
    outcome.grant.set_expires_unix_ms(session.expires_ms + unix_offset_ms_);
    queue_.erase(request->request_id);
  }
  return outcomes;
}

std::map<std::string, RequestOutcome> FleetState::Expire(int64_t now_ms) {
  for (auto& [id, server] : servers_) {
    if (server.dead || now_ms - server.last_heartbeat_ms < settings_.lease_timeout_ms) continue;
    server.dead = true;
    TESSERA_LOG(kWarning) << "server declared dead key=" << server.key << " server=" << id
                          << " address=" << server.address << " (no heartbeat for "
                          << now_ms - server.last_heartbeat_ms << " ms)";
    if (!server.session_id.empty()) {
      EndSession(server.session_id,
                 "device lost: server '" + server.address + "' (key '" + server.key +
                     "') missed heartbeats for " + std::to_string(settings_.lease_timeout_ms) +
                     " ms",
                 now_ms);
    }
  }
  std::vector<std::pair<std::string, std::string>> ending;
  for (const auto& [id, session] : sessions_) {
    if (now_ms >= session.expires_ms) {
      ending.push_back({id, "session reached its wall-clock limit"});
    } else if (now_ms - session.last_keepalive_ms >= settings_.lease_timeout_ms) {
      ending.push_back({id, "client stopped renewing the session"});
    }
  }
  for (const auto& [id, why] : ending) EndSession(id, why, now_ms);

  std::map<std::string, RequestOutcome> outcomes;
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (now_ms < it->second.deadline_ms) {
      ++it;
      continue;
    }
    int position = 0;
    for (const auto& [id, other] : queue_) {
      if (other.key == it->second.key) ++position;
    }
    TESSERA_LOG(kInfo) << "request expired key=" << it->second.key << " request=" << it->first
                       << " user=" << it->second.user << " (queue deadline)";
    RequestOutcome& outcome = outcomes[it->first];
    outcome.error = "no server for key '" + it->second.key +
                    "' became free before the queue deadline (" + std::to_string(position) +
                    " request(s) were waiting for that key)";
    it = queue_.erase(it);
  }
  // Reasons are kept for a while so that late keepalives learn why their session ended.
  if (ended_.size() > 100000) ended_.clear();
  return outcomes;
}

// By value: callers pass fields of the entries this clears.
void FleetState::EndSession(std::string session_id, const std::string& why, int64_t now_ms) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  auto server = servers_.find(it->second.server_id);
  if (server != servers_.end() && server->second.session_id == session_id) {
    server->second.session_id.clear();
    server->second.free_since_ms = now_ms;
    if (!server->second.dead) to_close_[server->first].push_back(session_id);
  }
  TESSERA_LOG(kInfo) << "session ended key=" << it->second.key << " server=" << it->second.server_id
                     << " session=" << session_id << ": " << why;
  ended_[session_id] = why;
  sessions_.erase(it);
}

std::string FleetState::KeepSession(const std::string& session_id, int64_t now_ms) {
  auto it = sessions_.find(session_id);
  if (it != sessions_.end()) {
    it->second.last_keepalive_ms = now_ms;
    return "";
  }
  auto ended = ended_.find(session_id);
  if (ended != ended_.end()) return ended->second;
  if (now_ms - started_ms_ < settings_.lease_timeout_ms) return "";
  return "unknown session '" + session_id + "'";
}

bool FleetState::ReleaseSession(const std::string& session_id, int64_t now_ms) {
  if (sessions_.count(session_id) == 0) return false;
  EndSession(session_id, "session released by its client", now_ms);
  return true;
}

v1::FleetStatus FleetState::Status(int64_t now_ms) const {
  v1::FleetStatus status;
  for (const auto& [key, unused] : known_keys_) status.add_keys(key);
  for (const auto& [id, server] : servers_) {
    v1::ServerStatus* out = status.add_servers();
    out->set_key(server.key);
    out->set_address(server.address);
    out->set_state(server.dead                  ? "dead"
                   : !server.session_id.empty() ? "busy"
                   : Reachable(server)          ? "free"
                                                : "detached");
    *out->mutable_info() = server.info;
    out->set_server_id(server.server_id);
    out->set_session_id(server.session_id);
    // -1: restored from disk, no heartbeat since this tracker started.
    out->set_last_heartbeat_age_ms(
        server.last_heartbeat_ms == 0 ? -1 : now_ms - server.last_heartbeat_ms);
  }
  std::map<std::string, int> lengths;
  for (const auto& [key, unused] : known_keys_) lengths[key] = 0;
  for (const auto& [id, request] : queue_) ++lengths[request.key];
  for (const auto& [key, length] : lengths) {
    v1::QueueStatus* out = status.add_queues();
    out->set_key(key);
    out->set_length(length);
  }
  for (const auto& [id, session] : sessions_) {
    v1::SessionStatus* out = status.add_sessions();
    out->set_session_id(id);
    out->set_key(session.key);
    out->set_user(session.user);
    auto server = servers_.find(session.server_id);
    if (server != servers_.end()) out->set_server_address(server->second.address);
    out->set_age_ms(now_ms - session.granted_ms);
    out->set_expires_in_ms(session.expires_ms - now_ms);
  }
  return status;
}

}  // namespace tracker
}  // namespace tessera
