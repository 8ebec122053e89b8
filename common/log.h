/// \file
/// A minimal leveled log for the daemons (Debian 12's Abseil, 20220623, predates absl/log): one
/// line per event on standard error, `2026-11-23T13:20:00.123Z INFO server registered key=cpu
/// server=1a2b address=10.0.0.5:9091`, written whole even when threads log at once. Events name
/// their subjects as key=value pairs. The level is process-wide (`--log-level` of the daemons).
///
///     TESSERA_LOG(kInfo) << "grant issued key=" << key << " session=" << id;
#ifndef TESSERA_COMMON_LOG_H_
#define TESSERA_COMMON_LOG_H_

#include <sstream>
#include <string>

namespace tessera {

/// How much is logged: everything at or above the level.
enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

/// Sets the process-wide level (default `kInfo`).
void SetLogLevel(LogLevel level);

/// True when lines of `level` are written.
bool LogEnabled(LogLevel level);

/// The level named `name` (debug, info, warning, error); throws `ConfigError` for another name.
LogLevel ParseLogLevel(const std::string& name);

/// Writes one line of `level` (timestamp and level name added) to standard error, or to the
/// stream set by `SetLogStreamForTesting`.
void WriteLogLine(LogLevel level, const std::string& text);

/// Redirects log lines to `out` (nullptr: back to standard error); for tests.
void SetLogStreamForTesting(std::ostream* out);

/// Collects one streamed line and writes it when destroyed.
class LogMessage {
 public:
  /// A line of `level`.
  explicit LogMessage(LogLevel level) : level_(level) {}
  LogMessage(const LogMessage&) = delete;
  /// Writes the line.
  ~LogMessage() { WriteLogLine(level_, stream_.str()); }
  /// Appends `value` to the line.
  template <typename T>
  LogMessage& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};

}  // namespace tessera

/// Streams one log line of `level` (kDebug, kInfo, kWarning, kError); nothing is evaluated when
/// the level is off.
#define TESSERA_LOG(level)                                  \
  if (!::tessera::LogEnabled(::tessera::LogLevel::level)) { \
  } else                                                    \
    ::tessera::LogMessage(::tessera::LogLevel::level)

#endif  // TESSERA_COMMON_LOG_H_
