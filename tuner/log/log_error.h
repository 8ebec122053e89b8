/// \file
/// The error type of the tuning log.
#ifndef TESSERA_TUNER_LOG_LOG_ERROR_H_
#define TESSERA_TUNER_LOG_LOG_ERROR_H_

#include <stdexcept>
#include <string>

namespace tessera {
namespace tuner {

/// A tuning log that cannot be used as asked: missing, corrupt, of a newer schema, a bad JSON line.
/// The message names the file (and line, for imports).
class LogError : public std::runtime_error {
 public:
  /// Creates the error with a complete message.
  explicit LogError(const std::string& msg) : std::runtime_error(msg) {}
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_LOG_LOG_ERROR_H_
