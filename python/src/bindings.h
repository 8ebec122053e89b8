// Private to python/: the parts of the `tessera._tessera` extension module, each adding its
// classes and functions to the module.
#ifndef TESSERA_PYTHON_SRC_BINDINGS_H_
#define TESSERA_PYTHON_SRC_BINDINGS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "runtime/exec_graph.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace python {

// `NDArray`, `from_dlpack` and `array`: the runtime's arrays, exchanged without copies.
void BindArrays(pybind11::module_& m);

// `compile_model` and `Session`: ONNX models compiled into artifacts, artifacts run on arrays.
void BindModels(pybind11::module_& m);

// `Log`: a tuning log (a file or a tracker's) read as `tessera log` reads it.
void BindLogs(pybind11::module_& m);

// `te`: tensor expressions, computes, reductions, schedules and their primitives.
void BindTensorExpressions(pybind11::module_& m);

// `lower`, `build`, `Module` and `load_module`: schedules compiled into callable functions.
void BindKernels(pybind11::module_& m);

// `fleet_status`: a tracker's fleet, as `tessera fleet status --json` prints it.
void BindFleet(pybind11::module_& m);

// `tune_model` and `tune_task`: `tessera tune` with a Python progress callback.
void BindTuning(pybind11::module_& m);

// A shape as Python prints a tuple: "(2, 16)", "(3,)".
std::string ShapeText(const std::vector<int64_t>& shape);

// NumPy's name of a tensor type ("float32", "int64", "bool").
std::string NumpyName(DLDataType dtype);

// The runtime array over the memory of `source` (an object with `__dlpack__`, or a DLPack
// capsule), no copy.
runtime::NDArray FromDLPack(const pybind11::object& source);

// A tensor over the memory of `array` (a C-contiguous NumPy array), no copy; it holds a
// reference to `array`.
runtime::NDArray NumpyArray(const pybind11::array& array);

// A NumPy view of `array` (host memory) that keeps it alive, no copy.
pybind11::array NumpyView(const runtime::NDArray& array);

// Input `name` of a model as given to `run` (a NumPy array, an NDArray or a DLPack tensor),
// over the caller's memory; a ValueError naming the input unless it is a C-contiguous host array
// of `expected`'s dtype and shape.
runtime::NDArray InputArray(const pybind11::handle& value, const std::string& name,
                            const runtime::ExecTensor& expected);

}  // namespace python
}  // namespace tessera

#endif  // TESSERA_PYTHON_SRC_BINDINGS_H_
