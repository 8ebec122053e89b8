/// \file
/// Zero halos: a function whose output argument has a halo (`ArgBuffer::halo`) writes zeros
/// there before its body, so that a reader finds the tensor's zero padding around it (a
/// convolution then reads its padded input in place instead of copying it into a padded buffer).
/// Runs on flat buffers, after storage_flatten; only the halo is written.
#ifndef TESSERA_COMPILER_LOWER_ZERO_HALO_H_
#define TESSERA_COMPILER_LOWER_ZERO_HALO_H_

#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/lower/storage_flatten.h"

namespace tessera {
namespace lower {

/// `body` preceded by loops storing zero into the halo of every output in `args` that has one.
ir::Stmt ZeroOutputHalos(const ir::Stmt& body, const std::vector<ArgBuffer>& args);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_ZERO_HALO_H_
