/// \file
/// What the dashboard's JSON endpoints return, built from the tracker's own state: the fleet
/// (`/api/fleet`), the shared log's best records (`/api/best`) and the jobs (`/api/jobs`). Pure
/// functions of their input, so the shapes are tested without a server.
#ifndef TESSERA_TRACKER_DASHBOARD_DASHBOARD_JSON_H_
#define TESSERA_TRACKER_DASHBOARD_DASHBOARD_JSON_H_

#include <cstdint>

#include "common/json.h"
#include "proto/jobs.pb.h"
#include "proto/tracker.pb.h"
#include "records/tuning_log.h"

namespace tessera {
namespace tracker {

/// Most workloads `/api/best` lists (the rest are counted, not listed).
constexpr int64_t kDashboardMaxWorkloads = 1000;

/// `{"keys": [{key, free, busy, dead, queued}], "servers": [...], "sessions": [...]}`: servers
/// per key by state (the tracker's words, as `tessera fleet status` prints them), queue lengths,
/// and the open sessions.
Json FleetJson(const v1::FleetStatus& status);

/// `{"total_records": N, "workloads": [{workload_key, target, records, failures, best_seconds,
/// config_index, device_key, timestamp}], "truncated": bool}` for the log's (workload, target)
/// pairs; `best_seconds` and the best record's fields are null where every record failed.
Json BestJson(const records::TuningLog& log);

/// `[{id, name, state, user, priority, target, rpc_key, trials_total, trials_done, failed_share,
/// best_seconds, eta_seconds, workers, submitted_unix_ms, model_curve, tasks: [{workload_key,
/// trials, done, failed, leased, best_seconds, eta_seconds, exhausted, weight, improvements:
/// [[unix_ms, done, best_seconds]]}]}]`: each job with its progress and tuning curves; unknown
/// figures (no trial done, no success, no estimate yet) are null.
Json JobsJson(const jobs::v1::JobList& jobs);

/// `{"active_jobs": N, "pending_trials": N, "leased_trials": N, "workers": N}` from `JobsJson`'s
/// output: what an autoscaler sizes the worker pool by (jobs queued or running; their trials not
/// yet done; trials leased to workers now; workers on them). With `brokers`, only the jobs whose
/// device key it accepts count: the jobs this tracker's workers can take (trackers sharing jobs).
Json QueueJson(const Json& jobs,
               const std::function<bool(const std::string& device_key)>& brokers = nullptr);

/// A job's estimated model latency over time, `[[unix_ms, seconds]]`: after each report that
/// brought a new best, the sum over tasks of weight × best (the faster of a task and its
/// alternatives, at the task's weight), from when every task or an alternative has one.
Json ModelCurveJson(const jobs::v1::JobStatus& job);

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_DASHBOARD_DASHBOARD_JSON_H_
