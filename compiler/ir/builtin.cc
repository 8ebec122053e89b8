#include "compiler/ir/builtin.h"

#include <set>

namespace tessera {
namespace ir {
namespace builtin {

bool IsPureMath(const std::string& name) {
  static const std::set<std::string> kMath = {"exp",   "log",  "sqrt",  "tanh", "sigmoid", "fabs",
                                              "floor", "ceil", "round", "pow",  "fma",     "erf"};
  return kMath.count(name) != 0;
}

bool IsPure(const std::string& name) {
  return IsPureMath(name) || name == kDot4U8S8 || name == kLikely || name == kIfThenElse;
}

}  // namespace builtin
}  // namespace ir
}  // namespace tessera
