#include "common/shutdown_signals.h"

#include <pthread.h>
#include <signal.h>

namespace tessera {
namespace {

sigset_t ShutdownSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

void BlockShutdownSignals() {
  sigset_t signals = ShutdownSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

int WaitForShutdownSignal() {
  sigset_t signals = ShutdownSignals();
  int received = 0;
  sigwait(&signals, &received);
  return received;
}

}  // namespace tessera
