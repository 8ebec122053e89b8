/// \file
/// Protocol Buffers messages as the JSON the programs print (`--json`): the proto field names,
/// every field present (zeros and empty strings included), one line.
#ifndef TESSERA_COMMON_PROTO_JSON_H_
#define TESSERA_COMMON_PROTO_JSON_H_

#include <google/protobuf/message.h>

#include <string>

namespace tessera {

/// `message` as one line of JSON; throws `InternalError` naming `what` when protobuf cannot
/// print it.
std::string ProtoToJson(const google::protobuf::Message& message, const std::string& what);

}  // namespace tessera

#endif  // TESSERA_COMMON_PROTO_JSON_H_
