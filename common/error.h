/// \file
/// The error types every module shares, and the streaming builder that throws them. Header only
/// and libc++ only, so that the runtime can use it too.
///
/// - `UserError`: bad input (a schedule primitive used wrongly, an unknown target, a malformed
///   flag or file); the message says what and where. Programs exit 2 on it.
/// - `ConfigError`: a `UserError` in a program's configuration (flags, token files, state
///   directories).
/// - `ExternalError`: something outside the program failed (a server unreachable, a device lost,
///   a request refused); trying again later may work. Programs exit 1 on it.
/// - `InternalError`: a broken invariant inside Tessera, always a bug; its message starts with
///   "internal error: ". Programs exit 70 on it (and on any other exception).
#ifndef TESSERA_COMMON_ERROR_H_
#define TESSERA_COMMON_ERROR_H_

#include <sstream>
#include <stdexcept>
#include <string>

namespace tessera {

/// An error caused by the user's input; the message is complete and says what and where.
class UserError : public std::runtime_error {
 public:
  /// Creates an error with a user-readable message.
  explicit UserError(const std::string& msg) : std::runtime_error(msg) {}
};

/// Bad configuration of a program (unreadable token file, malformed flag value, unusable
/// directory); the message names what and where.
class ConfigError : public UserError {
 public:
  /// Creates an error with a complete, user-readable message.
  explicit ConfigError(const std::string& msg) : UserError(msg) {}
};

/// Something outside the program failed: a server unreachable, a device lost, a request refused.
class ExternalError : public std::runtime_error {
 public:
  /// Creates an error with a complete, user-readable message.
  explicit ExternalError(const std::string& msg) : std::runtime_error(msg) {}
};

/// A bug in Tessera; the message is prefixed with "internal error: ".
class InternalError : public std::logic_error {
 public:
  /// Creates an internal error.
  explicit InternalError(const std::string& msg) : std::logic_error("internal error: " + msg) {}
};

namespace fleet {
/// The fleet's name for `tessera::ConfigError`, from before the error types had a common home.
using ConfigError = ::tessera::ConfigError;
}  // namespace fleet

namespace detail {
/// Collects a streamed message and throws it as `E` when destroyed.
template <typename E>
class ErrorBuilder {
 public:
  ErrorBuilder() = default;
  ErrorBuilder(const ErrorBuilder&) = delete;
  ~ErrorBuilder() noexcept(false) { throw E(stream_.str()); }
  /// Appends `value` to the message.
  template <typename T>
  ErrorBuilder& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace tessera

/// Throws `E` with the streamed message when `cond` is false.
#define TESSERA_THROW_UNLESS(cond, E) \
  if (cond) {                         \
  } else                              \
    ::tessera::detail::ErrorBuilder<E>()

/// Throws `tessera::UserError` with the streamed message when `cond` is false.
#define TESSERA_USER_CHECK(cond) TESSERA_THROW_UNLESS(cond, ::tessera::UserError)

/// Throws `tessera::UserError` with the streamed message.
#define TESSERA_USER_ERROR() ::tessera::detail::ErrorBuilder<::tessera::UserError>()

/// Throws `tessera::InternalError` when `cond` is false, naming the condition and place.
#define TESSERA_INTERNAL_CHECK(cond)                   \
  TESSERA_THROW_UNLESS(cond, ::tessera::InternalError) \
      << __FILE__ << ":" << __LINE__ << ": check failed: " #cond ": "

/// Throws `tessera::InternalError` with the streamed message.
#define TESSERA_INTERNAL_ERROR() \
  ::tessera::detail::ErrorBuilder<::tessera::InternalError>() << __FILE__ << ":" << __LINE__ << ": "

#endif  // TESSERA_COMMON_ERROR_H_
