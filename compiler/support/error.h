/// \file
/// Exception types of the compiler. `UserError` reports bad input (a schedule primitive used
/// wrongly, a wrong argument list, an unknown target); its message says what and where.
/// `InternalError` reports a broken invariant inside the compiler: always a bug.
#ifndef TESSERA_COMPILER_SUPPORT_ERROR_H_
#define TESSERA_COMPILER_SUPPORT_ERROR_H_

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

/// A compiler bug; the message is prefixed with "internal compiler error: ".
class InternalError : public std::logic_error {
 public:
  /// Creates an internal error.
  explicit InternalError(const std::string& msg)
      : std::logic_error("internal compiler error: " + msg) {}
};

namespace detail {
/// Collects a streamed message and throws it as `E` when destroyed.
template <typename E>
class CompilerErrorBuilder {
 public:
  CompilerErrorBuilder() = default;
  CompilerErrorBuilder(const CompilerErrorBuilder&) = delete;
  ~CompilerErrorBuilder() noexcept(false) { throw E(stream_.str()); }
  /// Appends `value` to the message.
  template <typename T>
  CompilerErrorBuilder& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace tessera

/// Throws `tessera::UserError` with the streamed message when `cond` is false.
#define TESSERA_USER_CHECK(cond) \
  if (cond) {                    \
  } else                         \
    ::tessera::detail::CompilerErrorBuilder<::tessera::UserError>()

/// Throws `tessera::UserError` with the streamed message.
#define TESSERA_USER_ERROR() ::tessera::detail::CompilerErrorBuilder<::tessera::UserError>()

/// Throws `tessera::InternalError` when `cond` is false, naming the condition and place.
#define TESSERA_INTERNAL_CHECK(cond)                                             \
  if (cond) {                                                                    \
  } else                                                                         \
    ::tessera::detail::CompilerErrorBuilder<::tessera::InternalError>()          \
        << __FILE__ << ":" << __LINE__ << ": check failed: " #cond ": "

/// Throws `tessera::InternalError` with the streamed message.
#define TESSERA_INTERNAL_ERROR()                                        \
  ::tessera::detail::CompilerErrorBuilder<::tessera::InternalError>() \
      << __FILE__ << ":" << __LINE__ << ": "

#endif  // TESSERA_COMPILER_SUPPORT_ERROR_H_
