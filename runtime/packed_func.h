/// \file
/// `PackedFunc`: type-erased functions over the C calling convention of `c_backend_api.h`.
/// Arguments and return values are ints, floats, strings, arrays (`NDArray` / `DLTensor*`),
/// opaque handles, data types, devices, modules and other packed functions.
#ifndef TESSERA_RUNTIME_PACKED_FUNC_H_
#define TESSERA_RUNTIME_PACKED_FUNC_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "runtime/c_backend_api.h"
#include "runtime/error.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace runtime {

class Module;
class PackedFunc;

/// Human name of a `TesseraTypeCode` ("int", "float", "str", "NDArray", ...).
const char* TypeCodeName(int type_code);

/// A borrowed view of one argument; conversions throw `Error` on a type mismatch, e.g.
/// "expected int but got str".
class ArgValue {
 public:
  /// Views `value` read as `type_code`.
  ArgValue(TesseraValue value, int type_code) : value_(value), type_code_(type_code) {}
  /// The `TesseraTypeCode` of the value.
  int type_code() const { return type_code_; }
  /// The raw value.
  const TesseraValue& value() const { return value_; }

  /// An int (also accepts uint).
  int64_t AsInt() const;
  /// A float (also accepts int).
  double AsFloat() const;
  /// A string (also accepts bytes).
  std::string AsString() const;
  /// An opaque handle (null gives nullptr).
  void* AsHandle() const;
  /// A tensor: `DLTensor*` or `NDArray` (null gives nullptr).
  DLTensor* AsDLTensor() const;
  /// An `NDArray` reference (only arrays passed as NDArray).
  NDArray AsNDArray() const;
  /// A packed function.
  PackedFunc AsPackedFunc() const;
  /// A module.
  Module AsModule() const;
  /// A data type (also parses a string such as "float32").
  DLDataType AsDataType() const;
  /// A device.
  DLDevice AsDevice() const;

  /// Converts to `T`, one of the types above (or any integral or floating-point type).
  template <typename T>
  T As() const {
    if constexpr (std::is_same_v<T, bool>) {
      return AsInt() != 0;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(AsInt());
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(AsFloat());
    } else if constexpr (std::is_same_v<T, std::string>) {
      return AsString();
    } else if constexpr (std::is_same_v<T, NDArray>) {
      return AsNDArray();
    } else if constexpr (std::is_same_v<T, DLTensor*>) {
      return AsDLTensor();
    } else if constexpr (std::is_same_v<T, PackedFunc>) {
      return AsPackedFunc();
    } else if constexpr (std::is_same_v<T, Module>) {
      return AsModule();
    } else if constexpr (std::is_same_v<T, void*>) {
      return AsHandle();
    } else if constexpr (std::is_same_v<T, DLDataType>) {
      return AsDataType();
    } else if constexpr (std::is_same_v<T, DLDevice>) {
      return AsDevice();
    } else {
      static_assert(sizeof(T) == 0, "unsupported PackedFunc argument type");
    }
  }
  /// Converts like `As` (so that `int64_t n = args[0];` reads naturally).
  template <typename T>
  operator T() const {  // NOLINT(google-explicit-constructor)
    return As<T>();
  }

 private:
  [[noreturn]] void Mismatch(const char* expected) const;
  TesseraValue value_;
  int type_code_;
};

/// The arguments of one packed call: parallel arrays of values and type codes.
class PackedArgs {
 public:
  /// Views `num_args` values with their type codes.
  PackedArgs(const TesseraValue* values, const int32_t* type_codes, int num_args)
      : values_(values), type_codes_(type_codes), num_args_(num_args) {}
  /// Argument `i`; throws `Error` when out of range.
  ArgValue operator[](int i) const;
  /// Number of arguments.
  int size() const { return num_args_; }
  /// The raw values (for forwarding through the C ABI).
  const TesseraValue* values() const { return values_; }
  /// The raw type codes (for forwarding through the C ABI).
  const int32_t* type_codes() const { return type_codes_; }

 private:
  const TesseraValue* values_;
  const int32_t* type_codes_;
  int num_args_;
};

/// An owned return value. Holds strings, arrays, functions and modules by value.
class RetValue {
 public:
  /// A null value.
  RetValue() = default;
  /// Copies `other`, taking new references to what it holds.
  RetValue(const RetValue& other);
  /// Copies `other`, taking new references to what it holds.
  RetValue& operator=(const RetValue& other);
  /// Releases what it holds.
  ~RetValue();

  /// Stores nothing.
  RetValue& operator=(std::nullptr_t);
  /// Stores an int (bools and all integer types).
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
  RetValue& operator=(T v) {
    return SetInt(static_cast<int64_t>(v));
  }
  /// Stores a float.
  RetValue& operator=(double v);
  /// Stores a string.
  RetValue& operator=(const std::string& v);
  /// Stores a string.
  RetValue& operator=(const char* v);
  /// Stores an array reference.
  RetValue& operator=(const NDArray& v);
  /// Stores a function.
  RetValue& operator=(const PackedFunc& v);
  /// Stores a module.
  RetValue& operator=(const Module& v);
  /// Stores an opaque handle.
  RetValue& operator=(void* v);
  /// Stores a data type.
  RetValue& operator=(DLDataType v);
  /// Stores a device.
  RetValue& operator=(DLDevice v);

  /// The `TesseraTypeCode` of the stored value.
  int type_code() const { return type_code_; }
  /// A view of the stored value, valid while this `RetValue` is unchanged.
  ArgValue AsArg() const { return ArgValue(value_, type_code_); }
  /// Converts like `ArgValue::As`.
  template <typename T>
  T As() const {
    return AsArg().As<T>();
  }
  /// Converts like `ArgValue::As`.
  template <typename T>
  operator T() const {  // NOLINT(google-explicit-constructor): natural `int x = f(...)`
    return As<T>();
  }

 private:
  RetValue& SetInt(int64_t v);
  void Clear();
  TesseraValue value_{};
  int type_code_ = kTesseraNull;
  std::string str_;
  NDArray array_;
  std::shared_ptr<PackedFunc> func_;
  std::shared_ptr<Module> module_;
};

/// A type-erased function: `body(args, &ret)`. Cheap to copy (shares the body).
class PackedFunc {
 public:
  /// The implementation: reads `args`, may throw `Error`, may set `*ret`.
  using Body = std::function<void(PackedArgs args, RetValue* ret)>;

  /// A null function.
  PackedFunc() = default;
  /// Wraps `body`.
  explicit PackedFunc(Body body) : body_(std::make_shared<const Body>(std::move(body))) {}

  /// Calls with already-packed arguments. Throws `Error` for a null function.
  void CallPacked(PackedArgs args, RetValue* ret) const;

  /// Packs `args` and calls; returns the result.
  template <typename... Args>
  RetValue operator()(Args&&... args) const {
    constexpr int n = static_cast<int>(sizeof...(Args));
    TesseraValue values[n + 1];
    int32_t codes[n + 1];
    int i = 0;
    ((SetArg(&values[i], &codes[i], std::forward<Args>(args)), ++i), ...);
    (void)i;
    RetValue ret;
    CallPacked(PackedArgs(values, codes, n), &ret);
    return ret;
  }

  /// True unless this is a null function.
  bool defined() const { return body_ != nullptr; }
  /// True unless this is a null function.
  explicit operator bool() const { return defined(); }

  /// Packs one C++ value into the C representation (the value must outlive the call).
  template <typename T>
  static void SetArg(TesseraValue* value, int32_t* code, T&& arg) {
    using D = std::decay_t<T>;
    if constexpr (std::is_same_v<D, ArgValue>) {
      *value = arg.value();
      *code = arg.type_code();
    } else if constexpr (std::is_integral_v<D>) {
      value->v_int64 = static_cast<int64_t>(arg);
      *code = kTesseraInt;
    } else if constexpr (std::is_floating_point_v<D>) {
      value->v_float64 = static_cast<double>(arg);
      *code = kTesseraFloat;
    } else if constexpr (std::is_same_v<D, std::string>) {
      value->v_str = arg.c_str();
      *code = kTesseraStr;
    } else if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) {
      value->v_str = arg;
      *code = kTesseraStr;
    } else if constexpr (std::is_same_v<D, NDArray>) {
      value->v_handle = arg.container();
      *code = arg.defined() ? kTesseraNDArrayHandle : kTesseraNull;
    } else if constexpr (std::is_same_v<D, DLTensor*>) {
      value->v_handle = arg;
      *code = kTesseraDLTensorHandle;
    } else if constexpr (std::is_same_v<D, PackedFunc>) {
      value->v_handle = const_cast<PackedFunc*>(&arg);
      *code = kTesseraPackedFuncHandle;
    } else if constexpr (std::is_same_v<D, Module>) {
      value->v_handle = const_cast<Module*>(&arg);
      *code = kTesseraModuleHandle;
    } else if constexpr (std::is_same_v<D, std::nullptr_t>) {
      value->v_handle = nullptr;
      *code = kTesseraNull;
    } else if constexpr (std::is_pointer_v<D>) {
      value->v_handle = const_cast<void*>(static_cast<const void*>(arg));
      *code = kTesseraOpaqueHandle;
    } else if constexpr (std::is_same_v<D, DLDataType>) {
      value->v_type = arg;
      *code = kTesseraDataType;
    } else if constexpr (std::is_same_v<D, DLDevice>) {
      value->v_device = arg;
      *code = kTesseraDevice;
    } else {
      static_assert(sizeof(D) == 0, "unsupported PackedFunc argument type");
    }
  }

 private:
  std::shared_ptr<const Body> body_;
};

namespace detail {
template <typename F>
struct FunctionTraits : FunctionTraits<decltype(&F::operator())> {};
template <typename C, typename R, typename... A>
struct FunctionTraits<R (C::*)(A...) const> {
  using Return = R;
  using Args = std::tuple<std::decay_t<A>...>;
};
template <typename C, typename R, typename... A>
struct FunctionTraits<R (C::*)(A...)> : FunctionTraits<R (C::*)(A...) const> {};
template <typename R, typename... A>
struct FunctionTraits<R (*)(A...)> {
  using Return = R;
  using Args = std::tuple<std::decay_t<A>...>;
};

/// Converts argument `i`, adding "function 'name': argument i: " to a mismatch message.
template <typename T>
T ConvertArg(const PackedArgs& args, int i, const std::string& name) {
  try {
    return args[i].As<T>();
  } catch (const Error& e) {
    throw Error("function '" + name + "': argument " + std::to_string(i) + ": " + e.what());
  }
}

template <typename F, typename Tuple, size_t... I>
void CallTyped(const F& f, const std::string& name, PackedArgs args, RetValue* ret,
               std::index_sequence<I...>) {
  using R = typename FunctionTraits<F>::Return;
  if constexpr (std::is_void_v<R>) {
    f(ConvertArg<std::tuple_element_t<I, Tuple>>(args, static_cast<int>(I), name)...);
  } else {
    *ret = f(ConvertArg<std::tuple_element_t<I, Tuple>>(args, static_cast<int>(I), name)...);
  }
}
}  // namespace detail

/// Wraps a C++ callable with typed parameters as a `PackedFunc` named `name`. A call with the
/// wrong number of arguments throws "function 'name' expects N arguments but got M"; a wrong
/// argument type throws "function 'name': argument i: expected T but got U".
template <typename F>
PackedFunc MakeTypedPackedFunc(std::string name, F f) {
  using Args = typename detail::FunctionTraits<F>::Args;
  return PackedFunc([f = std::move(f), name = std::move(name)](PackedArgs args, RetValue* ret) {
    constexpr size_t arity = std::tuple_size_v<Args>;
    TESSERA_CHECK(args.size() == static_cast<int>(arity))
        << "function '" << name << "' expects " << arity << " argument" << (arity == 1 ? "" : "s")
        << " but got " << args.size();
    detail::CallTyped<F, Args>(f, name, args, ret, std::make_index_sequence<arity>());
  });
}

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_PACKED_FUNC_H_
