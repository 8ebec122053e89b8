#include "compiler/ir/printer.h"

#include <sstream>

#include "compiler/ir/functor.h"

namespace tessera {
namespace ir {

namespace {

const char* BinarySymbol(uint32_t kind) {
  switch (kind) {
    case kAdd:
      return " + ";
    case kSub:
      return " - ";
    case kMul:
      return "*";
    case kDiv:
      return " / ";
    case kMod:
      return " % ";
    case kEQ:
      return " == ";
    case kNE:
      return " != ";
    case kLT:
      return " < ";
    case kLE:
      return " <= ";
    case kGT:
      return " > ";
    case kGE:
      return " >= ";
    case kAnd:
      return " && ";
    case kOr:
      return " || ";
    default:
      return nullptr;
  }
}

const char* BinaryFunction(uint32_t kind) {
  switch (kind) {
    case kFloorDiv:
      return "floordiv";
    case kFloorMod:
      return "floormod";
    case kMin:
      return "min";
    case kMax:
      return "max";
    default:
      return "?";
  }
}

const char* ReduceName(ReduceKind k) {
  switch (k) {
    case ReduceKind::kSum:
      return "sum";
    case ReduceKind::kProd:
      return "prod";
    case ReduceKind::kMin:
      return "min";
    case ReduceKind::kMax:
      return "max";
  }
  return "?";
}

class Printer : public ExprVisitor, public StmtVisitor {
 public:
  std::ostringstream os;

  void Print(const Expr& e) {
    if (!e.defined()) {
      os << "<null>";
      return;
    }
    ExprVisitor::VisitExpr(e);
  }
  void Print(const Stmt& s) {
    if (!s.defined()) return;
    StmtVisitor::VisitStmt(s);
  }
  void VisitExpr(const Expr& e) override { Print(e); }

  void VisitExpr_(const IntImmNode* op) override {
    if (op->dtype.is_bool()) {
      os << (op->value ? "true" : "false");
    } else {
      os << op->value;
      if (op->dtype != DataType::Int(32)) os << "_" << op->dtype;
    }
  }
  void VisitExpr_(const FloatImmNode* op) override {
    os << op->value;
    if (op->dtype != DataType::Float(32))
      os << "_" << op->dtype;
    else
      os << "f";
  }
  void VisitExpr_(const StringImmNode* op) override { os << '"' << op->value << '"'; }
  void VisitExpr_(const VarNode* op) override { os << op->name_hint; }
  void VisitExpr_(const BinaryNode* op) override {
    if (const char* sym = BinarySymbol(op->kind())) {
      os << "(";
      Print(op->a);
      os << sym;
      Print(op->b);
      os << ")";
    } else {
      os << BinaryFunction(op->kind()) << "(";
      Print(op->a);
      os << ", ";
      Print(op->b);
      os << ")";
    }
  }
  void VisitExpr_(const NotNode* op) override {
    os << "!";
    Print(op->a);
  }
  void VisitExpr_(const SelectNode* op) override {
    os << "select(";
    Print(op->condition);
    os << ", ";
    Print(op->true_value);
    os << ", ";
    Print(op->false_value);
    os << ")";
  }
  void VisitExpr_(const CastNode* op) override {
    os << op->dtype << "(";
    Print(op->value);
    os << ")";
  }
  void VisitExpr_(const RampNode* op) override {
    os << "ramp(";
    Print(op->base);
    os << ", ";
    Print(op->stride);
    os << ", " << op->lanes << ")";
  }
  void VisitExpr_(const BroadcastNode* op) override {
    os << "x" << op->lanes << "(";
    Print(op->value);
    os << ")";
  }
  void VisitExpr_(const LoadNode* op) override {
    os << op->buffer_var.name() << "[";
    Print(op->index);
    os << "]";
    if (op->dtype.lanes() > 1 || !op->dtype.is_float() || op->dtype.bits() != 32)
      os << ":" << op->dtype;
  }
  void VisitExpr_(const CallNode* op) override {
    os << op->name << "(";
    for (size_t i = 0; i < op->args.size(); ++i) {
      if (i) os << ", ";
      Print(op->args[i]);
    }
    os << ")";
  }
  void VisitExpr_(const LetNode* op) override {
    os << "(let " << op->var.name() << " = ";
    Print(op->value);
    os << " in ";
    Print(op->body);
    os << ")";
  }
  void VisitExpr_(const ProducerLoadNode* op) override {
    os << (op->producer.defined() ? op->producer.get()->DisplayName() : "<null>") << "(";
    for (size_t i = 0; i < op->indices.size(); ++i) {
      if (i) os << ", ";
      Print(op->indices[i]);
    }
    os << ")";
  }
  void VisitExpr_(const ReduceNode* op) override {
    os << ReduceName(op->combiner) << "(";
    Print(op->source);
    os << ", axis=[";
    for (size_t i = 0; i < op->axis.size(); ++i) {
      if (i) os << ", ";
      os << op->axis[i]->var.name() << " in [";
      Print(op->axis[i]->dom.min);
      os << ", +";
      Print(op->axis[i]->dom.extent);
      os << ")";
    }
    os << "]";
    if (!IsConstInt(op->condition, 1)) {
      os << ", where=";
      Print(op->condition);
    }
    os << ")";
  }

  void Indent() { os << std::string(indent_ * 2, ' '); }

  void VisitStmt_(const LetStmtNode* op) override {
    Indent();
    os << "let " << op->var.name() << ": " << op->var.dtype() << " = ";
    Print(op->value);
    os << "\n";
    Print(op->body);
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    Indent();
    os << "attr " << op->key << " = ";
    Print(op->value);
    if (op->node.defined()) os << " on " << op->node.get()->DisplayName();
    os << "\n";
    Print(op->body);
  }
  void VisitStmt_(const AssertStmtNode* op) override {
    Indent();
    os << "assert(";
    Print(op->condition);
    os << ", \"" << op->message << "\")\n";
    Print(op->body);
  }
  void VisitStmt_(const StoreNode* op) override {
    Indent();
    os << op->buffer_var.name() << "[";
    Print(op->index);
    os << "] = ";
    Print(op->value);
    os << "\n";
  }
  void VisitStmt_(const AllocateNode* op) override {
    Indent();
    os << "allocate " << op->buffer_var.name() << ": " << op->dtype << "[";
    for (size_t i = 0; i < op->extents.size(); ++i) {
      if (i) os << " * ";
      Print(op->extents[i]);
    }
    os << "], " << op->scope << "\n";
    Print(op->body);
  }
  void VisitStmt_(const ForNode* op) override {
    Indent();
    os << "for " << op->loop_var.name() << " in [";
    Print(op->min);
    os << ", +";
    Print(op->extent);
    os << ")";
    if (op->for_kind != ForKind::kSerial) os << " " << ToString(op->for_kind);
    if (!op->thread_tag.empty()) os << " " << op->thread_tag;
    os << " {\n";
    Block(op->body);
  }
  void VisitStmt_(const IfThenElseNode* op) override {
    Indent();
    os << "if ";
    Print(op->condition);
    os << " {\n";
    Block(op->then_case);
    if (op->else_case.defined()) {
      Indent();
      os << "else {\n";
      Block(op->else_case);
    }
  }
  void VisitStmt_(const SeqStmtNode* op) override {
    for (const Stmt& s : op->seq) Print(s);
  }
  void VisitStmt_(const EvaluateNode* op) override {
    Indent();
    Print(op->value);
    os << "\n";
  }
  void VisitStmt_(const ProducerStoreNode* op) override {
    Indent();
    os << (op->producer.defined() ? op->producer.get()->DisplayName() : "<null>") << "(";
    for (size_t i = 0; i < op->indices.size(); ++i) {
      if (i) os << ", ";
      Print(op->indices[i]);
    }
    os << ") = ";
    Print(op->value);
    os << "\n";
  }
  void VisitStmt_(const ProducerRealizeNode* op) override {
    Indent();
    os << "realize " << (op->producer.defined() ? op->producer.get()->DisplayName() : "<null>")
       << "[";
    for (size_t i = 0; i < op->bounds.size(); ++i) {
      if (i) os << ", ";
      Print(op->bounds[i].min);
      os << ":+";
      Print(op->bounds[i].extent);
    }
    os << "]";
    if (!op->scope.empty()) os << " " << op->scope;
    os << "\n";
    Print(op->body);
  }

  void Block(const Stmt& body) {
    ++indent_;
    Print(body);
    --indent_;
    Indent();
    os << "}\n";
  }

 private:
  int indent_ = 0;
};

}  // namespace

std::string ToText(const Expr& e) {
  Printer p;
  p.Print(e);
  return p.os.str();
}

std::string ToText(const Stmt& s) {
  Printer p;
  p.Print(s);
  return p.os.str();
}

std::string ToText(const PrimFunc& f) {
  if (!f.defined()) return "<null function>\n";
  Printer p;
  p.os << "func " << f->name << "(";
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (i) p.os << ", ";
    p.os << f->params[i].name() << ": " << f->params[i].dtype();
  }
  p.os << ") {\n";
  for (const auto& kv : f->attrs) p.os << "  // " << kv.first << " = " << kv.second << "\n";
  p.Block(f->body);
  return p.os.str();
}

std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << ToText(e); }
std::ostream& operator<<(std::ostream& os, const Stmt& s) { return os << ToText(s); }
std::ostream& operator<<(std::ostream& os, const PrimFunc& f) { return os << ToText(f); }

}  // namespace ir
}  // namespace tessera
