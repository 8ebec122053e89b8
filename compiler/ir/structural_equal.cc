#include "compiler/ir/structural_equal.h"

#include <cstring>
#include <functional>
#include <unordered_map>

#include "compiler/ir/expr.h"

namespace tessera {
namespace ir {

namespace {

class EqualChecker {
 public:
  explicit EqualChecker(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  bool Equal(const Object* a, const Object* b) {
    if (!a || !b) return a == b;
    if (a->kind() != b->kind()) return false;
    if (a->kind() == kVar) return VarEqual(a, b, false);
    if (a == b) return true;
    FieldList fa, fb;
    a->ListFields(&fa);
    b->ListFields(&fb);
    const auto& xa = fa.items();
    const auto& xb = fb.items();
    if (xa.size() != xb.size()) return false;
    for (size_t i = 0; i < xa.size(); ++i) {
      if (xa[i].kind != xb[i].kind) return false;
      if (!FieldEqual(xa[i], xb[i])) return false;
    }
    return true;
  }

 private:
  bool FieldEqual(const Field& x, const Field& y) {
    switch (x.kind) {
      case Field::kInt:
        return x.int_value == y.int_value;
      case Field::kDouble: {
        double a = *static_cast<const double*>(x.ptr), b = *static_cast<const double*>(y.ptr);
        return std::memcmp(&a, &b, sizeof(double)) == 0;
      }
      case Field::kString:
        return *static_cast<const std::string*>(x.ptr) == *static_cast<const std::string*>(y.ptr);
      case Field::kDataType:
        return *static_cast<const DataType*>(x.ptr) == *static_cast<const DataType*>(y.ptr);
      case Field::kObject:
        return Equal(static_cast<const ObjectRef*>(x.ptr)->get(),
                     static_cast<const ObjectRef*>(y.ptr)->get());
      case Field::kVarDef:
        return VarEqual(static_cast<const ObjectRef*>(x.ptr)->get(),
                        static_cast<const ObjectRef*>(y.ptr)->get(), true);
    }
    return false;
  }

  bool VarEqual(const Object* a, const Object* b, bool is_def) {
    if (!a || !b) return a == b;
    if (static_cast<const ExprNode*>(a)->dtype != static_cast<const ExprNode*>(b)->dtype)
      return false;
    auto it = lhs_to_rhs_.find(a);
    if (it != lhs_to_rhs_.end()) return it->second == b;
    if (rhs_to_lhs_.count(b)) return false;
    if (!is_def && !map_free_vars_ && a != b) return false;
    lhs_to_rhs_[a] = b;
    rhs_to_lhs_[b] = a;
    return true;
  }

  bool map_free_vars_;
  std::unordered_map<const Object*, const Object*> lhs_to_rhs_, rhs_to_lhs_;
};

class Hasher {
 public:
  size_t Hash(const Object* n) {
    if (!n) return 0x9e3779b9;
    if (n->kind() == kVar) {
      auto it = var_index_.find(n);
      size_t index;
      if (it == var_index_.end()) {
        index = var_index_.size();
        var_index_[n] = index;
      } else {
        index = it->second;
      }
      return Combine(Combine(kVar, index), DataTypeHash(static_cast<const ExprNode*>(n)->dtype));
    }
    size_t h = std::hash<uint32_t>()(n->kind());
    FieldList fields;
    n->ListFields(&fields);
    for (const Field& f : fields.items()) h = Combine(h, FieldHash(f));
    return h;
  }

 private:
  static size_t Combine(size_t seed, size_t v) {
    return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
  }
  static size_t DataTypeHash(DataType t) { return (t.code() << 24) ^ (t.bits() << 16) ^ t.lanes(); }

  size_t FieldHash(const Field& f) {
    switch (f.kind) {
      case Field::kInt:
        return std::hash<int64_t>()(f.int_value);
      case Field::kDouble:
        return std::hash<double>()(*static_cast<const double*>(f.ptr));
      case Field::kString:
        return std::hash<std::string>()(*static_cast<const std::string*>(f.ptr));
      case Field::kDataType:
        return DataTypeHash(*static_cast<const DataType*>(f.ptr));
      case Field::kObject:
      case Field::kVarDef:
        return Hash(static_cast<const ObjectRef*>(f.ptr)->get());
    }
    return 0;
  }

  std::unordered_map<const Object*, size_t> var_index_;
};

}  // namespace

bool StructuralEqual(const ObjectRef& a, const ObjectRef& b, bool map_free_vars) {
  return EqualChecker(map_free_vars).Equal(a.get(), b.get());
}

size_t StructuralHash(const ObjectRef& node) { return Hasher().Hash(node.get()); }

}  // namespace ir
}  // namespace tessera
