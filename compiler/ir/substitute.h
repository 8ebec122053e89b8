/// \file
/// Replacing variables by expressions, and asking which variables a tree uses.
#ifndef TESSERA_COMPILER_IR_SUBSTITUTE_H_
#define TESSERA_COMPILER_IR_SUBSTITUTE_H_

#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/stmt.h"

namespace tessera {
namespace ir {

/// Variable node → replacement.
using VarMap = std::unordered_map<const Object*, Expr>;

/// `e` with every use of a variable in `vars` replaced.
Expr Substitute(const Expr& e, const VarMap& vars);
/// `s` with every use of a variable in `vars` replaced.
Stmt Substitute(const Stmt& s, const VarMap& vars);
/// True when `e` uses one of `vars`.
bool UsesVar(const Expr& e, const std::unordered_set<const Object*>& vars);
/// True when `s` uses one of `vars`.
bool UsesVar(const Stmt& s, const std::unordered_set<const Object*>& vars);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_SUBSTITUTE_H_
