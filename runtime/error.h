/// \file
/// Exception types of the runtime. `Error` is a user-facing error (bad input, missing function,
/// unusable file), a `tessera::UserError`; `InternalError` is a bug in Tessera itself. Both come
/// from the header-only `common/error.h`, the one error builder of the project.
#ifndef TESSERA_RUNTIME_ERROR_H_
#define TESSERA_RUNTIME_ERROR_H_

#include <string>

#include "common/error.h"

namespace tessera {
namespace runtime {

/// An error caused by the caller's input or environment; the message says what and where.
class Error : public UserError {
 public:
  /// Creates an error with a complete, user-readable message.
  explicit Error(const std::string& msg) : UserError(msg) {}
};

/// A broken invariant inside Tessera: always a bug to report.
using InternalError = ::tessera::InternalError;

}  // namespace runtime
}  // namespace tessera

/// Throws `tessera::runtime::Error` with the streamed message when `cond` is false.
#define TESSERA_CHECK(cond) TESSERA_THROW_UNLESS(cond, ::tessera::runtime::Error)

/// Throws `tessera::runtime::InternalError` when `cond` is false, naming the condition.
#define TESSERA_ICHECK(cond) TESSERA_INTERNAL_CHECK(cond)

#endif  // TESSERA_RUNTIME_ERROR_H_
