#include "common/proto_json.h"

#include <google/protobuf/util/json_util.h>

#include "common/error.h"

namespace tessera {

std::string ProtoToJson(const google::protobuf::Message& message, const std::string& what) {
  std::string json;
  google::protobuf::util::JsonPrintOptions print;
  print.preserve_proto_field_names = true;
  print.always_print_primitive_fields = true;
  if (!google::protobuf::util::MessageToJsonString(message, &json, print).ok()) {
    throw InternalError("cannot print " + what + " as JSON");
  }
  return json;
}

}  // namespace tessera
