/// \file
/// Test helper: the message of the `UserError` that a call throws, so tests can pin messages.
#ifndef TESSERA_TESTS_COMPILER_TESTING_USER_ERROR_H_
#define TESSERA_TESTS_COMPILER_TESTING_USER_ERROR_H_

#include <exception>
#include <functional>
#include <string>

#include "compiler/support/error.h"

namespace tessera {
namespace testing {

/// The message of the `UserError` that `f` throws; "<no UserError>" when it returns, and
/// "<other exception> ..." for any other exception.
inline std::string UserErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<other exception> ") + e.what();
  }
  return "<no UserError>";
}

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_TESTING_USER_ERROR_H_
