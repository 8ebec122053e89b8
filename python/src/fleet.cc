// `fleet_status`: the tracker's view of the fleet, as `tessera fleet status --json` prints it.
#include <pybind11/pybind11.h>

#include <string>

#include "common/proto_json.h"
#include "fleet/client/tracker_client.h"
#include "python/src/bindings.h"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

// The fleet status of the tracker at `address` as JSON text (proto field names, every field).
std::string FleetStatusJson(const std::string& address, const std::string& token_file,
                            const std::string& tls_ca) {
  fleet::TrackerOptions options = fleet::TrackerOptionsFor(address, token_file, tls_ca);
  options.retry_window_ms = 2000;
  options.rpc_timeout_ms = 5000;
  tracker::v1::FleetStatus status;
  {
    py::gil_scoped_release release;
    fleet::TrackerClient client(options);
    status = client.Status();
  }
  return ProtoToJson(status, "the fleet status");
}

}  // namespace

void BindFleet(py::module_& m) {
  m.def("fleet_status", &FleetStatusJson, py::arg("tracker"), py::arg("token_file"),
        py::arg("tls_ca"), "The fleet status of a tracker, as JSON text.");
}

}  // namespace python
}  // namespace tessera
