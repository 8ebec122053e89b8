/// \file
/// How the daemons stop: SIGINT or SIGTERM, taken synchronously by the main thread so that
/// servers shut down and state is closed properly instead of a handler running at a random point.
#ifndef TESSERA_COMMON_SHUTDOWN_SIGNALS_H_
#define TESSERA_COMMON_SHUTDOWN_SIGNALS_H_

namespace tessera {

/// Blocks SIGINT and SIGTERM in the calling thread. Call it before any thread starts: threads
/// inherit the mask, so only `WaitForShutdownSignal` ever sees these signals.
void BlockShutdownSignals();

/// Waits until SIGINT or SIGTERM arrives (they must be blocked) and returns which one.
int WaitForShutdownSignal();

}  // namespace tessera

#endif  // TESSERA_COMMON_SHUTDOWN_SIGNALS_H_
