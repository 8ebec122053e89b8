#include "compiler/lower/make_packed_api.h"

#include <sstream>

#include "compiler/ir/builtin.h"
#include "compiler/ir/op.h"
#include "runtime/c_backend_api.h"

namespace tessera {
namespace lower {

namespace {

using ir::DataType;
using ir::Expr;
using ir::Stmt;

Expr I32(int64_t v) { return ir::IntImm(DataType::Int(32), v); }
Expr I64(int64_t v) { return ir::IntImm(DataType::Int(64), v); }

}  // namespace

ir::PrimFunc MakePackedAPI(const std::string& name, const std::vector<ArgBuffer>& args,
                           const Stmt& body) {
  ir::Var v_args("args", DataType::Handle()), v_codes("type_codes", DataType::Handle());
  ir::Var v_num("num_args", DataType::Int(32)), v_ret("ret", DataType::Handle());
  ir::Var v_ret_code("ret_code", DataType::Handle()), v_resource("resource", DataType::Handle());

  // Built inside out: the body first, then each argument's checks around it, last to first.
  Stmt stmt = body;
  for (size_t i = args.size(); i-- > 0;) {
    const ArgBuffer& arg = args[i];
    const std::vector<int64_t> shape = arg.StorageShape();
    std::string where = name + ": argument " + std::to_string(i) + " ('" + arg.tensor.name() + "')";
    ir::Var handle(arg.tensor.name() + ".handle", DataType::Handle());
    std::vector<std::pair<Expr, std::string>> checks;
    DataType t = arg.tensor.dtype();
    checks.push_back(
        {ir::Call(DataType::Int(32), ir::builtin::kTensorDeviceType, {handle}) == I32(kDLCPU),
         where + " must be on the CPU"});
    checks.push_back({ir::Call(DataType::Int(32), ir::builtin::kTensorNDim, {handle}) ==
                          I32(static_cast<int64_t>(shape.size())),
                      where + " must have " + std::to_string(shape.size()) + " dimensions"});
    Expr dtype_ok =
        ir::Call(DataType::Int(32), ir::builtin::kTensorDTypeCode, {handle}) == I32(t.code()) &&
        ir::Call(DataType::Int(32), ir::builtin::kTensorDTypeBits, {handle}) == I32(t.bits()) &&
        ir::Call(DataType::Int(32), ir::builtin::kTensorDTypeLanes, {handle}) == I32(1);
    checks.push_back({dtype_ok, where + " must have dtype " + ir::ToString(t)});
    std::ostringstream shape_text;
    shape_text << "[";
    for (size_t d = 0; d < shape.size(); ++d) shape_text << (d ? ", " : "") << shape[d];
    shape_text << "]";
    for (size_t d = 0; d < shape.size(); ++d) {
      checks.push_back({ir::Call(DataType::Int(64), ir::builtin::kTensorShape, {handle, I32(d)}) ==
                            I64(shape[d]),
                        where + " must have shape " + shape_text.str() + " (dimension " +
                            std::to_string(d) + " differs)"});
    }
    Expr compact = ir::Call(DataType::Bool(), ir::builtin::kIsNull,
                            {ir::Call(DataType::Handle(), ir::builtin::kTensorStrides, {handle})});
    Expr strides_ok = I32(1) == I32(1);
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      if (shape[d] != 1) {
        strides_ok = strides_ok && ir::Call(DataType::Int(64), ir::builtin::kTensorStride,
                                            {handle, I32(d)}) == I64(stride);
      }
      stride *= shape[d];
    }
    checks.push_back({compact || strides_ok, where + " must be compact (row-major without gaps)"});
    Expr data = ir::Call(DataType::Handle(), ir::builtin::kHandleAddBytes,
                         {ir::Call(DataType::Handle(), ir::builtin::kTensorData, {handle}),
                          ir::Call(DataType::Int(64), ir::builtin::kTensorByteOffset, {handle})});
    Stmt inner = ir::AssertStmt(
        ir::Call(DataType::Bool(), ir::builtin::kHandleIsAligned, {arg.data, I32(64)}),
        where + " must be 64-byte aligned", stmt);
    inner = ir::LetStmt(arg.data, data, inner);
    for (size_t c = checks.size(); c-- > 0;)
      inner = ir::AssertStmt(checks[c].first, checks[c].second, inner);
    Expr code = ir::Call(DataType::Int(32), ir::builtin::kArgTypeCode, {v_codes, I32(i)});
    inner = ir::LetStmt(
        handle, ir::Call(DataType::Handle(), ir::builtin::kArgHandle, {v_args, I32(i)}), inner);
    stmt = ir::AssertStmt(code == I32(kTesseraDLTensorHandle) || code == I32(kTesseraNDArrayHandle),
                          where + " must be a tensor", inner);
  }
  std::string names;
  for (size_t i = 0; i < args.size(); ++i) names += (i ? ", " : "") + args[i].tensor.name();
  stmt = ir::AssertStmt(
      v_num == I32(static_cast<int64_t>(args.size())),
      name + ": expected " + std::to_string(args.size()) + " arguments (" + names + ")", stmt);
  return ir::PrimFunc(name, {v_args, v_codes, v_num, v_ret, v_ret_code, v_resource}, stmt,
                      {{"calling_convention", "packed"}});
}

}  // namespace lower
}  // namespace tessera
