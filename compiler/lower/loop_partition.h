/// \file
/// Loop partitioning of tail guards: an innermost (or vectorized) loop whose body is guarded by
/// conditions that depend only on its own variable and on enclosing variables is split into a
/// fast copy without those guards, run when they hold for the whole loop, and the original
/// guarded copy for the tail: `if (guards hold for all v) loop-without-guards else loop`. This
/// keeps non-divisible splits correct while full tiles run branch-free and vectorized.
#ifndef TESSERA_COMPILER_LOWER_LOOP_PARTITION_H_
#define TESSERA_COMPILER_LOWER_LOOP_PARTITION_H_

#include "compiler/ir/stmt.h"

namespace tessera {
namespace lower {

/// `body` with guarded innermost and vectorized loops partitioned into a fast path and a tail.
ir::Stmt PartitionLoops(const ir::Stmt& body);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_LOOP_PARTITION_H_
