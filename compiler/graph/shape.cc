#include "compiler/graph/shape.h"

#include <algorithm>

#include "compiler/graph/graph.h"
#include "compiler/support/error.h"

namespace tessera {
namespace graph {

std::vector<int64_t> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                     const std::string& where) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    TESSERA_USER_CHECK(da == db || da == 1 || db == 1)
        << where << ": shapes " << ShapeString(a) << " and " << ShapeString(b)
        << " do not broadcast";
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t NormalizeAxis(int64_t axis, int64_t rank, const std::string& where) {
  int64_t a = axis < 0 ? axis + rank : axis;
  TESSERA_USER_CHECK(a >= 0 && a < rank)
      << where << ": axis " << axis << " is out of range for rank " << rank;
  return a;
}

}  // namespace graph
}  // namespace tessera
