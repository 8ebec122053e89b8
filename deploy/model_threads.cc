// The thread count a model runs with: the caller's, the environment's, or its target's.
#include <atomic>
#include <cstdlib>
#include <string>

#include "deploy/artifact.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace deploy {
namespace {

// Whether the pool's size was last set here from a target (so that a later model whose target
// names no count gets the default back rather than the previous model's count).
std::atomic<bool> sized_for_a_target{false};

}  // namespace

int TargetThreadCount(const std::string& target) {
  const std::string flag = "-num-threads=";
  int count = 0;
  for (size_t at = target.find(flag); at != std::string::npos; at = target.find(flag, at + 1)) {
    if (at > 0 && target[at - 1] != ' ') continue;  // part of another word
    const size_t end = target.find(' ', at);
    const std::string digits = target.substr(
        at + flag.size(), end == std::string::npos ? std::string::npos : end - at - flag.size());
    char* stop = nullptr;
    const long n = std::strtol(digits.c_str(), &stop, 10);
    count = (!digits.empty() && *stop == '\0' && n > 0 && n <= 4096) ? static_cast<int>(n) : 0;
  }
  return count;
}

int UseModelThreads(const ArtifactHeader& header, int requested) {
  const char* environment = std::getenv("TESSERA_NUM_THREADS");
  const bool from_environment = environment != nullptr && *environment != '\0';
  int wanted = requested;
  if (wanted <= 0 && !from_environment) wanted = TargetThreadCount(header.target);
  if (wanted > 0) {
    if (runtime::NumThreads() != wanted) runtime::SetNumThreads(wanted);
    sized_for_a_target = requested <= 0;
  } else if (sized_for_a_target.exchange(false)) {
    runtime::SetNumThreads(0);
  }
  return runtime::NumThreads();
}

}  // namespace deploy
}  // namespace tessera
