/// \file
/// `PrimFunc`: a lowered function. After `lower::Lower` its params are the packed-API six
/// `(args, type_codes, num_args, ret, ret_code, resource)` (see `runtime/c_backend_api.h`).
#ifndef TESSERA_COMPILER_IR_FUNCTION_H_
#define TESSERA_COMPILER_IR_FUNCTION_H_

#include <map>
#include <string>
#include <vector>

#include "compiler/ir/stmt.h"

namespace tessera {
namespace ir {

/// A function of the loop-level IR.
struct PrimFuncNode : Object {
  static constexpr uint32_t kKind = kPrimFunc;  ///< node kind
  /// See fields.
  PrimFuncNode(std::string n, std::vector<Var> p, Stmt b, std::map<std::string, std::string> a)
      : Object(kKind),
        name(std::move(n)),
        params(std::move(p)),
        body(std::move(b)),
        attrs(std::move(a)) {}
  std::string name;                          ///< symbol name
  std::vector<Var> params;                   ///< parameters
  Stmt body;                                 ///< body
  std::map<std::string, std::string> attrs;  ///< free-form attributes
  void ListFields(FieldList* f) const override {
    f->Add(name);
    f->AddInt(static_cast<int64_t>(params.size()));
    for (const Var& v : params) f->AddDef(v);
    f->Add(body);
    f->AddInt(static_cast<int64_t>(attrs.size()));
    for (const auto& kv : attrs) {
      f->Add(kv.first);
      f->Add(kv.second);
    }
  }
  const char* type_name() const override { return "PrimFunc"; }
};

/// Handle to a function.
class PrimFunc : public ObjectRef {
 public:
  /// A null function.
  PrimFunc() = default;
  /// A function from its parts.
  PrimFunc(std::string name, std::vector<Var> params, Stmt body,
           std::map<std::string, std::string> attrs = {});
  /// The node.
  const PrimFuncNode* get() const { return static_cast<const PrimFuncNode*>(data_.get()); }
  /// Member access.
  const PrimFuncNode* operator->() const { return get(); }
  /// The same function with another body.
  PrimFunc WithBody(Stmt body) const;
};

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_FUNCTION_H_
