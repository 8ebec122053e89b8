/// \file
/// Human-readable text of expressions, statements and functions (for debugging, the pass
/// pipeline's IR dumps and test failure messages). The format is for people, not for parsing.
#ifndef TESSERA_COMPILER_IR_PRINTER_H_
#define TESSERA_COMPILER_IR_PRINTER_H_

#include <ostream>
#include <string>

#include "compiler/ir/function.h"

namespace tessera {
namespace ir {

/// Text of an expression, e.g. "(i*4 + j)".
std::string ToText(const Expr& e);
/// Text of a statement, one line per statement, nested blocks indented by two spaces.
std::string ToText(const Stmt& s);
/// Text of a function: signature, attributes, body.
std::string ToText(const PrimFunc& f);
/// Streams `ToText(e)`.
std::ostream& operator<<(std::ostream& os, const Expr& e);
/// Streams `ToText(s)`.
std::ostream& operator<<(std::ostream& os, const Stmt& s);
/// Streams `ToText(f)`.
std::ostream& operator<<(std::ostream& os, const PrimFunc& f);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_PRINTER_H_
