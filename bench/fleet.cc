// //bench:fleet: grant latency of the tracker under a full queue, array copy throughput to a
// device server over loopback, and the latency of a `log best` query through the tracker's
// shared log. Starts its own tracker and servers on 127.0.0.1.
//   bazel run -c opt //bench:fleet -- [--mode all|grants|copy|log] [--clients 200] [--servers 20]
//                                      [--grants-per-client 10] [--mib 256] [--rounds 3]
//                                      [--log-records 100000] [--log-queries 2000]
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "common/command_line.h"
#include "fleet/client/log_client.h"
#include "fleet/client/remote_session.h"
#include "tests/integration/fleet_fixture.h"

namespace {

using Clock = std::chrono::steady_clock;

double Millis(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t index = std::min(values.size() - 1, static_cast<size_t>(p * (values.size() - 1) + 0.5));
  return values[index];
}

void GrantLatency(int clients, int servers, int grants_per_client) {
  tessera::testing::FleetConfig config;
  config.tracker_flags = {"--heartbeat-ms", "1000", "--lease-timeout-ms", "10000"};
  config.server_flags = {};
  tessera::testing::Fleet fleet(config);
  for (int i = 0; i < servers; ++i) fleet.AddServer("bench");

  std::mutex mu;
  std::vector<double> time_to_grant, free_to_grant;
  std::map<std::string, Clock::time_point> released_at;  // server id -> when its last session ended
  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  std::string first_failure;
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      try {
        auto client = fleet.Client();
        tessera::fleet::SessionOptions options;
        options.key = "bench";
        options.user = "user" + std::to_string(c % 10);
        options.priority = c % 3;
        options.queue_timeout_ms = 120000;
        client->Status();  // connect before the clock starts
        ++ready;
        while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        for (int g = 0; g < grants_per_client; ++g) {
          Clock::time_point asked = Clock::now();
          tessera::tracker::v1::SessionReply reply = client->RequestSession(options);
          Clock::time_point granted = Clock::now();
          const std::string server = reply.grant().server_id();
          {
            std::lock_guard<std::mutex> lock(mu);
            time_to_grant.push_back(Millis(granted - asked));
            auto it = released_at.find(server);
            if (it != released_at.end() && it->second > asked) {
              free_to_grant.push_back(Millis(granted - it->second));
            }
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(2));  // "use" the device
          {
            std::lock_guard<std::mutex> lock(mu);
            released_at[server] = Clock::now();
          }
          client->ReleaseSession(reply.grant().session_id());
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        if (failures++ == 0) first_failure = e.what();
        ++ready;
      }
    });
  }
  while (ready < clients) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Clock::time_point start = Clock::now();
  go = true;
  for (auto& thread : threads) thread.join();
  double seconds = Millis(Clock::now() - start) / 1000;
  if (failures > 0) {
    std::printf("ERROR: %d clients failed; the first: %s\n", failures.load(),
                first_failure.c_str());
  }
  const size_t lost = static_cast<size_t>(clients) * grants_per_client - time_to_grant.size();
  std::printf(
      "grant latency: %d clients queued on %d servers, %zu grants in %.2f s (%.0f grants/s), "
      "%zu lost requests\n"
      "  request -> grant (includes queueing):        p50 %8.2f ms   p99 %8.2f ms\n"
      "  server released -> next client granted:      p50 %8.2f ms   p99 %8.2f ms\n",
      clients, servers, time_to_grant.size(), seconds, time_to_grant.size() / seconds, lost,
      Percentile(time_to_grant, 0.5), Percentile(time_to_grant, 0.99),
      Percentile(free_to_grant, 0.5), Percentile(free_to_grant, 0.99));
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one;
  in >> one;
  return one + " on " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " cores";
}

// CPU seconds (user + system) used so far by process `pid` (0: this process).
double CpuSeconds(pid_t pid) {
  std::string path = pid == 0 ? "/proc/self/stat" : "/proc/" + std::to_string(pid) + "/stat";
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks / sysconf(_SC_CLK_TCK);
}

void Throughput(int64_t mib, int rounds) {
  tessera::testing::Fleet fleet;
  pid_t server = fleet.AddServer("copy").pid();
  tessera::fleet::SessionOptions options;
  options.key = "copy";
  auto session = tessera::fleet::RemoteSession::Open(fleet.Client(), options);
  const size_t nbytes = static_cast<size_t>(mib) << 20;
  std::vector<char> data(nbytes, 1), back(nbytes, 0);
  int64_t array = session->AllocArray({static_cast<int64_t>(nbytes)}, "uint8");
  double best_in = 0, best_out = 0, sum_in = 0, sum_out = 0, cpu_in = 0, cpu_out = 0;
  for (int r = 0; r < rounds; ++r) {
    double cpu = CpuSeconds(0) + CpuSeconds(server);
    Clock::time_point start = Clock::now();
    session->CopyIn(array, data.data(), nbytes);
    double in = nbytes / (Millis(Clock::now() - start) / 1000) / 1e9;
    double cpu_mid = CpuSeconds(0) + CpuSeconds(server);
    cpu_in += cpu_mid - cpu;
    start = Clock::now();
    session->CopyOut(array, back.data(), nbytes);
    double out = nbytes / (Millis(Clock::now() - start) / 1000) / 1e9;
    cpu_out += CpuSeconds(0) + CpuSeconds(server) - cpu_mid;
    best_in = std::max(best_in, in);
    best_out = std::max(best_out, out);
    sum_in += in;
    sum_out += out;
  }
  if (back != data) std::printf("ERROR: the array came back different\n");
  std::printf(
      "array copy over loopback, %lld MiB, %d rounds:\n"
      "  upload (CopyIn):    best %.2f GB/s   mean %.2f GB/s\n"
      "  download (CopyOut): best %.2f GB/s   mean %.2f GB/s\n"
      "  CPU time of client + server per GB: upload %.2f s, download %.2f s (load %s)\n",
      static_cast<long long>(mib), rounds, best_in, sum_in / rounds, best_out, sum_out / rounds,
      cpu_in / (rounds * nbytes / 1e9), cpu_out / (rounds * nbytes / 1e9), LoadAverage().c_str());
}

// A tuning log of `records` records (`workloads` shapes, one target) pushed into the tracker,
// then `queries` best-record queries for one workload and target, as `tessera log best --task W
// --target T` asks, and the per-task read of `tessera compile --db tracker://`.
void LogBestLatency(int64_t records, int queries) {
  tessera::testing::Fleet fleet;
  tessera::fleet::TrackerOptions options;
  options.address = fleet.tracker_address();
  tessera::fleet::LogClient client(options);
  const int64_t workloads = std::max<int64_t>(1, records / 500);
  const std::string target = "llvm -mcpu=znver4";
  std::vector<tessera::tuning::MeasureRecord> batch;
  for (int64_t i = 0; i < records; ++i) {
    tessera::tuning::MeasureRecord r;
    r.set_workload_key("dense.x86(" + std::to_string(16 * (1 + i % workloads)) +
                       ",256,256,float32)");
    r.set_target(target);
    r.set_device_key("bench");
    r.set_config_index(i / workloads);
    r.add_costs(1e-3 * (1 + (i * 7919) % 1000) / 1000);
    r.add_costs(1e-3 * (1 + (i * 104729) % 1000) / 1000);
    r.set_timestamp(1.7e9 + i);
    tessera::tuning::KnobValue* knob = r.mutable_config()->add_knobs();
    knob->set_name("tile_x");
    knob->set_kind("sp");
    knob->add_ints(-1);
    knob->add_ints(1 << (i % 6));
    batch.push_back(std::move(r));
  }
  Clock::time_point start = Clock::now();
  tessera::tuner::ImportResult pushed = client.Push(batch);
  const double push_s = Millis(Clock::now() - start) / 1000;

  tessera::tuner::RecordFilter one;
  one.workload_key = "dense.x86(" + std::to_string(16 * (1 + workloads / 2)) + ",256,256,float32)";
  one.target = target;
  std::vector<double> best_ms, list_ms;
  size_t listed = 0;
  for (int q = 0; q < queries; ++q) {
    start = Clock::now();
    tessera::fleet::BestRecords best = client.Best(one);
    best_ms.push_back(Millis(Clock::now() - start));
    if (best.records.size() != 1)
      std::printf("ERROR: best returned %zu records\n", best.records.size());
  }
  one.only_successful = true;
  for (int q = 0; q < std::max(1, queries / 10); ++q) {
    start = Clock::now();
    listed = client.List(one).size();
    list_ms.push_back(Millis(Clock::now() - start));
  }
  std::printf(
      "shared tuning log through the tracker, %lld records (%lld workloads, one target):\n"
      "  push: %lld imported in %.2f s (%.0f records/s)\n"
      "  log best for one workload and target (%d queries): p50 %6.3f ms   p99 %6.3f ms\n"
      "  compile's read of one task (%zu records, %zu queries): p50 %6.3f ms   p99 %6.3f ms\n"
      "  (load %s)\n",
      static_cast<long long>(records), static_cast<long long>(workloads),
      static_cast<long long>(pushed.imported), push_s, pushed.imported / push_s, queries,
      Percentile(best_ms, 0.5), Percentile(best_ms, 0.99), listed, list_ms.size(),
      Percentile(list_ms, 0.5), Percentile(list_ms, 0.99), LoadAverage().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  int clients = 200, servers = 20, grants_per_client = 10, rounds = 3;
  int64_t mib = 256, log_records = 100000;
  int log_queries = 2000;
  std::string mode = "all";
  CLI::App app{
      "Grant latency of the tracker under a full queue, array copy throughput, and the latency "
      "of a log best query through the tracker.",
      "fleet"};
  app.option_defaults()->always_capture_default();
  app.add_option("--clients", clients, "clients queueing at once")->check(tessera::Positive());
  app.add_option("--servers", servers, "device servers")->check(tessera::Positive());
  app.add_option("--grants-per-client", grants_per_client, "sessions each client asks for")
      ->check(tessera::Positive());
  app.add_option("--mib", mib, "array size of the copy test")->check(tessera::Positive());
  app.add_option("--rounds", rounds, "copies of the array each way")->check(tessera::Positive());
  app.add_option("--mode", mode, "what to measure")
      ->check(CLI::IsMember({"all", "grants", "copy", "log"}));
  app.add_option("--log-records", log_records, "records in the tracker's shared log")
      ->check(tessera::Positive());
  app.add_option("--log-queries", log_queries, "best-record queries timed")
      ->check(tessera::Positive());
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr, [&] {
    if (mode == "all" || mode == "grants") GrantLatency(clients, servers, grants_per_client);
    if (mode == "all" || mode == "copy") Throughput(mib, rounds);
    if (mode == "all" || mode == "log") LogBestLatency(log_records, log_queries);
    return 0;
  });
}
