/// \file
/// Rows split across threads: the parallel loop of a blocked template's output runs over parts of
/// the image's rows, one per thread, instead of over its channel blocks. Consecutive layers split
/// so compute the same rows on the same thread, and each thread reads the activations its own core
/// wrote. Split by channels, every 1×1 convolution reads the other threads' channels from their
/// cores' caches: on a 2-core AMD EPYC VM a core read another core's freshly written lines at
/// 28–35 GB/s against 70–110 from its own cache, and MobileNetV2's kernels at two threads ran
/// 1.0–1.2× their one-thread speed in the model while 1.6–1.9× timed alone.
#ifndef TESSERA_COMPILER_TOPI_ROW_PARTS_H_
#define TESSERA_COMPILER_TOPI_ROW_PARTS_H_

#include <cstdint>

#include "compiler/space/config_space.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/vector_unit.h"

namespace tessera {
namespace topi {

/// Bytes of a float32 convolution's input and output, `out_channels` output channels.
int64_t ActivationBytes(const Conv2dShape& shape, int64_t out_channels);

/// Defines the knob `row_parts` in `space`, of one value: `unit.threads` when the code runs at
/// more than one thread and the layer's input and output (`activation_bytes`) weigh at least a
/// quarter of its weights. Split by rows, each thread reads all the weights, so weight-heavy
/// layers (ResNet-50's last ones, megabytes of weights for 7x7 images) keep the channel split.
/// Without the knob (one thread, or weight-heavy) a config splits by channels.
void DefineRowParts(space::ConfigSpace& space, const VectorUnit& unit, int64_t activation_bytes,
                    int64_t weight_bytes);

/// The row parts `config` asks for, for an output of `row_tiles` tiles of rows: its `row_parts`
/// when those tiles split evenly into them or are at least four per part (the parts then differ
/// by at most a quarter), else 1 (split by channels).
int64_t RowPartsOf(const space::ConfigEntity& config, int64_t row_tiles);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_ROW_PARTS_H_
