#include "rpc_server/array_streams.h"

#include <algorithm>

#include "fleet/client/raw_chunks.h"

namespace tessera {
namespace fleet {
namespace {

constexpr size_t kChunkBytes = 1 << 20;

// Receives chunks and copies their data from the received slices straight into the array's
// shared memory. Several streams may fill disjoint ranges of one array in parallel.
class ArrayFiller : public grpc::ServerReadReactor<grpc::ByteBuffer> {
 public:
  ArrayFiller(ArrayLookup lookup, grpc::ByteBuffer* response)
      : lookup_(std::move(lookup)), response_(response) {
    StartRead(&buffer_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) {  // the client has sent everything
      if (!array_) {
        Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "empty copy"));
        return;
      }
      device::v1::CopyReply reply;
      reply.set_bytes(copied_);
      grpc::Slice slice(reply.SerializeAsString());
      *response_ = grpc::ByteBuffer(&slice, 1);
      Finish(grpc::Status::OK);
      return;
    }
    ChunkView view;
    std::string error = DecodeChunk(buffer_, &view);
    buffer_.Clear();
    if (!error.empty()) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "CopyIn: " + error));
      return;
    }
    if (!array_) {
      grpc::Status status;
      array_ = lookup_(view.session_id, view.array_id, &status);
      array_id_ = view.array_id;
      if (!array_) {
        Finish(status);
        return;
      }
    }
    if (view.offset > array_->nbytes() || view.size > array_->nbytes() - view.offset) {
      Finish(OutsideArray(array_id_, *array_, view.offset, view.offset + view.size));
      return;
    }
    CopyPieces(view, array_->data() + view.offset);
    copied_ += static_cast<int64_t>(view.size);
    StartRead(&buffer_);
  }
  void OnDone() override { delete this; }

 private:
  ArrayLookup lookup_;
  grpc::ByteBuffer* response_;
  grpc::ByteBuffer buffer_;
  std::shared_ptr<SharedArray> array_;
  int64_t array_id_ = 0;
  int64_t copied_ = 0;
};

// Streams bytes [begin, end) of an array: each chunk is a header plus a slice over the shared
// memory itself, so nothing is copied before the socket. Holding the array keeps it mapped.
class ArrayWriter : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  ArrayWriter(std::shared_ptr<SharedArray> array, int64_t id, size_t begin, size_t end)
      : array_(std::move(array)), id_(id), offset_(begin), end_(end) {
    Next();
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client stopped reading"));
      return;
    }
    Next();
  }
  void OnDone() override { delete this; }

 private:
  void Next() {
    if (offset_ >= end_) {
      Finish(grpc::Status::OK);
      return;
    }
    OutgoingChunk chunk;
    chunk.array_id = id_;
    chunk.offset = static_cast<int64_t>(offset_);
    chunk.data = array_->data() + offset_;
    chunk.size = std::min(kChunkBytes, end_ - offset_);
    offset_ += chunk.size;
    bool own = false;
    grpc::SerializationTraits<OutgoingChunk>::Serialize(chunk, &buffer_, &own);
    StartWrite(&buffer_);
  }

  std::shared_ptr<SharedArray> array_;
  int64_t id_;
  size_t offset_;
  size_t end_;
  grpc::ByteBuffer buffer_;
};

// Ends a streaming call with an error before any data.
class FailedWriter : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  explicit FailedWriter(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::Status OutsideArray(int64_t array_id, const SharedArray& array, size_t begin, size_t end) {
  return grpc::Status(grpc::StatusCode::OUT_OF_RANGE,
                      "bytes " + std::to_string(begin) + ".." + std::to_string(end) +
                          " are outside array " + std::to_string(array_id) + " of " +
                          std::to_string(array.nbytes()) + " bytes");
}

grpc::ServerReadReactor<grpc::ByteBuffer>* NewArrayFiller(ArrayLookup lookup,
                                                          grpc::ByteBuffer* response) {
  return new ArrayFiller(std::move(lookup), response);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* NewArrayWriter(std::shared_ptr<SharedArray> array,
                                                           int64_t array_id, size_t begin,
                                                           size_t end) {
  return new ArrayWriter(std::move(array), array_id, begin, end);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* NewFailedWriter(const grpc::Status& status) {
  return new FailedWriter(status);
}

}  // namespace fleet
}  // namespace tessera
