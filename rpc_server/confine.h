/// \file
/// Confinement of the call worker (the process that runs uploaded code), applied by the worker
/// itself right after it starts and before it reads any request: `no_new_privs`; an unprivileged
/// user when the server runs as root; no network (a network namespace where the kernel allows
/// one, and a seccomp filter that refuses `socket()`); writes only in its session directory and
/// reads only there and in the system's directories (Landlock). Each step the kernel refuses is
/// named in the report, which the server logs; the steps that must hold (the session directory,
/// `no_new_privs`, the user change) stop the worker instead.
#ifndef TESSERA_RPC_SERVER_CONFINE_H_
#define TESSERA_RPC_SERVER_CONFINE_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace tessera {
namespace fleet {

/// What a worker is confined to; passed from the server on the worker's command line.
struct WorkerConfinement {
  std::string directory;               ///< the session directory: the worker's working directory
  uid_t uid = static_cast<uid_t>(-1);  ///< user to run as; -1 keeps the server's
  gid_t gid = static_cast<gid_t>(-1);  ///< group to run as, with `uid`
};

/// What `ConfineWorker` put in force and what the kernel refused, one phrase per step.
struct ConfinementReport {
  std::vector<std::string> in_force;  ///< e.g. "no_new_privs", "user 65534:65534"
  std::vector<std::string> refused;   ///< e.g. "network namespace: unshare: Operation not ..."
  std::string fatal;                  ///< set when the worker must not run any code
  /// One line: "in force: a, b; not in force: c (why)".
  std::string Text() const;
};

/// Confines the calling process (which must still be single-threaded for the network namespace)
/// as `confinement` says. Never throws; `fatal` is set when a step that must hold failed.
ConfinementReport ConfineWorker(const WorkerConfinement& confinement);

/// Resolves the user `name` (or a numeric uid) into `uid` and its primary group `gid`; returns
/// false, with `why`, when there is no such user.
bool LookUpUser(const std::string& name, uid_t* uid, gid_t* gid, std::string* why);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_RPC_SERVER_CONFINE_H_
