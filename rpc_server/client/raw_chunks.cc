#include "rpc_server/client/raw_chunks.h"

#include <cstring>
#include <vector>

namespace grpc {
namespace {

// Protobuf wire format of tessera.device.v1.ArrayChunk: field numbers and wire types.
constexpr uint8_t kSessionIdTag = (1 << 3) | 2;
constexpr uint8_t kArrayIdTag = (2 << 3) | 0;
constexpr uint8_t kOffsetTag = (3 << 3) | 0;
constexpr uint8_t kDataTag = (4 << 3) | 2;

void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

// Reads a message spread over several slices.
class SliceReader {
 public:
  explicit SliceReader(std::vector<Slice> slices) : slices_(std::move(slices)) {}

  bool AtEnd() {
    while (index_ < slices_.size() && pos_ == slices_[index_].size()) {
      ++index_;
      pos_ = 0;
    }
    return index_ == slices_.size();
  }
  bool Byte(uint8_t* out) {
    if (AtEnd()) return false;
    *out = slices_[index_].begin()[pos_++];
    return true;
  }
  bool Varint(uint64_t* out) {
    *out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t byte;
      if (!Byte(&byte)) return false;
      *out |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  // Copies `n` bytes to `dest` (or skips them when `dest` is null).
  bool Bytes(uint64_t n, char* dest) {
    while (n > 0) {
      if (AtEnd()) return false;
      size_t take = std::min<uint64_t>(n, slices_[index_].size() - pos_);
      if (dest != nullptr) {
        std::memcpy(dest, slices_[index_].begin() + pos_, take);
        dest += take;
      }
      pos_ += take;
      n -= take;
    }
    return true;
  }

 private:
  std::vector<Slice> slices_;
  size_t index_ = 0;
  size_t pos_ = 0;
};

Status Malformed(tessera::fleet::IncomingChunk* chunk, const std::string& why) {
  chunk->error = why;
  return Status(StatusCode::INTERNAL, why);
}

}  // namespace

Status SerializationTraits<tessera::fleet::OutgoingChunk, void>::Serialize(
    const tessera::fleet::OutgoingChunk& chunk, ByteBuffer* buffer, bool* own_buffer) {
  std::string header;
  header.push_back(static_cast<char>(kSessionIdTag));
  PutVarint(chunk.session_id.size(), &header);
  header += chunk.session_id;
  header.push_back(static_cast<char>(kArrayIdTag));
  PutVarint(static_cast<uint64_t>(chunk.array_id), &header);
  header.push_back(static_cast<char>(kOffsetTag));
  PutVarint(static_cast<uint64_t>(chunk.offset), &header);
  header.push_back(static_cast<char>(kDataTag));
  PutVarint(chunk.size, &header);
  Slice slices[2] = {Slice(header), Slice(chunk.data, chunk.size, Slice::STATIC_SLICE)};
  *buffer = ByteBuffer(slices, chunk.size == 0 ? 1 : 2);
  *own_buffer = true;
  return Status::OK;
}

Status SerializationTraits<tessera::fleet::OutgoingChunk, void>::Deserialize(
    ByteBuffer*, tessera::fleet::OutgoingChunk*) {
  return Status(StatusCode::UNIMPLEMENTED, "outgoing chunks are never received");
}

Status SerializationTraits<tessera::fleet::IncomingChunk, void>::Serialize(
    const tessera::fleet::IncomingChunk&, ByteBuffer*, bool*) {
  return Status(StatusCode::UNIMPLEMENTED, "incoming chunks are never sent");
}

Status SerializationTraits<tessera::fleet::IncomingChunk, void>::Deserialize(
    ByteBuffer* buffer, tessera::fleet::IncomingChunk* chunk) {
  std::vector<Slice> slices;
  Status dumped = buffer->Dump(&slices);
  buffer->Clear();
  if (!dumped.ok()) return Malformed(chunk, "cannot read a chunk: " + dumped.error_message());
  SliceReader reader(std::move(slices));
  uint64_t offset = 0;  // proto3 leaves out a zero offset; fields arrive in number order
  while (!reader.AtEnd()) {
    uint64_t tag, value;
    if (!reader.Varint(&tag)) return Malformed(chunk, "truncated chunk");
    switch (tag & 7) {
      case 0:  // varint
        if (!reader.Varint(&value)) return Malformed(chunk, "truncated chunk");
        if (tag == kOffsetTag) offset = value;
        break;
      case 2: {  // length-delimited
        if (!reader.Varint(&value)) return Malformed(chunk, "truncated chunk");
        char* dest = nullptr;
        if (tag == kDataTag) {
          if (offset < chunk->begin || value > chunk->end - chunk->begin ||
              offset - chunk->begin > chunk->end - chunk->begin - value) {
            return Malformed(chunk, "the server sent bytes " + std::to_string(offset) + ".." +
                                        std::to_string(offset + value) + " outside " +
                                        std::to_string(chunk->begin) + ".." +
                                        std::to_string(chunk->end));
          }
          dest = chunk->base + offset;
          chunk->received += value;
        }
        if (!reader.Bytes(value, dest)) return Malformed(chunk, "truncated chunk");
        break;
      }
      case 1:
        if (!reader.Bytes(8, nullptr)) return Malformed(chunk, "truncated chunk");
        break;
      case 5:
        if (!reader.Bytes(4, nullptr)) return Malformed(chunk, "truncated chunk");
        break;
      default:
        return Malformed(chunk, "unknown wire type in a chunk");
    }
  }
  return Status::OK;
}

}  // namespace grpc
