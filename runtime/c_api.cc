#include "runtime/c_api.h"

#include <exception>
#include <memory>

#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/registry.h"

using tessera::runtime::Module;
using tessera::runtime::NDArray;
using tessera::runtime::PackedArgs;
using tessera::runtime::PackedFunc;
using tessera::runtime::RetValue;

namespace {

thread_local RetValue last_return;  // keeps a returned string alive for the caller

template <typename F>
int Guard(F&& body) {
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    TesseraAPISetLastError(e.what());
    return -1;
  } catch (...) {
    TesseraAPISetLastError("unknown C++ exception");
    return -1;
  }
}

void Expect(bool ok, const char* what) {
  if (!ok) throw tessera::runtime::Error(what);
}

}  // namespace

extern "C" {

int TesseraModLoadFromFile(const char* path, TesseraModuleHandle* out) {
  return Guard([&] {
    Expect(path && out, "TesseraModLoadFromFile: null argument");
    *out = new Module(Module::LoadFromFile(path));
  });
}

int TesseraModGetFunction(TesseraModuleHandle mod, const char* name, int query_imports,
                          TesseraFunctionHandle* out) {
  return Guard([&] {
    Expect(mod && name && out, "TesseraModGetFunction: null argument");
    const Module& m = *static_cast<Module*>(mod);
    PackedFunc f = m.GetFunction(name, query_imports != 0);
    if (!f.defined()) {
      throw tessera::runtime::Error("module '" + m.type_key() + "' has no function '" +
                                    std::string(name) + "'");
    }
    *out = new PackedFunc(f);
  });
}

int TesseraModImport(TesseraModuleHandle mod, TesseraModuleHandle dep) {
  return Guard([&] {
    Expect(mod && dep, "TesseraModImport: null argument");
    static_cast<Module*>(mod)->Import(*static_cast<Module*>(dep));
  });
}

int TesseraModFree(TesseraModuleHandle mod) {
  return Guard([&] { delete static_cast<Module*>(mod); });
}

int TesseraFuncGetGlobal(const char* name, TesseraFunctionHandle* out) {
  return Guard([&] {
    Expect(name && out, "TesseraFuncGetGlobal: null argument");
    *out = new PackedFunc(tessera::runtime::Registry::GetOrThrow(name));
  });
}

int TesseraFuncRegisterGlobal(const char* name, TesseraFunctionHandle func, int override) {
  return Guard([&] {
    Expect(name && func, "TesseraFuncRegisterGlobal: null argument");
    tessera::runtime::Registry::Register(name, *static_cast<PackedFunc*>(func), override != 0);
  });
}

int TesseraFuncCreateFromCFunc(TesseraPackedCFunc func, void* resource_handle,
                               void (*finalize)(void*), TesseraFunctionHandle* out) {
  return Guard([&] {
    Expect(func && out, "TesseraFuncCreateFromCFunc: null argument");
    std::shared_ptr<void> resource(resource_handle, [finalize](void* r) {
      if (finalize) finalize(r);
    });
    *out = new PackedFunc([func, resource](PackedArgs args, RetValue* ret) {
      TesseraValue value;
      value.v_handle = nullptr;
      int32_t code = kTesseraNull;
      TesseraAPISetLastError("");
      if (func(const_cast<TesseraValue*>(args.values()), const_cast<int32_t*>(args.type_codes()),
               args.size(), &value, &code, resource.get()) != 0) {
        throw tessera::runtime::Error(TesseraGetLastError());
      }
      if (code == kTesseraInt || code == kTesseraUInt) *ret = value.v_int64;
      if (code == kTesseraFloat) *ret = value.v_float64;
      if (code == kTesseraStr) *ret = std::string(value.v_str);
    });
  });
}

int TesseraFuncCall(TesseraFunctionHandle func, TesseraValue* args, int* type_codes, int num_args,
                    TesseraValue* ret, int* ret_type_code) {
  return Guard([&] {
    Expect(func && ret && ret_type_code, "TesseraFuncCall: null argument");
    RetValue rv;
    static_cast<PackedFunc*>(func)->CallPacked(PackedArgs(args, type_codes, num_args), &rv);
    *ret_type_code = rv.type_code();
    switch (rv.type_code()) {
      case kTesseraNDArrayHandle:
        ret->v_handle = rv.As<NDArray>().Release();
        break;
      case kTesseraPackedFuncHandle:
        ret->v_handle = new PackedFunc(rv.As<PackedFunc>());
        break;
      case kTesseraModuleHandle:
        ret->v_handle = new Module(rv.As<Module>());
        break;
      default:
        last_return = rv;
        *ret = last_return.AsArg().value();
        break;
    }
  });
}

int TesseraFuncFree(TesseraFunctionHandle func) {
  return Guard([&] { delete static_cast<PackedFunc*>(func); });
}

int TesseraArrayAlloc(const int64_t* shape, int ndim, int dtype_code, int dtype_bits,
                      int dtype_lanes, int device_type, int device_id, TesseraArrayHandle* out) {
  return Guard([&] {
    Expect(out && (shape || ndim == 0) && ndim >= 0, "TesseraArrayAlloc: bad argument");
    DLDataType dtype;
    dtype.code = static_cast<uint8_t>(dtype_code);
    dtype.bits = static_cast<uint8_t>(dtype_bits);
    dtype.lanes = static_cast<uint16_t>(dtype_lanes);
    DLDevice dev{static_cast<DLDeviceType>(device_type), device_id};
    NDArray a = NDArray::Empty(std::vector<int64_t>(shape, shape + ndim), dtype, dev);
    *out = reinterpret_cast<DLTensor*>(a.Release());
  });
}

int TesseraArrayCopyFromBytes(TesseraArrayHandle array, const void* data, size_t nbytes) {
  return Guard([&] {
    Expect(array && data, "TesseraArrayCopyFromBytes: null argument");
    NDArray::FromContainer(reinterpret_cast<NDArray::Container*>(array))
        .CopyFromBytes(data, nbytes);
  });
}

int TesseraArrayCopyToBytes(TesseraArrayHandle array, void* data, size_t nbytes) {
  return Guard([&] {
    Expect(array && data, "TesseraArrayCopyToBytes: null argument");
    NDArray::FromContainer(reinterpret_cast<NDArray::Container*>(array)).CopyToBytes(data, nbytes);
  });
}

int TesseraArrayFree(TesseraArrayHandle array) {
  return Guard([&] {
    if (array) NDArray::Adopt(reinterpret_cast<NDArray::Container*>(array));
  });
}

}  // extern "C"
