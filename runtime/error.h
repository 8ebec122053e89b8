/// \file
/// Exception types of the runtime. `Error` is a user-facing error (bad input, missing function,
/// unusable file); `InternalError` is a bug in Tessera itself.
#ifndef TESSERA_RUNTIME_ERROR_H_
#define TESSERA_RUNTIME_ERROR_H_

#include <sstream>
#include <stdexcept>
#include <string>

namespace tessera {
namespace runtime {

/// An error caused by the caller's input or environment; the message says what and where.
class Error : public std::runtime_error {
 public:
  /// Creates an error with a complete, user-readable message.
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

/// A broken invariant inside Tessera: always a bug to report.
class InternalError : public std::logic_error {
 public:
  /// Creates an internal error; the message is prefixed with "internal error: ".
  explicit InternalError(const std::string& msg) : std::logic_error("internal error: " + msg) {}
};

namespace detail {
/// Builds a message from streamed parts and throws it as `E` when destroyed.
template <typename E>
class ErrorBuilder {
 public:
  ErrorBuilder() = default;
  ErrorBuilder(const ErrorBuilder&) = delete;
  ~ErrorBuilder() noexcept(false) { throw E(stream_.str()); }
  template <typename T>
  ErrorBuilder& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace runtime
}  // namespace tessera

/// Throws `tessera::runtime::Error` with the streamed message when `cond` is false.
#define TESSERA_CHECK(cond) \
  if (cond) {               \
  } else                    \
    ::tessera::runtime::detail::ErrorBuilder<::tessera::runtime::Error>()

/// Throws `tessera::runtime::InternalError` when `cond` is false, naming the condition.
#define TESSERA_ICHECK(cond)                                                      \
  if (cond) {                                                                     \
  } else                                                                          \
    ::tessera::runtime::detail::ErrorBuilder<::tessera::runtime::InternalError>() \
        << __FILE__ << ":" << __LINE__ << ": check failed: " #cond ": "

#endif  // TESSERA_RUNTIME_ERROR_H_
