/// \file
/// The compiler's error types: `UserError` for bad input, `InternalError` for compiler bugs, and
/// the `TESSERA_USER_CHECK` / `TESSERA_INTERNAL_CHECK` macros. They live in `common/error.h`,
/// shared with every module; this header stays for the compiler's existing includes.
#ifndef TESSERA_COMPILER_SUPPORT_ERROR_H_
#define TESSERA_COMPILER_SUPPORT_ERROR_H_

#include "common/error.h"

#endif  // TESSERA_COMPILER_SUPPORT_ERROR_H_
