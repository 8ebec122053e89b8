// The `tessera._tessera` extension module: Tessera's exceptions as Python classes, then the
// bindings. The Python package (python/tessera/__init__.py) is the public face; this module is
// its implementation and is not imported directly.
#include <pybind11/pybind11.h>

#include <exception>

#include "common/error.h"
#include "common/version.h"
#include "python/src/bindings.h"

namespace py = pybind11;

PYBIND11_MODULE(_tessera, m) {
  m.doc() = "Tessera's C++ core; use the `tessera` package.";
  m.attr("__version__") = tessera::kTesseraVersion;
  // A bad model, target, log or input: what the user can fix. Messages are the C++ ones.
  static py::exception<tessera::UserError> user_error(m, "UserError", PyExc_Exception);
  // A device or the fleet failed: worth retrying.
  static py::exception<tessera::ExternalError> fleet_error(m, "FleetError", PyExc_Exception);
  // A bug in Tessera: please report it with the message.
  static py::exception<tessera::InternalError> internal_error(m, "InternalError", PyExc_Exception);
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const tessera::UserError& e) {
      user_error(e.what());
    } catch (const tessera::ExternalError& e) {
      fleet_error(e.what());
    } catch (const tessera::InternalError& e) {
      internal_error(e.what());
    }
  });
  tessera::python::BindArrays(m);
  tessera::python::BindModels(m);
  tessera::python::BindLogs(m);
  tessera::python::BindFleet(m);
  py::module_ te = m.def_submodule("te", "Tensor expressions and schedules.");
  tessera::python::BindTensorExpressions(te);
  tessera::python::BindKernels(m);
  tessera::python::BindTuning(m);
}
