/// \file
/// The object system of the IR: immutable nodes with an intrusive reference count and an
/// integer kind (no RTTI), value handles (`ObjectRef`) over them, and field reflection
/// (`FieldList`) that lets structural equality, hashing and printing treat every node alike.
#ifndef TESSERA_COMPILER_IR_OBJECT_H_
#define TESSERA_COMPILER_IR_OBJECT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/data_type.h"

namespace tessera {
namespace ir {

class FieldList;

/// Base of every IR node. Nodes are created once and never modified afterwards.
class Object {
 public:
  /// Creates a node of `kind` (a `NodeKind` of the IR or a kind of another layer, e.g. `te`).
  explicit Object(uint32_t kind) : kind_(kind) {}
  virtual ~Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  /// The node kind that `as<T>()` tests against `T::kKind`.
  uint32_t kind() const { return kind_; }
  /// Appends this node's fields, in a fixed order, for structural comparison and hashing.
  virtual void ListFields(FieldList* fields) const = 0;
  /// Short type name for messages and the printer ("Add", "For", ...).
  virtual const char* type_name() const = 0;
  /// How the printer names this node when it appears as an opaque reference (a tensor's name).
  virtual std::string DisplayName() const { return type_name(); }

  /// Adds a reference (used by `ObjectPtr`).
  void IncRef() const { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  /// Drops a reference and deletes the node when it was the last one.
  void DecRef() const {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  /// Current number of references (for tests).
  int use_count() const { return ref_count_.load(); }

 private:
  uint32_t kind_;
  mutable std::atomic<int32_t> ref_count_{0};
};

/// An owning intrusive pointer to a node.
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() = default;
  /// Takes a (new) reference to `p`.
  explicit ObjectPtr(const T* p) : p_(p) {
    if (p_) p_->IncRef();
  }
  ObjectPtr(const ObjectPtr& o) : ObjectPtr(o.p_) {}
  ObjectPtr(ObjectPtr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  ObjectPtr& operator=(ObjectPtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~ObjectPtr() {
    if (p_) p_->DecRef();
  }
  /// The node, or nullptr.
  const T* get() const { return p_; }
  /// Member access.
  const T* operator->() const { return p_; }

 private:
  const T* p_ = nullptr;
};

/// A value handle over an optional node. Copying copies a reference.
class ObjectRef {
 public:
  /// A null handle.
  ObjectRef() = default;
  /// Wraps `node` (may be null).
  explicit ObjectRef(const Object* node) : data_(node) {}

  /// True unless null.
  bool defined() const { return data_.get() != nullptr; }
  /// The node, or nullptr.
  const Object* get() const { return data_.get(); }
  /// Identity comparison (same node).
  bool same_as(const ObjectRef& other) const { return data_.get() == other.data_.get(); }
  /// The node as `T` when its kind is `T::kKind`, else nullptr.
  template <typename T>
  const T* as() const {
    const Object* p = data_.get();
    return p && p->kind() == T::kKind ? static_cast<const T*>(p) : nullptr;
  }

 protected:
  ObjectPtr<Object> data_;
};

/// Hashes a handle by node identity (for unordered containers keyed by `Var`, `Tensor`, ...).
struct ObjectPtrHash {
  /// Hash of the node address.
  size_t operator()(const ObjectRef& r) const { return std::hash<const void*>()(r.get()); }
};
/// Compares handles by node identity.
struct ObjectPtrEqual {
  /// True for the same node.
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return a.same_as(b); }
};

/// One reflected field of a node.
struct Field {
  /// What the pointer refers to.
  enum Kind {
    kInt,       ///< const int64_t*
    kDouble,    ///< const double*
    kString,    ///< const std::string*
    kDataType,  ///< const DataType*
    kObject,    ///< const ObjectRef* (an Expr, Stmt or other node; may be null)
    kVarDef,    ///< const ObjectRef* to a Var that this node binds (For, Let, Allocate, ...)
  };
  Kind kind;          ///< type of `ptr`
  const void* ptr;    ///< the field
  int64_t int_value;  ///< storage for integer-like fields passed by value (enums, counts)
};

/// The fields of one node in a fixed order. Arrays are listed as their length then elements.
class FieldList {
 public:
  /// An integer (or enum) field.
  void AddInt(int64_t v) { items_.push_back({Field::kInt, nullptr, v}); }
  /// A float field.
  void Add(const double& v) { items_.push_back({Field::kDouble, &v, 0}); }
  /// A string field.
  void Add(const std::string& v) { items_.push_back({Field::kString, &v, 0}); }
  /// A type field.
  void Add(const DataType& v) { items_.push_back({Field::kDataType, &v, 0}); }
  /// A child node.
  void Add(const ObjectRef& v) { items_.push_back({Field::kObject, &v, 0}); }
  /// A variable that this node binds.
  void AddDef(const ObjectRef& v) { items_.push_back({Field::kVarDef, &v, 0}); }
  /// An array of child nodes.
  template <typename T>
  void Add(const std::vector<T>& v) {
    AddInt(static_cast<int64_t>(v.size()));
    for (const T& x : v) Add(x);
  }
  /// The fields listed so far.
  const std::vector<Field>& items() const { return items_; }

 private:
  std::vector<Field> items_;
};

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_OBJECT_H_
