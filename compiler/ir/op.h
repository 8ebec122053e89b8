/// \file
/// Operators for building expressions: C++ operator overloads with type promotion (int → float,
/// narrow → wide, scalar → vector) and constant folding of integer constants. On integers `/`
/// and `%` are floor division and floor modulo (they agree with C for non-negative operands);
/// use `truncdiv`/`truncmod` for C semantics. Operands of incompatible types give `UserError`.
#ifndef TESSERA_COMPILER_IR_OP_H_
#define TESSERA_COMPILER_IR_OP_H_

#include <vector>

#include "compiler/ir/expr.h"

namespace tessera {
namespace ir {

/// a + b.
Expr operator+(Expr a, Expr b);
/// a - b.
Expr operator-(Expr a, Expr b);
/// -a.
Expr operator-(Expr a);
/// a * b.
Expr operator*(Expr a, Expr b);
/// Floor division for integers, true division for floats.
Expr operator/(Expr a, Expr b);
/// Floor modulo (integers only).
Expr operator%(Expr a, Expr b);
/// a == b (as an expression).
Expr operator==(Expr a, Expr b);
/// a != b.
Expr operator!=(Expr a, Expr b);
/// a < b.
Expr operator<(Expr a, Expr b);
/// a <= b.
Expr operator<=(Expr a, Expr b);
/// a > b.
Expr operator>(Expr a, Expr b);
/// a >= b.
Expr operator>=(Expr a, Expr b);
/// Logical and of bools.
Expr operator&&(Expr a, Expr b);
/// Logical or of bools.
Expr operator||(Expr a, Expr b);
/// Logical not.
Expr operator!(Expr a);

/// Floor division.
Expr floordiv(Expr a, Expr b);
/// Floor modulo.
Expr floormod(Expr a, Expr b);
/// Division rounding toward zero.
Expr truncdiv(Expr a, Expr b);
/// Remainder of `truncdiv`.
Expr truncmod(Expr a, Expr b);
/// (a + b - 1) / b for non-negative a and positive b.
Expr ceildiv(Expr a, Expr b);
/// Smaller of the two: `a < b ? a : b` on every backend (with a NaN operand, `b`).
Expr min(Expr a, Expr b);
/// Larger of the two: `a > b ? a : b` on every backend (with a NaN operand, `b`).
Expr max(Expr a, Expr b);
/// `cond ? t : f`, both evaluated.
Expr select(Expr cond, Expr t, Expr f);
/// `cond ? t : f`, only the chosen branch evaluated (for guarded reads such as padding).
Expr if_then_else(Expr cond, Expr t, Expr f);
/// Conversion to `t` (no node when already of type `t`; constants folded).
Expr cast(DataType t, Expr value);
/// A branch hint: `cond`, likely true.
Expr likely(Expr cond);
/// Constant of the same type as `like`.
Expr const_like(const Expr& like, double value);
/// The smallest value of `t` (−inf for floats).
Expr min_value(DataType t);
/// The largest value of `t` (+inf for floats).
Expr max_value(DataType t);

/// e^x.
Expr exp(Expr x);
/// Natural logarithm.
Expr log(Expr x);
/// Square root.
Expr sqrt(Expr x);
/// Hyperbolic tangent.
Expr tanh(Expr x);
/// 1 / (1 + e^-x).
Expr sigmoid(Expr x);
/// Absolute value (floats and integers).
Expr abs(Expr x);
/// Round down.
Expr floor(Expr x);
/// Round up.
Expr ceil(Expr x);
/// Round to the nearest integer, ties to even (IEEE 754's default rounding, C's `nearbyint`):
/// round(0.5) = 0, round(1.5) = 2, round(2.5) = 2, round(-0.5) = -0. Every backend and the
/// reference evaluator use this rule.
Expr round(Expr x);
/// Error function.
Expr erf(Expr x);
/// x^y.
Expr pow(Expr x, Expr y);
/// a * b + c with one rounding (C's `fma`).
Expr fma(Expr a, Expr b, Expr c);
/// The dot product of four bytes of `a` (unsigned) and four of `b` (signed), int32 words of
/// four little-endian bytes each: `builtin::kDot4U8S8`. Throws `UserError` for other types.
Expr dot4_u8s8(Expr a, Expr b);

/// Converts `a` and `b` to a common type (throws `UserError` naming `op` when impossible).
void PromoteTypes(const char* op, Expr* a, Expr* b);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_OP_H_
