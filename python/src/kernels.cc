// Compiled kernels from Python: `lower` (the loop IR as text), `build` (a schedule compiled for a
// target into a runtime module), the module's functions called on arrays, its source, export and
// load.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "compiler/driver/build.h"
#include "compiler/driver/target.h"
#include "compiler/ir/printer.h"
#include "compiler/lower/lower.h"
#include "python/src/bindings.h"
#include "runtime/module.h"
#include "runtime/packed_func.h"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

std::vector<te::Tensor> ToTensors(const py::handle& args) {
  std::vector<te::Tensor> out;
  for (const py::handle& t : args) out.push_back(t.cast<te::Tensor>());
  return out;
}

// A function of a module, called with one array per argument: NDArrays, NumPy arrays and DLPack
// tensors, all read and written in place.
struct Function {
  runtime::PackedFunc func;
  std::string name;

  void Call(const py::args& args) const {
    std::vector<runtime::NDArray> arrays;
    for (size_t i = 0; i < args.size(); ++i) {
      const py::handle value = args[i];
      if (py::isinstance<runtime::NDArray>(value)) {
        arrays.push_back(value.cast<runtime::NDArray>());
      } else if (py::isinstance<py::array>(value)) {
        const py::array numpy = py::reinterpret_borrow<py::array>(value);
        if (!(numpy.flags() & py::array::c_style)) {
          throw py::value_error(name + ": argument " + std::to_string(i) + " is not C-contiguous");
        }
        arrays.push_back(NumpyArray(numpy));
      } else if (py::hasattr(value, "__dlpack__")) {
        arrays.push_back(FromDLPack(py::reinterpret_borrow<py::object>(value)));
      } else {
        throw py::type_error(name + ": argument " + std::to_string(i) +
                             " is not an array (NDArray, NumPy array or DLPack tensor)");
      }
    }
    // Kernels take arrays aligned to 64 bytes (vector loads); NumPy's and PyTorch's usually are
    // not, and go through an aligned copy, copied back after the call (any may be written).
    std::vector<runtime::NDArray> passed = arrays;
    for (runtime::NDArray& a : passed) {
      if (reinterpret_cast<uintptr_t>(a.Data<char>()) % kKernelAlignment == 0) continue;
      runtime::NDArray aligned = runtime::NDArray::Empty(a.Shape(), a.DataType(), a.Device());
      aligned.CopyFrom(a);
      a = aligned;
    }
    std::vector<TesseraValue> values(passed.size());
    std::vector<int32_t> codes(passed.size(), kTesseraDLTensorHandle);
    for (size_t i = 0; i < passed.size(); ++i) values[i].v_handle = passed[i].get();
    runtime::RetValue ret;
    py::gil_scoped_release release;
    func.CallPacked(
        runtime::PackedArgs(values.data(), codes.data(), static_cast<int>(values.size())), &ret);
    for (size_t i = 0; i < passed.size(); ++i) {
      if (passed[i].get() != arrays[i].get()) arrays[i].CopyFrom(passed[i]);
    }
  }

  static constexpr uintptr_t kKernelAlignment = 64;
};

}  // namespace

void BindKernels(py::module_& m) {
  m.def(
      "lower",
      [](const te::Schedule& s, const py::list& args, const std::string& name) {
        return ir::ToText(lower::Lower(s, ToTensors(args), name));
      },
      py::arg("schedule"), py::arg("args"), py::arg("name") = "main",
      "The loop IR of `schedule` as function `name` taking `args`, as text.");
  m.def(
      "build",
      [](const te::Schedule& s, const py::list& args, const std::string& target,
         const std::string& name) {
        const std::vector<te::Tensor> tensors = ToTensors(args);
        py::gil_scoped_release release;
        return build(s, tensors, Target(target), name);
      },
      py::arg("schedule"), py::arg("args"), py::arg("target") = "llvm", py::arg("name") = "main",
      "Compiles `schedule` into function `name` taking `args` (inputs and outputs, in order) for "
      "`target`; returns the module.");
  py::class_<Function>(m, "Function", "A compiled function: call it with one array per argument.")
      .def("__call__", &Function::Call)
      .def_readonly("name", &Function::name);
  py::class_<runtime::Module>(m, "Module", "Compiled functions (a runtime module).")
      .def(
          "get_function",
          [](const runtime::Module& mod, const std::string& name) {
            return Function{mod[name], name};
          },
          py::arg("name"))
      .def("__getitem__",
           [](const runtime::Module& mod, const std::string& name) {
             return Function{mod[name], name};
           })
      .def("get_source", &runtime::Module::GetSource, py::arg("format") = "",
           "Source in `format`: 'll' or 'asm' (LLVM), 'c', 'cuda'.")
      .def("export_library", &runtime::Module::export_library, py::arg("path"),
           "Writes the module as a shared library that load_module reads.")
      .def_property_readonly("type_key", &runtime::Module::type_key);
  m.def("load_module", &runtime::Module::LoadFromFile, py::arg("path"),
        "A module exported with export_library.");
}

}  // namespace python
}  // namespace tessera
