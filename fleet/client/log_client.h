/// \file
/// `LogClient`: the tracker's shared tuning log seen from a client. `tessera log … --tracker`
/// queries and pushes through it; `tessera compile --db tracker://HOST:PORT` reads best records
/// through it as a `records::RecordSource`, exactly as from a local file.
#ifndef TESSERA_FLEET_CLIENT_LOG_CLIENT_H_
#define TESSERA_FLEET_CLIENT_LOG_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fleet/client/tracker_client.h"
#include "proto/log_service.grpc.pb.h"
#include "records/tuning_log.h"

namespace tessera {
namespace fleet {

/// The prefix of a `--db` value that names a tracker's log: "tracker://HOST:PORT".
constexpr const char* kTrackerLogScheme = "tracker://";

/// The address in "tracker://HOST:PORT", or "" when `db` names a local file.
std::string TrackerLogAddress(const std::string& db);

/// The records a build reads from `db`: the tracker's log for "tracker://HOST:PORT", reached with
/// the token in `token_file` and the TLS root `tls_ca_file`; else the tuning log file `db`, which
/// must exist; null for an empty `db`. A token or certificate given with a file is the caller's
/// to refuse, in its own words.
std::unique_ptr<records::RecordSource> OpenRecordSource(const std::string& db,
                                                        const std::string& token_file,
                                                        const std::string& tls_ca_file);

/// What `Best` returns.
struct BestRecords {
  std::vector<tuning::MeasureRecord> records;  ///< one per (workload, target) with a success
  int64_t workloads = 0;                       ///< (workload, target) pairs with any record
};

/// A client of one tracker's log; thread-safe. Calls throw `FleetError` (exit 1) when the tracker
/// is unreachable or refuses.
class LogClient final : public records::RecordSource {
 public:
  /// A client for `options.address` (no connection is made until the first call).
  explicit LogClient(TrackerOptions options);

  /// The fastest successful record per (workload, target) matching `filter`.
  BestRecords Best(const records::RecordFilter& filter) const;
  /// Calls `each` with every record matching `filter`, in insertion order, as they stream in.
  void ForEach(const records::RecordFilter& filter,
               const std::function<void(const tuning::MeasureRecord&)>& each) const;
  /// Records matching `filter`, in insertion order.
  std::vector<tuning::MeasureRecord> List(const records::RecordFilter& filter) const override;
  /// One summary per (workload, target).
  std::vector<records::WorkloadStats> Stats(const records::RecordFilter& filter) const;
  /// Sends `records` in batches (each written whole or not at all by the tracker; a batch already
  /// sent stays when a later one fails, and sending again skips it as duplicates).
  records::ImportResult Push(const std::vector<tuning::MeasureRecord>& records) const;
  /// "tracker://HOST:PORT".
  std::string SourceName() const override;

 private:
  std::string Where(const char* rpc) const;

  TrackerOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<log::v1::LogService::Stub> stub_;
};

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_CLIENT_LOG_CLIENT_H_
