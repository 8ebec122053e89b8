#include "fleet/client/raw_chunks.h"

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
  explicit SliceReader(const std::vector<Slice>& slices) : slices_(slices) {}

  bool AtEnd() {
    while (index_ < slices_.size() && pos_ == slices_[index_].size()) {
      ++index_;
      pos_ = 0;
    }
    return index_ == slices_.size();
  }
  bool Varint(uint64_t* out) {
    *out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (AtEnd()) return false;
      uint8_t byte = slices_[index_].begin()[pos_++];
      *out |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  // Passes the next `n` bytes, piece by piece, to `take` (which may be null to skip them).
  template <typename Take>
  bool Bytes(uint64_t n, Take take) {
    while (n > 0) {
      if (AtEnd()) return false;
      size_t size = std::min<uint64_t>(n, slices_[index_].size() - pos_);
      take(slices_[index_].begin() + pos_, size);
      pos_ += size;
      n -= size;
    }
    return true;
  }

 private:
  const std::vector<Slice>& slices_;
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
  tessera::fleet::ChunkView view;
  std::string error = tessera::fleet::DecodeChunk(*buffer, &view);
  buffer->Clear();
  if (!error.empty()) return Malformed(chunk, error);
  if (view.offset < chunk->begin || view.size > chunk->end - chunk->begin ||
      view.offset - chunk->begin > chunk->end - chunk->begin - view.size) {
    return Malformed(chunk, "the server sent bytes " + std::to_string(view.offset) + ".." +
                                std::to_string(view.offset + view.size) + " outside " +
                                std::to_string(chunk->begin) + ".." + std::to_string(chunk->end));
  }
  tessera::fleet::CopyPieces(view, chunk->base + view.offset);
  chunk->received += view.size;
  return Status::OK;
}

}  // namespace grpc

namespace tessera {
namespace fleet {

std::string DecodeChunk(const grpc::ByteBuffer& buffer, ChunkView* view) {
  grpc::Status dumped = buffer.Dump(&view->slices);
  if (!dumped.ok()) return "cannot read a chunk: " + dumped.error_message();
  grpc::SliceReader reader(view->slices);
  while (!reader.AtEnd()) {
    uint64_t tag, value;
    if (!reader.Varint(&tag)) return "truncated chunk";
    switch (tag & 7) {
      case 0:  // varint
        if (!reader.Varint(&value)) return "truncated chunk";
        if (tag == grpc::kArrayIdTag) view->array_id = static_cast<int64_t>(value);
        if (tag == grpc::kOffsetTag) view->offset = value;  // absent means 0 (proto3)
        break;
      case 2: {  // length-delimited
        if (!reader.Varint(&value)) return "truncated chunk";
        bool ok = true;
        if (tag == grpc::kDataTag) {
          view->size += value;
          ok = reader.Bytes(value, [view](const uint8_t* p, size_t n) {
            view->pieces.push_back({p, n});
          });
        } else if (tag == grpc::kSessionIdTag) {
          ok = reader.Bytes(value, [view](const uint8_t* p, size_t n) {
            view->session_id.append(reinterpret_cast<const char*>(p), n);
          });
        } else {
          ok = reader.Bytes(value, [](const uint8_t*, size_t) {});
        }
        if (!ok) return "truncated chunk";
        break;
      }
      case 1:
        if (!reader.Bytes(8, [](const uint8_t*, size_t) {})) return "truncated chunk";
        break;
      case 5:
        if (!reader.Bytes(4, [](const uint8_t*, size_t) {})) return "truncated chunk";
        break;
      default:
        return "unknown wire type in a chunk";
    }
  }
  return "";
}

void CopyPieces(const ChunkView& view, char* dest) {
  for (const auto& [data, size] : view.pieces) {
    std::memcpy(dest, data, size);
    dest += size;
  }
}

}  // namespace fleet
}  // namespace tessera
