/// \file
/// The printer the C and CUDA C code generators are built on: CUDA C is a C dialect, so naming
/// variables, indenting lines, printing scalars and lanes, and the statements and expressions
/// that read the same in both live here once; each generator adds its types, functions or
/// kernels, and the nodes it prints its own way.
#ifndef TESSERA_COMPILER_CODEGEN_C_C_PRINTER_H_
#define TESSERA_COMPILER_CODEGEN_C_C_PRINTER_H_

#include <initializer_list>
#include <ostream>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/expr.h"
#include "compiler/ir/functor.h"
#include "compiler/ir/stmt.h"

namespace tessera {
namespace codegen {

/// Base of a C-family code generator. `backend` ("C", "CUDA") names the generator in internal
/// errors; `reserved` are names a variable may not take (keywords, names the generator prints).
class CFamilyPrinter : public ir::ExprFunctor<std::string(const ir::Expr&)>,
                       public ir::StmtFunctor<void(const ir::Stmt&)> {
 protected:
  CFamilyPrinter(const char* backend, std::initializer_list<const char*> reserved);

  /// A fresh C identifier for `v` (its name with other characters as '_', numbered when taken).
  std::string Define(const ir::Var& v);
  /// The identifier `Define` gave variable `v`.
  const std::string& NameOf(const ir::Object* v);

  /// The output stream, indented for a new line.
  std::ostream& Line();
  /// Emits `s` when defined.
  void EmitStmt(const ir::Stmt& s);
  /// Emits `s` one level deeper.
  void Block(const ir::Stmt& s);

  /// `e` as a scalar expression.
  std::string Print(const ir::Expr& e);
  /// `e` as the expression of one lane (`lane`) of a vector value.
  std::string PrintLane(const ir::Expr& e);
  /// `e` in the current mode: vectors only inside a lane.
  std::string PrintExpr(const ir::Expr& e);
  /// `e` in lane mode `lane`, the current mode restored after.
  std::string PrintInMode(const ir::Expr& e, bool lane);

  void VisitStmt_(const ir::SeqStmtNode* seq) override;
  void VisitStmt_(const ir::AttrStmtNode* attr) override;
  void VisitStmt_(const ir::IfThenElseNode* ite) override;
  std::string VisitExpr_(const ir::VarNode* v) override;
  std::string VisitExpr_(const ir::NotNode* n) override;
  std::string VisitExpr_(const ir::SelectNode* s) override;
  std::string VisitExpr_(const ir::BroadcastNode* b) override;

  const char* backend_;
  std::ostream* out_ = nullptr;
  int indent_ = 1;
  bool lane_mode_ = false;
  std::unordered_map<const ir::Object*, std::string> names_;
  std::unordered_set<std::string> used_names_;
};

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_C_C_PRINTER_H_
