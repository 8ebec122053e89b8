#include "fleet/client/raw_chunks.h"

#include <gtest/gtest.h>

#include "proto/device.pb.h"

namespace tessera {
namespace fleet {
namespace {

grpc::ByteBuffer FromBytes(const std::string& bytes) {
  // Split in two slices so that decoding has to cross a slice boundary.
  size_t half = bytes.size() / 2;
  grpc::Slice slices[2] = {grpc::Slice(bytes.substr(0, half)), grpc::Slice(bytes.substr(half))};
  return grpc::ByteBuffer(slices, 2);
}

TEST(RawChunksTest, OutgoingChunksAreOrdinaryArrayChunks) {
  std::string data(1000, 'q');
  data[999] = 'z';
  OutgoingChunk chunk;
  chunk.session_id = "abc";
  chunk.array_id = 7;
  chunk.offset = 300000;
  chunk.data = data.data();
  chunk.size = data.size();
  grpc::ByteBuffer buffer;
  bool own = false;
  ASSERT_TRUE(grpc::SerializationTraits<OutgoingChunk>::Serialize(chunk, &buffer, &own).ok());
  grpc::Slice flat;
  ASSERT_TRUE(buffer.DumpToSingleSlice(&flat).ok());
  device::v1::ArrayChunk parsed;
  ASSERT_TRUE(parsed.ParseFromArray(flat.begin(), static_cast<int>(flat.size())));
  EXPECT_EQ(parsed.session_id(), "abc");
  EXPECT_EQ(parsed.array_id(), 7);
  EXPECT_EQ(parsed.offset(), 300000);
  EXPECT_EQ(parsed.data(), data);
}

TEST(RawChunksTest, ProtobufChunksDecodeWithoutCopies) {
  device::v1::ArrayChunk chunk;
  chunk.set_session_id("s");
  chunk.set_array_id(3);
  chunk.set_offset(0);  // proto3 leaves it out
  chunk.set_data(std::string(5000, 'x'));
  ChunkView view;
  ASSERT_EQ(DecodeChunk(FromBytes(chunk.SerializeAsString()), &view), "");
  EXPECT_EQ(view.session_id, "s");
  EXPECT_EQ(view.array_id, 3);
  EXPECT_EQ(view.offset, 0u);
  EXPECT_EQ(view.size, 5000u);
  std::string copy(5000, '\0');
  CopyPieces(view, &copy[0]);
  EXPECT_EQ(copy, chunk.data());
}

TEST(RawChunksTest, IncomingChunksLandInTheirRangeOrAreRefused) {
  std::string out(100, '.');
  IncomingChunk sink;
  sink.base = &out[0];
  sink.begin = 10;
  sink.end = 20;
  device::v1::ArrayChunk chunk;
  chunk.set_offset(12);
  chunk.set_data("abcd");
  grpc::ByteBuffer buffer = FromBytes(chunk.SerializeAsString());
  ASSERT_TRUE(grpc::SerializationTraits<IncomingChunk>::Deserialize(&buffer, &sink).ok());
  EXPECT_EQ(out.substr(10, 10), "..abcd....");
  EXPECT_EQ(sink.received, 4u);

  chunk.set_offset(18);  // 18..22 reaches past 20
  buffer = FromBytes(chunk.SerializeAsString());
  EXPECT_FALSE(grpc::SerializationTraits<IncomingChunk>::Deserialize(&buffer, &sink).ok());
  EXPECT_EQ(sink.error, "the server sent bytes 18..22 outside 10..20");

  ChunkView view;
  std::string truncated = chunk.SerializeAsString();
  truncated.pop_back();
  EXPECT_EQ(DecodeChunk(FromBytes(truncated), &view), "truncated chunk");
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
