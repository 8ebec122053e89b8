// Fuzzes the rpc_server's array requests (AllocArray, FreeArray) on an open session: any shape
// and dtype is an allocation within the server's limit or a clear refusal, never a crash.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "fleet/secrets.h"
#include "proto/grant.h"
#include "rpc_server/device_service.h"
#include "tests/testing/fuzz.h"

namespace tessera {
namespace fleet {
namespace {

constexpr int64_t kLimit = 1 << 20;

TEST(AllocArrayFuzzTest, ArraysStayWithinTheLimitAndBadRequestsAreRefused) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  DeviceOptions options;
  options.server_id = "fuzzed";
  options.key = "cpu";
  options.workdir = tmp ? tmp : "/tmp";
  options.max_array_bytes = kLimit;
  DeviceService service(options);
  service.SetGrantKey("fuzz-key");
  device::v1::OpenSessionRequest open;
  open.mutable_grant()->set_session_id("session");
  open.mutable_grant()->set_key("cpu");
  open.mutable_grant()->set_server_id("fuzzed");
  open.mutable_grant()->set_expires_unix_ms(UnixMillis() + 3600000);
  SignGrant("fuzz-key", open.mutable_grant());
  device::v1::SessionRef session;
  grpc::ServerContext context;
  ASSERT_TRUE(service.OpenSession(&context, &open, &session).ok());

  testing::FuzzOptions fuzz;
  fuzz.max_size = 512;
  fuzz.dictionary = {"shape: ", "dtype: ", "\"float32\"", "\"int8\"",  "x4",        "x0",
                     " 0 ",     "-",       "\"bool\"",    "\"uint1\"", "\"float\"", "65536"};
  testing::Fuzz(
      testing::LoadCorpus("tests/rpc_server/corpus/alloc_array"),
      [&](const std::string& text) {
        device::v1::AllocArrayRequest request;
        if (!google::protobuf::TextFormat::ParseFromString(text, &request)) return;
        request.set_session_id("session");
        device::v1::AllocArrayReply reply;
        grpc::Status status = service.AllocArray(&context, &request, &reply);
        if (!status.ok()) {
          EXPECT_FALSE(status.error_message().empty());
          EXPECT_TRUE(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
                      status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED)
              << status.error_code() << " " << status.error_message();
          return;
        }
        EXPECT_LE(reply.nbytes(), kLimit) << testing::Escaped(text);
        device::v1::ArrayRef free;
        free.set_session_id("session");
        free.set_array_id(reply.array_id());
        device::v1::Empty empty;
        EXPECT_TRUE(service.FreeArray(&context, &free, &empty).ok());
      },
      fuzz);
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
