// Private to rpc_server: the raw streaming reactors of CopyIn and CopyOut. Chunks go between the
// socket and the array's shared memory without protobuf copies (fleet/client/raw_chunks.h);
// several streams may fill or read disjoint ranges of one array in parallel.
#ifndef TESSERA_RPC_SERVER_ARRAY_STREAMS_H_
#define TESSERA_RPC_SERVER_ARRAY_STREAMS_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "rpc_server/worker.h"

namespace tessera {
namespace fleet {

/// Finds array `array_id` of session `session_id`; null with `*status` set when there is none.
using ArrayLookup = std::function<std::shared_ptr<SharedArray>(
    const std::string& session_id, int64_t array_id, grpc::Status* status)>;

/// OUT_OF_RANGE naming bytes [begin, end) and the array's size.
grpc::Status OutsideArray(int64_t array_id, const SharedArray& array, size_t begin, size_t end);

/// Receives CopyIn chunks into the array that the first chunk names; `response` gets the raw
/// `CopyReply`. Deletes itself when done.
grpc::ServerReadReactor<grpc::ByteBuffer>* NewArrayFiller(ArrayLookup lookup,
                                                          grpc::ByteBuffer* response);

/// Streams bytes [begin, end) of `array` in 1 MiB chunks (slices over its memory, which the
/// reactor keeps mapped). Deletes itself when done.
grpc::ServerWriteReactor<grpc::ByteBuffer>* NewArrayWriter(std::shared_ptr<SharedArray> array,
                                                           int64_t array_id, size_t begin,
                                                           size_t end);

/// Ends a streaming call with `status` before any data.
grpc::ServerWriteReactor<grpc::ByteBuffer>* NewFailedWriter(const grpc::Status& status);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_RPC_SERVER_ARRAY_STREAMS_H_
