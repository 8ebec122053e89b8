/// \file
/// Workload keys compared as shapes: "conv2d_NCHWc.x86(1,64,56,56,...)" read as its numbers and
/// its other arguments, so that keys of one template can be ranked by how far apart they lie.
/// Shared by builds (the nearest tuned shape's config) and model tuning (the same kernel in
/// another batch bucket).
#ifndef TESSERA_TUNER_TUNE_WORKLOAD_ARGS_H_
#define TESSERA_TUNER_TUNE_WORKLOAD_ARGS_H_

#include <string>
#include <vector>

namespace tessera {
namespace tuner {

/// The arguments of a workload key: its template name, its numeric arguments in order, and its
/// other arguments joined ("float32,").
struct WorkloadArgs {
  std::string templ;            ///< the template name (`records::TemplateOfWorkload`)
  std::vector<double> numbers;  ///< the numeric arguments
  std::string others;           ///< the rest, each followed by ','
};

/// Parses `workload_key` (a key without parentheses gives its whole text as the template name).
WorkloadArgs ArgsOf(const std::string& workload_key);

/// How far two shapes of one template lie apart: the sum of their numeric arguments' log ratios
/// (log1p of each), infinite when their templates, other arguments or argument counts differ.
double ShapeDistance(const WorkloadArgs& a, const WorkloadArgs& b);

/// How many numeric arguments of `a` and `b` differ; -1 when they are not of one template with
/// the same other arguments and argument count.
int DifferingNumbers(const WorkloadArgs& a, const WorkloadArgs& b);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_WORKLOAD_ARGS_H_
