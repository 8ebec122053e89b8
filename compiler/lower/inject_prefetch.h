/// \file
/// Software prefetches from `Stage::prefetch`: a loop annotated `prefetch_next` (buffer, spread
/// loop) gets, at the start of each iteration of its inner loop `spread`, a prefetch of the next
/// cache line of the region of the buffer that the loop's *next* iteration reads, so the lines of
/// that region are requested one by one over the whole iteration. The region is the span of the
/// buffer's loads in the loop body with the inner loops relaxed (64-byte lines); a region the
/// analysis cannot bound, or larger than 256 KB, gets no prefetch. The annotations are removed.
#ifndef TESSERA_COMPILER_LOWER_INJECT_PREFETCH_H_
#define TESSERA_COMPILER_LOWER_INJECT_PREFETCH_H_

#include "compiler/ir/stmt.h"

namespace tessera {
namespace lower {

/// `body` with the `prefetch_next` annotations replaced by prefetches (`emit` true) or dropped
/// (`emit` false: targets without software prefetch, such as GPUs).
ir::Stmt InjectPrefetch(const ir::Stmt& body, bool emit);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_INJECT_PREFETCH_H_
