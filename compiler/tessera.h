/// \file
/// The public compiler API in one header: tensor expressions and schedules (`te::`), the
/// reference evaluator that checks a schedule's results (`te::ReferenceEvaluator`), the
/// loop-level IR (`ir::`), lowering, targets and `build`, and the runtime types a built module
/// is used with. Link `//compiler:tessera`.
///
///   using namespace tessera;
///   te::Tensor A = te::placeholder({n, k}, DataType::Float(32), "A");
///   ...
///   runtime::Module mod = build(s, {A, B, C}, Target("llvm -mcpu=native"), "matmul");
///   mod.export_library("matmul.so");
#ifndef TESSERA_COMPILER_TESSERA_H_
#define TESSERA_COMPILER_TESSERA_H_

#include "compiler/driver/build.h"
#include "compiler/driver/target.h"
#include "compiler/ir/data_type.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/function.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/stmt.h"
#include "compiler/lower/lower.h"
#include "compiler/support/error.h"
#include "compiler/te/reference_evaluator.h"
#include "compiler/te/schedule.h"
#include "compiler/te/tensor.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/packed_func.h"

namespace tessera {

/// The IR's value types, usable unqualified after `using namespace tessera`.
using ir::DataType;
using ir::Expr;
using ir::Var;

}  // namespace tessera

#endif  // TESSERA_COMPILER_TESSERA_H_
