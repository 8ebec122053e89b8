#include "bench/fleet_grants.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench/stats.h"
#include "common/file.h"
#include "fleet/client/channel.h"
#include "fleet/client/retry.h"
#include "fleet/client/tracker_client.h"
#include "tests/integration/fleet_fixture.h"

namespace tessera {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;
namespace v1 = tracker::v1;

// What every client reports, whichever model runs them.
class Results {
 public:
  // A grant of `server` that was asked for at `asked` arrived at `granted`.
  void Granted(Clock::time_point asked, Clock::time_point granted, const std::string& server) {
    std::lock_guard<std::mutex> lock(mu_);
    time_to_grant_.push_back(Millis(granted - asked));
    auto it = released_at_.find(server);
    if (it != released_at_.end() && it->second > asked) {
      free_to_grant_.push_back(Millis(granted - it->second));
    }
  }
  // The client holding `server` lets it go now (before its release call is sent).
  void Releasing(const std::string& server) {
    std::lock_guard<std::mutex> lock(mu_);
    released_at_[server] = Clock::now();
  }
  // A call failed in a way a real client tries again.
  void Retried() {
    std::lock_guard<std::mutex> lock(mu_);
    ++retries_;
  }
  // A client gave up; `what` is its error.
  void Failed(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    ++failures_[what];
  }
  // Prints the client-side figures; `seconds` is the run's length.
  void Print(const GrantBench& bench, double seconds) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [what, count] : failures_) {
      std::printf("ERROR: %d client(s) failed: %s\n", count, what.c_str());
    }
    const size_t asked = static_cast<size_t>(bench.clients) * bench.grants_per_client;
    std::printf(
        "grant latency: %d %s clients queued on %d servers, %zu grants in %.2f s (%.0f grants/s), "
        "%zu lost requests (%d calls retried)\n"
        "  request -> grant (includes queueing):        p50 %8.2f ms   p99 %8.2f ms\n"
        "  server released -> next client granted:      p50 %8.2f ms   p99 %8.2f ms   (%zu)\n",
        bench.clients, bench.client_model.c_str(), bench.servers, time_to_grant_.size(), seconds,
        time_to_grant_.size() / seconds, asked - time_to_grant_.size(), retries_,
        Percentile(time_to_grant_, 0.5), Percentile(time_to_grant_, 0.99),
        Percentile(free_to_grant_, 0.5), Percentile(free_to_grant_, 0.99), free_to_grant_.size());
  }

 private:
  mutable std::mutex mu_;
  std::vector<double> time_to_grant_, free_to_grant_;
  std::map<std::string, Clock::time_point> released_at_;  // server id -> when it was let go
  std::map<std::string, int> failures_;                   // error text -> clients
  int retries_ = 0;
};

// Counts clients down to zero.
class Latch {
 public:
  explicit Latch(int count) : count_(count) {}
  void CountDown() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--count_ == 0) done_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return count_ <= 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable done_;
  int count_;
};

// Runs callbacks at set times on one thread: the asynchronous clients' hold before release.
class Timers {
 public:
  Timers() : thread_([this] { Loop(); }) {}
  ~Timers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  void After(Clock::duration delay, std::function<void()> run) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      due_.emplace(Clock::now() + delay, std::move(run));
    }
    changed_.notify_all();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      if (due_.empty()) {
        changed_.wait(lock);
        continue;
      }
      auto next = due_.begin();
      if (next->first > Clock::now()) {
        changed_.wait_until(lock, next->first);
        continue;
      }
      std::function<void()> run = std::move(next->second);
      due_.erase(next);
      lock.unlock();
      run();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable changed_;
  std::multimap<Clock::time_point, std::function<void()>> due_;
  bool stopping_ = false;
  std::thread thread_;  // last: it starts on the members above
};

// One client as a chain of callback calls on its own channel (its own connection, as a separate
// program has): ask, hold the grant, release, ask again. Nothing in it blocks a gRPC thread.
class AsyncClient {
 public:
  AsyncClient(const std::string& tracker, int index, const GrantBench& bench, Results* results,
              Timers* timers, Latch* finished)
      : index_(index),
        channel_(fleet::MakeChannel(tracker, "")),
        stub_(v1::Tracker::NewStub(channel_)),
        bench_(bench),
        results_(results),
        timers_(timers),
        finished_(finished) {
    request_.set_key("bench");
    request_.set_request_id("bench-" + std::to_string(index) + "-0");
    request_.set_user("user" + std::to_string(index % 10));
    request_.set_priority(index % 3);
    request_.set_queue_timeout_ms(120000);
  }
  // Connects before the clock starts; false (and the client counted as failed) when it cannot.
  bool Connect() {
    if (channel_->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(30))) {
      return true;
    }
    Fail("connect", grpc::Status(grpc::StatusCode::UNAVAILABLE, "not connected within 30 s"));
    return false;
  }
  void Start() { Ask(); }

 private:
  // A retry keeps the request's id (and so its place) and the time it was first asked.
  void Ask() {
    ask_ = Prepare();
    if (retrying_) {
      retrying_ = false;
    } else {
      asked_ = Clock::now();
    }
    stub_->async()->RequestSession(ask_.get(), &request_, &reply_,
                                   [this](grpc::Status status) { Granted(status); });
  }
  void Granted(const grpc::Status& status) {
    const Clock::time_point now = Clock::now();
    if (!status.ok()) return Retry("RequestSession", status, [this] { Ask(); });
    results_->Granted(asked_, now, reply_.grant().server_id());
    timers_->After(std::chrono::milliseconds(bench_.hold_ms), [this] { Release(); });
  }
  void Release() {
    if (retrying_) {
      retrying_ = false;
    } else {
      results_->Releasing(reply_.grant().server_id());
    }
    ref_.set_session_id(reply_.grant().session_id());
    release_ = Prepare();
    stub_->async()->ReleaseSession(release_.get(), &ref_, &empty_,
                                   [this](grpc::Status status) { Released(status); });
  }
  void Released(const grpc::Status& status) {
    if (!status.ok()) return Retry("ReleaseSession", status, [this] { Release(); });
    if (++grants_ < bench_.grants_per_client) {
      request_.set_request_id("bench-" + std::to_string(index_) + "-" + std::to_string(grants_));
      return Ask();
    }
    finished_->CountDown();
  }
  // Tries `call` again after 50 ms when `status` is a failure `TrackerClient` retries (within
  // its 15 s window), else gives up.
  void Retry(const std::string& call, const grpc::Status& status, std::function<void()> again) {
    if (!fleet::TransientTrackerFailure(status) ||
        Clock::now() - asked_ > std::chrono::seconds(15)) {
      return Fail(call, status);
    }
    results_->Retried();
    retrying_ = true;
    timers_->After(std::chrono::milliseconds(50), std::move(again));
  }
  void Fail(const std::string& call, const grpc::Status& status) {
    results_->Failed(call + ": code " + std::to_string(status.error_code()) + ": " +
                     status.error_message());
    finished_->CountDown();
  }
  static std::unique_ptr<grpc::ClientContext> Prepare() {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(130));
    return context;
  }

  const int index_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Tracker::Stub> stub_;
  const GrantBench& bench_;
  Results* results_;
  Timers* timers_;
  Latch* finished_;
  v1::SessionRequest request_;
  v1::SessionReply reply_;
  v1::SessionRef ref_;
  v1::Empty empty_;
  // One context per call in flight: a call's context lives until its callback has run.
  std::unique_ptr<grpc::ClientContext> ask_, release_;
  Clock::time_point asked_;
  bool retrying_ = false;  // the next Ask or Release repeats one that failed
  int grants_ = 0;
};

// Seconds the asynchronous clients took.
double RunAsync(const GrantBench& bench, const std::string& tracker, Results* results) {
  Timers timers;
  Latch finished(bench.clients);
  std::vector<std::unique_ptr<AsyncClient>> clients;
  for (int c = 0; c < bench.clients; ++c) {
    clients.push_back(
        std::make_unique<AsyncClient>(tracker, c, bench, results, &timers, &finished));
  }
  std::vector<AsyncClient*> connected;
  for (auto& client : clients) {
    if (client->Connect()) connected.push_back(client.get());
  }
  const Clock::time_point start = Clock::now();
  for (AsyncClient* client : connected) client->Start();
  finished.Wait();
  return Millis(Clock::now() - start) / 1000;
}

// Seconds the clients took, each on its own OS thread through `TrackerClient`.
double RunThreads(const GrantBench& bench, const testing::Fleet& fleet, Results* results) {
  std::mutex mu;
  std::condition_variable changed;
  int ready = 0;
  bool go = false;
  std::vector<std::thread> threads;
  for (int c = 0; c < bench.clients; ++c) {
    threads.emplace_back([&, c] {
      bool counted = false;
      auto set_ready = [&] {
        std::lock_guard<std::mutex> lock(mu);
        ++ready;
        counted = true;
        changed.notify_all();
      };
      try {
        auto client = fleet.Client();
        fleet::SessionOptions options;
        options.key = "bench";
        options.user = "user" + std::to_string(c % 10);
        options.priority = c % 3;
        options.queue_timeout_ms = 120000;
        client->Status();  // connect before the clock starts
        set_ready();
        {
          std::unique_lock<std::mutex> lock(mu);
          changed.wait(lock, [&] { return go; });
        }
        for (int g = 0; g < bench.grants_per_client; ++g) {
          const Clock::time_point asked = Clock::now();
          v1::SessionReply reply = client->RequestSession(options);
          results->Granted(asked, Clock::now(), reply.grant().server_id());
          std::this_thread::sleep_for(std::chrono::milliseconds(bench.hold_ms));
          results->Releasing(reply.grant().server_id());
          client->ReleaseSession(reply.grant().session_id());
        }
      } catch (const std::exception& e) {
        results->Failed(e.what());
        if (!counted) set_ready();
      }
    });
  }
  Clock::time_point start;
  {
    std::unique_lock<std::mutex> lock(mu);
    changed.wait(lock, [&] { return ready == bench.clients; });
    start = Clock::now();
    go = true;
  }
  changed.notify_all();
  for (auto& thread : threads) thread.join();
  return Millis(Clock::now() - start) / 1000;
}

}  // namespace

void GrantLatency(const GrantBench& bench) {
  testing::FleetConfig config;
  config.tracker_flags = {"--heartbeat-ms", "1000", "--lease-timeout-ms", "10000"};
  const TempDir state("fleet-bench-state");  // removed after the fleet stops
  if (bench.tracker_state) {
    config.tracker_flags.insert(config.tracker_flags.end(), {"--state", state.path()});
  }
  config.server_flags = {};
  testing::Fleet fleet(config);
  for (int i = 0; i < bench.servers; ++i) fleet.AddServer("bench");
  Results results;
  const double tracker_cpu = CpuSeconds(fleet.tracker_pid()), clients_cpu = CpuSeconds(0);
  const double seconds = bench.client_model == "threads"
                             ? RunThreads(bench, fleet, &results)
                             : RunAsync(bench, fleet.tracker_address(), &results);
  results.Print(bench, seconds);
  // Setting the clients up and connecting them counts too; the run itself is most of it.
  const int64_t grants = static_cast<int64_t>(bench.clients) * bench.grants_per_client;
  std::printf("  CPU per grant (request + release): tracker %.0f us, clients %.0f us\n",
              (CpuSeconds(fleet.tracker_pid()) - tracker_cpu) / grants * 1e6,
              (CpuSeconds(0) - clients_cpu) / grants * 1e6);
  // The tracker's own share, timed inside it from the start of the RPC that caused each grant.
  const v1::FleetStatus status = fleet.Client()->Status();
  for (const v1::GrantLatency& timed : status.grant_latency()) {
    std::printf(
        "  tracker's own time, %-7s (%5lld grants): decided p50 %6.3f p99 %6.3f ms; "
        "reply sent p50 %6.3f p99 %6.3f max %6.3f ms\n",
        timed.path().c_str(), static_cast<long long>(timed.grants()), timed.decided_p50_ms(),
        timed.decided_p99_ms(), timed.sent_p50_ms(), timed.sent_p99_ms(), timed.sent_max_ms());
  }
  std::printf("  (load %s)\n", LoadAverage().c_str());
}

}  // namespace bench
}  // namespace tessera
