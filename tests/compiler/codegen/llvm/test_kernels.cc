#include "tests/compiler/codegen/llvm/test_kernels.h"

#include "compiler/ir/builtin.h"
#include "compiler/ir/op.h"

namespace tessera {
namespace codegen {
namespace testing {

using ir::DataType;
using ir::Expr;
using ir::Stmt;

PackedFunction::PackedFunction(std::string name, int num_tensors)
    : name_(std::move(name)),
      args_("args", DataType::Handle()),
      codes_("type_codes", DataType::Handle()),
      num_args_("num_args", DataType::Int(32)),
      n_("n", DataType::Int(32)) {
  for (int i = 0; i < num_tensors; ++i) {
    tensors_.emplace_back("t" + std::to_string(i), DataType::Handle());
    data_.emplace_back("d" + std::to_string(i), DataType::Handle());
  }
}

ir::PrimFunc PackedFunction::Make(Stmt body) const {
  const int count = static_cast<int>(tensors_.size());
  for (int i = count - 1; i >= 0; --i) {
    body = ir::LetStmt(data_[i],
                       ir::Call(DataType::Handle(), ir::builtin::kTensorData, {tensors_[i]}), body);
  }
  body = ir::LetStmt(
      n_,
      ir::cast(DataType::Int(32),
               ir::Call(DataType::Int(64), ir::builtin::kTensorShape, {tensors_[0], 0})),
      body);
  for (int i = count - 1; i >= 0; --i) {
    body = ir::LetStmt(tensors_[i],
                       ir::Call(DataType::Handle(), ir::builtin::kArgHandle, {args_, i}), body);
  }
  body =
      ir::AssertStmt(ir::EQ(num_args_, Expr(count)), name_ + ": wrong number of arguments", body);
  ir::Var ret("ret", DataType::Handle()), ret_code("ret_code", DataType::Handle()),
      resource("resource", DataType::Handle());
  return ir::PrimFunc(name_, {args_, codes_, num_args_, ret, ret_code, resource}, body);
}

ir::PrimFunc ParallelAxpy() {
  const DataType f32 = DataType::Float(32);
  PackedFunction f("axpy", 2);
  ir::Var i("i", DataType::Int(32));
  Stmt store = ir::Store(f.data(1),
                         Expr(1.5f) * ir::Load(f32, f.data(0), i) + ir::Load(f32, f.data(1), i), i);
  return f.Make(ir::For(i, 0, f.n(), ir::ForKind::kParallel, store));
}

ir::PrimFunc VectorExpWithTail() {
  const DataType f32 = DataType::Float(32);
  PackedFunction f("vexp", 2);
  ir::Var io("io", DataType::Int(32)), t("t", DataType::Int(32));
  Expr ramp = ir::Ramp(io * 8, 1, 8);
  Stmt vector_part = ir::For(io, 0, ir::floordiv(f.n(), 8), ir::ForKind::kSerial,
                             ir::Store(f.data(1), ir::exp(ir::Load(f32, f.data(0), ramp)), ramp));
  Expr tail_index = ir::floordiv(f.n(), 8) * 8 + t;
  Stmt tail =
      ir::For(t, 0, ir::floormod(f.n(), 8), ir::ForKind::kSerial,
              ir::Store(f.data(1), ir::tanh(ir::Load(f32, f.data(0), tail_index)), tail_index));
  return f.Make(ir::SeqStmt({vector_part, tail}));
}

}  // namespace testing
}  // namespace codegen
}  // namespace tessera
