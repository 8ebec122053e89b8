// `fleet_status`: the tracker's view of the fleet, as `tessera fleet status --json` prints it.
#include <google/protobuf/util/json_util.h>
#include <pybind11/pybind11.h>

#include <string>

#include "common/error.h"
#include "fleet/client/tracker_client.h"
#include "fleet/secrets.h"
#include "python/src/bindings.h"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

// The fleet status of the tracker at `address` as JSON text (proto field names, every field).
std::string FleetStatusJson(const std::string& address, const std::string& token_file,
                            const std::string& tls_ca) {
  fleet::TrackerOptions options;
  options.address = address;
  if (!token_file.empty()) options.token = fleet::ReadTokenFile(token_file);
  options.tls_ca_file = tls_ca;
  options.retry_window_ms = 2000;
  options.rpc_timeout_ms = 5000;
  tracker::v1::FleetStatus status;
  {
    py::gil_scoped_release release;
    fleet::TrackerClient client(options);
    status = client.Status();
  }
  std::string json;
  google::protobuf::util::JsonPrintOptions print;
  print.preserve_proto_field_names = true;
  print.always_print_primitive_fields = true;
  if (!google::protobuf::util::MessageToJsonString(status, &json, print).ok()) {
    throw InternalError("cannot print the fleet status as JSON");
  }
  return json;
}

}  // namespace

void BindFleet(py::module_& m) {
  m.def("fleet_status", &FleetStatusJson, py::arg("tracker"), py::arg("token_file"),
        py::arg("tls_ca"), "The fleet status of a tracker, as JSON text.");
}

}  // namespace python
}  // namespace tessera
