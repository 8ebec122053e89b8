/// \file
/// Private to compiler/task: the CUDA templates (`dense.cuda`, `conv2d_nchw.cuda`,
/// `depthwise_conv2d.cuda`), made from the x86 templates of the same computation (same
/// arguments, reference and baseline) with the GPU config spaces and schedules.
#ifndef TESSERA_COMPILER_TASK_TEMPLATES_CUDA_H_
#define TESSERA_COMPILER_TASK_TEMPLATES_CUDA_H_

#include <vector>

#include "compiler/task/task.h"

namespace tessera {
namespace task {

/// The CUDA templates; `x86` holds "dense.x86", "conv2d_NCHWc.x86" and "depthwise_conv2d.x86".
std::vector<TemplateDef> CUDATemplates(const std::vector<TemplateDef>& x86);

}  // namespace task
}  // namespace tessera

#endif  // TESSERA_COMPILER_TASK_TEMPLATES_CUDA_H_
