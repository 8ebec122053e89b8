/// \file
/// The packed-API wrapper: turns a body over argument buffers into a function with the
/// `TesseraPackedCFunc` parameters (args, type_codes, num_args, ret, ret_code, resource). The
/// wrapper checks the argument count and, for each tensor, its type code, device, ndim, dtype,
/// shape, compactness and 64-byte alignment, naming the function and argument on a mismatch,
/// then binds each buffer's data pointer.
#ifndef TESSERA_COMPILER_LOWER_MAKE_PACKED_API_H_
#define TESSERA_COMPILER_LOWER_MAKE_PACKED_API_H_

#include <string>
#include <vector>

#include "compiler/ir/function.h"
#include "compiler/lower/storage_flatten.h"

namespace tessera {
namespace lower {

/// The packed-API function `name` running `body` over `args`.
ir::PrimFunc MakePackedAPI(const std::string& name, const std::vector<ArgBuffer>& args,
                           const ir::Stmt& body);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_MAKE_PACKED_API_H_
