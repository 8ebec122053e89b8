/// \file
/// Runs work in forked child processes with a time limit, so that a candidate that crashes,
/// hangs or aborts costs one measurement, never the tuner.
#ifndef TESSERA_TUNER_MEASURE_ISOLATED_CALL_H_
#define TESSERA_TUNER_MEASURE_ISOLATED_CALL_H_

#include <functional>
#include <string>
#include <vector>

namespace tessera {
namespace tuner {

/// How an isolated call ended.
enum class IsolatedStatus {
  kOk,       ///< returned normally; `output` holds what it returned
  kThrew,    ///< threw an exception; `message` holds its text
  kCrashed,  ///< the child died (signal, exit) before returning; `message` says how
  kTimeout,  ///< ran past its time limit and was killed
};

/// The result of one isolated call.
struct IsolatedResult {
  IsolatedStatus status = IsolatedStatus::kCrashed;
  std::string output;   ///< the returned bytes (kOk)
  std::string message;  ///< what went wrong (other statuses)
  double seconds = 0;   ///< wall time of the child
};

/// Work to run in a child: returns bytes for the parent, or throws.
using IsolatedWork = std::function<std::string()>;

/// Runs each of `works` in its own forked child, at most `parallel` at once, each killed after
/// `timeout_seconds`; results come back in order. The children share nothing with the parent
/// after the fork, so the work must return everything the parent needs.
std::vector<IsolatedResult> RunIsolated(const std::vector<IsolatedWork>& works, int parallel,
                                        double timeout_seconds);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_MEASURE_ISOLATED_CALL_H_
