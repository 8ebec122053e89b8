#include "tracker/dashboard/dashboard.h"

#include <httplib.h>
#include <sys/socket.h>

#include "common/command_line.h"
#include "common/error.h"
#include "common/log.h"
#include "fleet/secrets.h"
#include "fleet/server/listen.h"
#include "report/html.h"
#include "tracker/authorize.h"
#include "tracker/dashboard/dashboard_json.h"
#include "tracker/dashboard/page.h"

namespace tessera {
namespace tracker {
namespace {

// httplib gives the peer's bare address; the access rule reads gRPC's peer strings.
std::string PeerOf(const httplib::Request& request) {
  const std::string& address = request.remote_addr;
  if (address.find(':') == std::string::npos) return "ipv4:" + address + ":0";
  return "ipv6:[" + address + "]:0";
}

void Reply(httplib::Response& response, int status, const std::string& body,
           const char* content_type) {
  response.status = status;
  response.set_header("Cache-Control", "no-store");
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("X-Frame-Options", "DENY");
  response.set_content(body, content_type);
}

void ReplyJson(httplib::Response& response, int status, const Json& value) {
  Reply(response, status, value.dump(), "application/json");
}

}  // namespace

Dashboard::Dashboard(DashboardSources sources, AccessTokens tokens)
    : sources_(std::move(sources)),
      tokens_(std::move(tokens)),
      server_(std::make_unique<httplib::Server>()) {
  Route();
}

Dashboard::~Dashboard() { Stop(); }

void Dashboard::Route() {
  // The page's script sends the token as a header; only the page itself may carry it in its URL,
  // so that a link someone was given opens the dashboard.
  server_->set_pre_routing_handler([this](const httplib::Request& request,
                                          httplib::Response& response) {
    std::string presented;
    bool has_token = request.has_header(fleet::kTokenHeader);
    if (has_token) {
      presented = request.get_header_value(fleet::kTokenHeader);
    } else if (request.path == "/" && request.has_param("token")) {
      has_token = true;
      presented = request.get_param_value("token");
    }
    const std::string peer = PeerOf(request);
    const AccessRefusal refusal =
        CheckAccess(tokens_, IsLoopbackPeer(peer), has_token ? &presented : nullptr, Access::kRead);
    if (refusal == AccessRefusal::kNone) return httplib::Server::HandlerResponse::Unhandled;
    TESSERA_LOG(kWarning) << "dashboard request refused peer=" << peer << " path=" << request.path;
    ReplyJson(response, refusal == AccessRefusal::kMissingToken ? 401 : 403,
              {{"error", RefusalMessage(refusal, peer)}});
    return httplib::Server::HandlerResponse::Handled;
  });
  // Chart.js goes into the page itself, so that the page needs no second request (and token).
  std::string page = kDashboardPage;
  const std::string marker = "<!-- chart.js -->";
  page.replace(page.find(marker), marker.size(), report::ChartScriptElements());
  server_->Get("/", [page](const httplib::Request&, httplib::Response& response) {
    Reply(response, 200, page, "text/html; charset=utf-8");
  });
  server_->Get("/api/fleet", [this](const httplib::Request&, httplib::Response& response) {
    ReplyJson(response, 200, FleetJson(sources_.fleet()));
  });
  server_->Get("/api/fleet_history", [this](const httplib::Request&, httplib::Response& response) {
    ReplyJson(response, 200, history_.ToJson());
  });
  server_->Get("/api/best", [this](const httplib::Request&, httplib::Response& response) {
    ReplyJson(response, 200,
              sources_.log->With([](records::TuningLog& log) { return BestJson(log); }));
  });
  server_->Get("/api/jobs", [this](const httplib::Request&, httplib::Response& response) {
    if (!sources_.jobs) {
      ReplyJson(response, 200,
                {{"service", false},
                 {"reason", "no job service on this tracker"},
                 {"jobs", Json::array()}});
      return;
    }
    Json jobs = sources_.jobs();
    ReplyJson(response, 200, {{"service", true}, {"jobs", std::move(jobs)}});
  });
  // For autoscalers (deploy/k8s: KEDA's metrics-api scaler sizes the worker pool by it).
  server_->Get("/api/queue", [this](const httplib::Request&, httplib::Response& response) {
    ReplyJson(response, 200,
              QueueJson(sources_.jobs ? sources_.jobs() : Json::array(), sources_.brokers));
  });
  // A failing source is reported, never a dead tracker.
  server_->set_exception_handler([](const httplib::Request& request, httplib::Response& response,
                                    std::exception_ptr error) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    TESSERA_LOG(kWarning) << "dashboard request failed path=" << request.path << " error=" << what;
    ReplyJson(response, 500, {{"error", what}});
  });
  server_->set_error_handler([](const httplib::Request&, httplib::Response& response) {
    if (response.body.empty()) ReplyJson(response, response.status, {{"error", "not found"}});
  });
  server_->set_payload_max_length(64 << 10);
  // httplib shares ports by default (SO_REUSEPORT); a daemon's port is its own.
  server_->set_socket_options([](socket_t sock) {
    int one = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  });
}

int Dashboard::Start(const std::string& address) {
  std::string host;
  int port = 0;
  SplitHostPort("--http", address, &host, &port);
  const std::string bind_host = host.size() >= 2 && host.front() == '[' && host.back() == ']'
                                    ? host.substr(1, host.size() - 2)
                                    : host;
  if (port == 0) {
    port = server_->bind_to_any_port(bind_host);
  } else if (!server_->bind_to_port(bind_host, port)) {
    port = -1;
  }
  if (port <= 0) {
    throw ConfigError("tessera-tracker: cannot serve the dashboard on '" + address +
                      "': " + fleet::ListenFailureReason(address));
  }
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    finished_ = true;
  });
  SampleFleetOnce();  // the history has its first sample as soon as the dashboard serves
  sampler_ = std::thread([this] { SampleFleet(); });
  return port;
}

void Dashboard::SampleFleetOnce() {
  try {
    history_.Add(std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count(),
                 sources_.fleet());
  } catch (const std::exception& e) {
    TESSERA_LOG(kWarning) << "dashboard fleet sample failed error=" << e.what();
  }
}

void Dashboard::SampleFleet() {
  std::unique_lock<std::mutex> lock(sampler_mu_);
  while (
      !sampler_cv_.wait_for(lock, sources_.fleet_sample_interval, [this] { return stopping_; })) {
    lock.unlock();
    SampleFleetOnce();
    lock.lock();
  }
}

void Dashboard::Stop() {
  if (sampler_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(sampler_mu_);
      stopping_ = true;
    }
    sampler_cv_.notify_all();
    sampler_.join();
  }
  if (!thread_.joinable()) return;
  // `stop` only takes effect once the server runs: repeat until the serving thread has left.
  while (!server_->is_running() && !finished_)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->stop();
  thread_.join();
}

}  // namespace tracker
}  // namespace tessera
