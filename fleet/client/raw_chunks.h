/// \file
/// Array chunks on the client without protobuf copies: an outgoing chunk is encoded as a small
/// header plus a slice that points at the caller's memory, and an incoming chunk is decoded
/// straight into the caller's buffer. On the wire both are `tessera.device.v1.ArrayChunk`, so the
/// other side sees ordinary messages. The device server sends its chunks the same way.
#ifndef TESSERA_FLEET_CLIENT_RAW_CHUNKS_H_
#define TESSERA_FLEET_CLIENT_RAW_CHUNKS_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera {
namespace fleet {

/// A chunk to send; `data` must stay valid until the call has finished.
struct OutgoingChunk {
  std::string session_id;
  int64_t array_id = 0;
  int64_t offset = 0;
  const char* data = nullptr;
  size_t size = 0;
};

/// Where received chunks go: bytes [begin, end) of the array land at `base + offset`.
struct IncomingChunk {
  char* base = nullptr;
  size_t begin = 0;
  size_t end = 0;
  size_t received = 0;  ///< bytes written so far
  std::string error;    ///< set when a chunk was malformed or out of range
};

/// A decoded ArrayChunk whose data still lies in the received slices (kept in `slices`).
struct ChunkView {
  std::vector<grpc::Slice> slices;  ///< owns the bytes `pieces` point into
  std::string session_id;
  int64_t array_id = 0;
  uint64_t offset = 0;
  size_t size = 0;                                        ///< bytes of data
  std::vector<std::pair<const uint8_t*, size_t>> pieces;  ///< the data, in order
};

/// Decodes an ArrayChunk from `buffer` without copying its data. Returns "" or what is wrong.
std::string DecodeChunk(const grpc::ByteBuffer& buffer, ChunkView* view);

/// Copies a decoded chunk's data to `dest`.
void CopyPieces(const ChunkView& view, char* dest);

}  // namespace fleet
}  // namespace tessera

namespace grpc {

/// Encodes an `OutgoingChunk` as an ArrayChunk without copying its data.
template <>
class SerializationTraits<tessera::fleet::OutgoingChunk, void> {
 public:
  /// Header slice plus a slice over the caller's bytes.
  static Status Serialize(const tessera::fleet::OutgoingChunk& chunk, ByteBuffer* buffer,
                          bool* own_buffer);
  /// Never used (chunks are only sent this way).
  static Status Deserialize(ByteBuffer* buffer, tessera::fleet::OutgoingChunk* chunk);
};

/// Decodes an ArrayChunk straight into the destination of an `IncomingChunk`.
template <>
class SerializationTraits<tessera::fleet::IncomingChunk, void> {
 public:
  /// Never used (chunks are only received this way).
  static Status Serialize(const tessera::fleet::IncomingChunk& chunk, ByteBuffer* buffer,
                          bool* own_buffer);
  /// Copies the chunk's data to `base + offset` after checking the range.
  static Status Deserialize(ByteBuffer* buffer, tessera::fleet::IncomingChunk* chunk);
};

}  // namespace grpc

#endif  // TESSERA_FLEET_CLIENT_RAW_CHUNKS_H_
