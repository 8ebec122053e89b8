/// \file
/// The error type of the tuning log.
#ifndef TESSERA_RECORDS_LOG_ERROR_H_
#define TESSERA_RECORDS_LOG_ERROR_H_

#include <string>

#include "common/error.h"

namespace tessera {
namespace records {

/// A tuning log that cannot be used as asked: missing, corrupt, of a newer schema, a bad JSON line.
/// The message names the file (and line, for imports). A user error: programs exit 2 on it.
class LogError : public UserError {
 public:
  /// Creates the error with a complete message.
  explicit LogError(const std::string& msg) : UserError(msg) {}
};

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_LOG_ERROR_H_
