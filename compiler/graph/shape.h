/// \file
/// Shape arithmetic shared by the operators of the graph IR: numpy-style broadcasting and axis
/// normalization.
#ifndef TESSERA_COMPILER_GRAPH_SHAPE_H_
#define TESSERA_COMPILER_GRAPH_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {
namespace graph {

/// Numpy-style broadcast of two shapes; throws `UserError` mentioning `where` when they do not
/// broadcast.
std::vector<int64_t> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                     const std::string& where);

/// `axis` (which may be negative) as an index into a rank-`rank` tensor; throws `UserError`
/// mentioning `where` when it is out of range.
int64_t NormalizeAxis(int64_t axis, int64_t rank, const std::string& where);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_SHAPE_H_
