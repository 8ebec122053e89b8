#include "bench/log_store.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench/stats.h"
#include "records/tuning_log.h"

namespace tessera {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

// Runs `readers` threads querying best while `more()` holds, and `meanwhile` on this thread;
// returns every query's latency (ms).
std::vector<double> Reads(const StoreLoadOptions& o, const std::function<bool()>& more,
                          const std::function<void()>& meanwhile) {
  std::vector<std::vector<double>> read_ms(static_cast<size_t>(o.readers));
  std::vector<std::thread> readers;
  for (int t = 0; t < o.readers; ++t) {
    readers.emplace_back([&, t] {
      auto log = records::TuningLog::Open(o.db, /*create=*/false);
      std::mt19937 random(static_cast<unsigned>(t));
      std::uniform_int_distribution<int> workload(0, o.workloads - 1);
      while (more()) {
        const std::string key = SyntheticWorkload(workload(random));
        const Clock::time_point start = Clock::now();
        log->Best(key, kSyntheticTarget);
        read_ms[static_cast<size_t>(t)].push_back(Millis(Clock::now() - start));
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.read_interval_ms));
      }
    });
  }
  meanwhile();
  for (auto& t : readers) t.join();
  std::vector<double> all;
  for (const auto& r : read_ms) all.insert(all.end(), r.begin(), r.end());
  return all;
}

}  // namespace

std::string SyntheticWorkload(int64_t w) {
  return "dense.x86(" + std::to_string(16 * (1 + w)) + ",256,256,float32)";
}

tuning::MeasureRecord SyntheticRecord(int64_t i, int64_t workloads) {
  tuning::MeasureRecord r;
  r.set_workload_key(SyntheticWorkload(i % workloads));
  r.set_target(kSyntheticTarget);
  r.set_device_key("bench");
  r.set_config_index(i / workloads);
  r.add_costs(1e-3 * static_cast<double>(1 + (i * 7919) % 1000) / 1000);
  r.add_costs(1e-3 * static_cast<double>(1 + (i * 104729) % 1000) / 1000);
  r.set_timestamp(1.7e9 + static_cast<double>(i));
  r.set_tuner_version("bench");
  tuning::KnobValue* knob = r.mutable_config()->add_knobs();
  knob->set_name("tile_x");
  knob->set_kind("sp");
  knob->add_ints(-1);
  knob->add_ints(1 << (i % 6));
  return r;
}

void StoreLoad(const StoreLoadOptions& o) {
  {
    auto log = records::TuningLog::Open(o.db);
    if (log->Count() != 0) {
      throw std::runtime_error("--db '" + o.db + "' holds records; the load needs an empty log");
    }
  }
  double write_s = 0;
  std::atomic<bool> writing{true};
  std::atomic<int64_t> written{0};
  const std::vector<double> all_reads = Reads(
      o, [&] { return writing.load(); },
      [&] {
        const Clock::time_point start = Clock::now();
        std::vector<std::thread> writers;
        for (int w = 0; w < o.writers; ++w) {
          writers.emplace_back([&, w] {
            auto log = records::TuningLog::Open(o.db, /*create=*/false);
            std::vector<tuning::MeasureRecord> batch;
            for (int64_t i = w; i < o.records; i += o.writers) {
              batch.push_back(SyntheticRecord(i, o.workloads));
              if (static_cast<int>(batch.size()) == o.batch) {
                log->AppendBatch(batch);
                written += static_cast<int64_t>(batch.size());
                batch.clear();
              }
            }
            if (!batch.empty()) log->AppendBatch(batch);
            written += static_cast<int64_t>(batch.size());
          });
        }
        for (auto& t : writers) t.join();
        write_s = Millis(Clock::now() - start) / 1000;
        writing = false;
      });
  // The same readers on the full log with no writer: what a build sees once tuning is done.
  const Clock::time_point quiet_end =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(o.quiet_read_seconds));
  const std::vector<double> quiet_reads = Reads(
      o, [&] { return Clock::now() < quiet_end; }, [] {});

  // Nothing lost, nothing doubled: every workload holds exactly its records, each config once.
  auto log = records::TuningLog::Open(o.db, /*create=*/false);
  int64_t total = 0, wrong = 0;
  for (const records::WorkloadStats& s : log->Stats()) {
    total += s.records;
    const int64_t index = (std::stoll(s.workload_key.substr(10)) / 16) - 1;
    const int64_t expected = o.records / o.workloads + (index < o.records % o.workloads ? 1 : 0);
    if (s.records != expected ||
        static_cast<int64_t>(log->MeasuredConfigs(s.workload_key, s.target).size()) != expected) {
      ++wrong;
    }
  }
  std::printf(
      "tuning log store %s: %lld records from %d writers (batches of %d) while %d readers query "
      "best (one query per reader every %.1f ms):\n"
      "  writes: %lld records in %.2f s (%.0f records/s)\n"
      "  best for one workload and target (%zu queries, %.0f/s): p50 %6.3f ms   p99 %6.3f ms   "
      "max %6.3f ms\n"
      "  best with no writer, %.0f s (%zu queries, %.0f/s): p50 %6.3f ms   p99 %6.3f ms   max "
      "%6.3f ms\n"
      "  check: %lld records stored, %lld workloads with a record missing or doubled%s\n"
      "  (load %s)\n",
      log->path().c_str(), static_cast<long long>(o.records), o.writers, o.batch, o.readers,
      o.read_interval_ms, static_cast<long long>(written.load()), write_s,
      static_cast<double>(written.load()) / write_s, all_reads.size(),
      static_cast<double>(all_reads.size()) / write_s, Percentile(all_reads, 0.5),
      Percentile(all_reads, 0.99), Percentile(all_reads, 1.0), o.quiet_read_seconds,
      quiet_reads.size(), static_cast<double>(quiet_reads.size()) / o.quiet_read_seconds,
      Percentile(quiet_reads, 0.5), Percentile(quiet_reads, 0.99), Percentile(quiet_reads, 1.0),
      static_cast<long long>(total), static_cast<long long>(wrong),
      total == o.records && wrong == 0 ? " (nothing lost)" : "  ERROR: records lost or doubled",
      LoadAverage().c_str());
}

}  // namespace bench
}  // namespace tessera
