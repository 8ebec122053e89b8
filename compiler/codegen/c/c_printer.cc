#include "compiler/codegen/c/c_printer.h"

#include <cctype>

#include "compiler/support/error.h"

namespace tessera {
namespace codegen {

CFamilyPrinter::CFamilyPrinter(const char* backend, std::initializer_list<const char*> reserved)
    : backend_(backend) {
  for (const char* name : reserved) used_names_.insert(name);
}

std::string CFamilyPrinter::Define(const ir::Var& v) {
  std::string base;
  for (char c : v.name()) base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
  std::string name = base;
  for (int n = 1; used_names_.count(name); ++n) name = base + "_" + std::to_string(n);
  used_names_.insert(name);
  names_[v.get()] = name;
  return name;
}

const std::string& CFamilyPrinter::NameOf(const ir::Object* v) {
  auto it = names_.find(v);
  TESSERA_INTERNAL_CHECK(it != names_.end())
      << backend_ << " codegen: variable '" << static_cast<const ir::VarNode*>(v)->name_hint
      << "' used before definition";
  return it->second;
}

std::ostream& CFamilyPrinter::Line() { return *out_ << std::string(indent_ * 2, ' '); }

void CFamilyPrinter::EmitStmt(const ir::Stmt& s) {
  if (s.defined()) VisitStmt(s);
}

void CFamilyPrinter::Block(const ir::Stmt& s) {
  ++indent_;
  EmitStmt(s);
  --indent_;
}

std::string CFamilyPrinter::Print(const ir::Expr& e) { return PrintInMode(e, false); }

std::string CFamilyPrinter::PrintLane(const ir::Expr& e) { return PrintInMode(e, true); }

std::string CFamilyPrinter::PrintInMode(const ir::Expr& e, bool lane) {
  const bool saved = lane_mode_;
  lane_mode_ = lane;
  std::string s = PrintExpr(e);
  lane_mode_ = saved;
  return s;
}

std::string CFamilyPrinter::PrintExpr(const ir::Expr& e) {
  TESSERA_INTERNAL_CHECK(e.dtype().is_scalar() || lane_mode_)
      << backend_ << " codegen: vector value outside a vector store";
  return VisitExpr(e);
}

void CFamilyPrinter::VisitStmt_(const ir::SeqStmtNode* seq) {
  for (const ir::Stmt& x : seq->seq) EmitStmt(x);
}

void CFamilyPrinter::VisitStmt_(const ir::AttrStmtNode* attr) { EmitStmt(attr->body); }

void CFamilyPrinter::VisitStmt_(const ir::IfThenElseNode* ite) {
  Line() << "if (" << Print(ite->condition) << ") {\n";
  Block(ite->then_case);
  if (ite->else_case.defined()) {
    Line() << "} else {\n";
    Block(ite->else_case);
  }
  Line() << "}\n";
}

std::string CFamilyPrinter::VisitExpr_(const ir::VarNode* v) { return NameOf(v); }

std::string CFamilyPrinter::VisitExpr_(const ir::NotNode* n) {
  return "(!" + PrintExpr(n->a) + ")";
}

std::string CFamilyPrinter::VisitExpr_(const ir::SelectNode* s) {
  return "(" + PrintExpr(s->condition) + " ? " + PrintExpr(s->true_value) + " : " +
         PrintExpr(s->false_value) + ")";
}

std::string CFamilyPrinter::VisitExpr_(const ir::BroadcastNode* b) { return PrintExpr(b->value); }

}  // namespace codegen
}  // namespace tessera
