// `tessera.nd.NDArray` (the runtime's array) and its exchange with NumPy and PyTorch: DLPack
// capsules both ways (`__dlpack__`, `from_dlpack`) and NumPy views that keep the array alive, so
// that no data is copied between the three.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "python/src/bindings.h"
#include "runtime/data_type.h"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

constexpr const char* kCapsule = "dltensor";
constexpr const char* kUsedCapsule = "used_dltensor";

// A DLPack capsule of `array`; an unconsumed capsule returns its reference when collected.
py::capsule ToCapsule(const runtime::NDArray& array) {
  DLManagedTensor* managed = array.ToDLPack();
  return py::capsule(managed, kCapsule, [](PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, kCapsule)) {
      auto* unused = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsule));
      if (unused->deleter) unused->deleter(unused);
    }
  });
}

}  // namespace

// NumPy's own __dlpack__ refuses read-only arrays and (before 1.25) bool: a direct view instead.
runtime::NDArray NumpyArray(const py::array& array) {
  struct View {
    DLManagedTensor tensor;
    std::vector<int64_t> shape;
    py::object owner;
  };
  std::string dtype = py::str(array.dtype().attr("name"));
  auto* view = new View;
  view->shape.assign(array.shape(), array.shape() + array.ndim());
  view->owner = array;
  DLTensor& t = view->tensor.dl_tensor;
  t.data = const_cast<void*>(array.data());
  t.device = runtime::CPUDevice();
  t.ndim = static_cast<int32_t>(array.ndim());
  t.dtype = runtime::ParseDataType(dtype);
  t.shape = view->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  view->tensor.manager_ctx = view;
  view->tensor.deleter = [](DLManagedTensor* self) {
    py::gil_scoped_acquire gil;  // the last reference may go while the GIL is released
    delete static_cast<View*>(self->manager_ctx);
  };
  return runtime::NDArray::FromDLPack(&view->tensor);
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

std::string NumpyName(DLDataType dtype) {
  const std::string name = runtime::DataTypeToString(dtype);
  return name == "uint1" ? "bool" : name;
}

runtime::NDArray FromDLPack(const py::object& source) {
  py::object capsule = source;
  if (!PyCapsule_CheckExact(source.ptr())) {
    if (!py::hasattr(source, "__dlpack__")) {
      throw py::type_error(
          "from_dlpack: expected an object with __dlpack__ or a DLPack capsule, "
          "got " +
          std::string(py::str(py::type::of(source).attr("__name__"))));
    }
    capsule = source.attr("__dlpack__")();
  }
  if (!PyCapsule_IsValid(capsule.ptr(), kCapsule)) {
    throw py::value_error("from_dlpack: not an unused DLPack capsule (\"dltensor\")");
  }
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsule));
  PyCapsule_SetName(capsule.ptr(), kUsedCapsule);  // the array owns the tensor now
  return runtime::NDArray::FromDLPack(managed);
}

py::array NumpyView(const runtime::NDArray& array) {
  if (array.Device().device_type != kDLCPU) {
    throw py::value_error("numpy(): the array is on " + runtime::DeviceToString(array.Device()) +
                          "; NumPy reads host memory only");
  }
  const DLTensor* t = array.get();
  std::vector<py::ssize_t> strides;
  const py::ssize_t item = static_cast<py::ssize_t>(runtime::DataTypeBytes(array.DataType()));
  if (t->strides) {
    for (int i = 0; i < t->ndim; ++i) strides.push_back(t->strides[i] * item);
  } else {
    py::ssize_t stride = item;
    strides.assign(array.NDim(), 0);
    for (int i = array.NDim() - 1; i >= 0; --i) {
      strides[i] = stride;
      stride *= array.Shape()[i];
    }
  }
  // The capsule holds a reference to the array for as long as NumPy's view lives.
  py::capsule owner(new runtime::NDArray(array),
                    [](void* held) { delete static_cast<runtime::NDArray*>(held); });
  return py::array(py::dtype(NumpyName(array.DataType())), array.Shape(), strides,
                   array.Data<char>(), owner);
}

runtime::NDArray InputArray(const py::handle& value, const std::string& name,
                            const runtime::ExecTensor& expected) {
  runtime::NDArray array;
  if (py::isinstance<runtime::NDArray>(value)) {
    array = value.cast<runtime::NDArray>();
  } else if (py::isinstance<py::array>(value)) {
    const py::array numpy = py::reinterpret_borrow<py::array>(value);
    const std::string dtype = py::str(numpy.dtype().attr("name"));
    if (dtype != NumpyName(expected.dtype)) {
      throw py::value_error("input '" + name + "': expected dtype " + NumpyName(expected.dtype) +
                            ", got " + dtype);
    }
    if (!(numpy.flags() & py::array::c_style)) {
      throw py::value_error("input '" + name +
                            "': the array is not C-contiguous; pass "
                            "numpy.ascontiguousarray(array)");
    }
    array = NumpyArray(numpy);
  } else if (py::hasattr(value, "__dlpack__")) {
    array = FromDLPack(py::reinterpret_borrow<py::object>(value));
  } else {
    throw py::value_error("input '" + name + "': expected a numpy array or a DLPack tensor of " +
                          NumpyName(expected.dtype) + ", got " +
                          std::string(py::str(py::type::of(value).attr("__name__"))));
  }
  if (array.Device().device_type != kDLCPU) {
    throw py::value_error("input '" + name + "': the tensor is on " +
                          runtime::DeviceToString(array.Device()) + ", expected host memory");
  }
  if (NumpyName(array.DataType()) != NumpyName(expected.dtype)) {
    throw py::value_error("input '" + name + "': expected dtype " + NumpyName(expected.dtype) +
                          ", got " + NumpyName(array.DataType()));
  }
  if (array.Shape() != expected.shape) {
    throw py::value_error("input '" + name + "': expected shape " + ShapeText(expected.shape) +
                          ", got " + ShapeText(array.Shape()));
  }
  if (!array.IsContiguous()) {
    throw py::value_error("input '" + name +
                          "': the array is not C-contiguous; pass a contiguous copy "
                          "(numpy.ascontiguousarray, Tensor.contiguous())");
  }
  return array;
}

void BindArrays(py::module_& m) {
  py::class_<runtime::NDArray>(m, "NDArray",
                               "A Tessera array: shape, dtype and memory it shares with NumPy and "
                               "PyTorch through DLPack, without copies.")
      .def_property_readonly(
          "shape", [](const runtime::NDArray& a) { return py::tuple(py::cast(a.Shape())); })
      .def_property_readonly("dtype",
                             [](const runtime::NDArray& a) { return NumpyName(a.DataType()); })
      .def_property_readonly(
          "device", [](const runtime::NDArray& a) { return runtime::DeviceToString(a.Device()); })
      .def_property_readonly(
          "data_ptr",
          [](const runtime::NDArray& a) { return reinterpret_cast<uintptr_t>(a.Data<char>()); })
      .def("numpy", &NumpyView, "A NumPy view of the same memory (no copy).")
      .def(
          "__dlpack__",
          [](const runtime::NDArray& a, const py::object& stream, const py::object& max_version,
             const py::object& dl_device, const py::object& copy) {
            if (!copy.is_none() && copy.cast<bool>()) {
              throw py::buffer_error("__dlpack__: copy=True is not supported; the array is shared");
            }
            return ToCapsule(a);
          },
          py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
          py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
          "A DLPack capsule of the array (no copy).")
      .def("__dlpack_device__",
           [](const runtime::NDArray& a) {
             return py::make_tuple(static_cast<int>(a.Device().device_type), a.Device().device_id);
           })
      .def("__repr__", [](const runtime::NDArray& a) {
        return "tessera.nd.NDArray(shape=" + ShapeText(a.Shape()) +
               ", dtype=" + NumpyName(a.DataType()) +
               ", device=" + runtime::DeviceToString(a.Device()) + ")";
      });
  m.def("from_dlpack", &FromDLPack, py::arg("source"),
        "An NDArray over the memory of `source` (an object with __dlpack__, or a DLPack capsule), "
        "no copy.");
  m.def(
      "array",
      [](const py::array& source) {
        runtime::NDArray borrowed = NumpyArray(py::array::ensure(source, py::array::c_style));
        runtime::NDArray copy =
            runtime::NDArray::Empty(borrowed.Shape(), borrowed.DataType(), runtime::CPUDevice());
        copy.CopyFrom(borrowed);
        return copy;
      },
      py::arg("source"), "A new NDArray holding a copy of the NumPy array `source`.");
}

}  // namespace python
}  // namespace tessera
