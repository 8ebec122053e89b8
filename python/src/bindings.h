// Private to python/: the parts of the `tessera._tessera` extension module, each adding its
// classes and functions to the module.
#ifndef TESSERA_PYTHON_SRC_BINDINGS_H_
#define TESSERA_PYTHON_SRC_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace tessera {
namespace python {

// `compile_model` and `Session`: ONNX models compiled into artifacts, artifacts run on arrays.
void BindModels(pybind11::module_& m);

}  // namespace python
}  // namespace tessera

#endif  // TESSERA_PYTHON_SRC_BINDINGS_H_
