// The tracker's shared tuning log on loopback: push, best, list, stats through `LogClient`;
// duplicates, malformed and oversized pushes, and the token on every RPC.
#include "tracker/log_service.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "fleet/client/fleet_error.h"
#include "fleet/client/log_client.h"
#include "fleet/log_wire.h"
#include "tests/testing/postgres_server.h"

namespace tessera::tracker {
namespace {

tuning::MeasureRecord Record(const std::string& workload, int64_t config_index, double cost,
                             double timestamp) {
  tuning::MeasureRecord record;
  record.set_workload_key(workload);
  record.set_target("llvm -mcpu=znver3");
  record.set_device_key("cpu");
  record.set_config_index(config_index);
  record.add_costs(cost);
  record.set_timestamp(timestamp);
  tuning::KnobValue* knob = record.mutable_config()->add_knobs();
  knob->set_name("tile_y");
  knob->set_kind("sp");
  knob->add_ints(-1);
  knob->add_ints(8);
  return record;
}

tuning::MeasureRecord Failed(const std::string& workload, int64_t config_index) {
  tuning::MeasureRecord record = Record(workload, config_index, 0, 1700000100);
  record.clear_costs();
  record.set_error_kind(tuning::TIMEOUT);
  record.set_error_message("ran past 10 s");
  return record;
}

const char kDense[] = "dense.x86(64,64,64,float32)";
const char kConv[] = "conv2d_NCHWc.x86(1,64,56,56,64,3,3,1,1,float32)";

// A LogService over a private log on 127.0.0.1 with `token`, in each store: a SQLite file in a
// temporary directory, and a database on a real PostgreSQL server (skipped where there is none).
class LogServiceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void Start(const AccessTokens& tokens) {
    std::string why_not, location;
    if (!testing::StoreLocation(GetParam(), &location, &why_not)) GTEST_SKIP() << why_not;
    log_ = std::make_unique<SharedLog>("", location);
    service_ = std::make_unique<LogService>(log_.get(), tokens);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(port_, 0);
  }
  void SetUp() override { Start(AccessTokens()); }
  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::system_clock::now());
  }

  std::string Address() const { return "127.0.0.1:" + std::to_string(port_); }
  fleet::LogClient Client(const std::string& token = "") const {
    fleet::TrackerOptions options;
    options.address = Address();
    options.token = token;
    options.retry_window_ms = 0;
    return fleet::LogClient(options);
  }
  int64_t Count() {
    return log_->With([](records::TuningLog& log) { return log.Count(); });
  }
  grpc::Status RawPush(const log::v1::PushRequest& request) {
    auto stub = log::v1::LogService::NewStub(
        grpc::CreateChannel(Address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    log::v1::PushReply reply;
    return stub->Push(&context, request, &reply);
  }

  std::unique_ptr<SharedLog> log_;
  std::unique_ptr<LogService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

TEST_P(LogServiceTest, PushedRecordsComeBackAsBestListAndStats) {
  fleet::LogClient client = Client();
  std::vector<tuning::MeasureRecord> records = {
      Record(kDense, 3, 0.002, 1700000000), Record(kDense, 7, 0.001, 1700000001), Failed(kDense, 9),
      Record(kConv, 1, 0.004, 1700000002), Failed(kConv + std::string("x"), 2)};
  records.back().set_workload_key("depthwise_conv2d.x86(1,32,28,28,3,3,1,1,float32)");
  records::ImportResult pushed = client.Push(records);
  EXPECT_EQ(pushed.imported, 5);
  EXPECT_EQ(pushed.duplicates, 0);

  fleet::BestRecords best = client.Best({});
  EXPECT_EQ(best.workloads, 3);  // the depthwise workload only failed: no best record
  ASSERT_EQ(best.records.size(), 2u);
  EXPECT_EQ(best.records[0].workload_key(), kConv);
  EXPECT_EQ(best.records[1].workload_key(), kDense);
  EXPECT_EQ(best.records[1].config_index(), 7);
  EXPECT_EQ(best.records[1].config().knobs(0).ints(1), 8);

  records::RecordFilter dense;
  dense.workload_key = kDense;
  std::vector<tuning::MeasureRecord> listed = client.List(dense);
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].config_index(), 3);
  EXPECT_EQ(listed[2].error_kind(), tuning::TIMEOUT);
  dense.limit = 1;
  listed = client.List(dense);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].config_index(), 9);

  std::vector<records::WorkloadStats> stats = client.Stats({});
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats[1].workload_key, kDense);
  EXPECT_EQ(stats[1].records, 3);
  EXPECT_EQ(stats[1].failures, 1);
  EXPECT_DOUBLE_EQ(stats[1].best_cost, 0.001);
  EXPECT_TRUE(std::isinf(stats[2].best_cost));
  EXPECT_EQ(client.SourceName(), "tracker://" + Address());
}

TEST_P(LogServiceTest, ListStreamsManyChunksInOrder) {
  std::vector<tuning::MeasureRecord> records;
  for (int i = 0; i < 3 * kListChunkRecords + 5; ++i) {
    records.push_back(Record(kDense, i, 0.001 + i * 1e-6, 1700000000 + i));
  }
  fleet::LogClient client = Client();
  EXPECT_EQ(client.Push(records).imported, static_cast<int64_t>(records.size()));
  std::vector<tuning::MeasureRecord> listed = client.List({});
  ASSERT_EQ(listed.size(), records.size());
  for (size_t i = 0; i < listed.size(); ++i) EXPECT_EQ(listed[i].config_index(), int64_t(i));
}

TEST_P(LogServiceTest, PushingTwiceSkipsDuplicates) {
  fleet::LogClient client = Client();
  std::vector<tuning::MeasureRecord> records = {Record(kDense, 3, 0.002, 1700000000),
                                                Record(kDense, 7, 0.001, 1700000001)};
  EXPECT_EQ(client.Push(records).imported, 2);
  records.push_back(Record(kDense, 8, 0.003, 1700000002));
  records::ImportResult again = client.Push(records);
  EXPECT_EQ(again.imported, 1);
  EXPECT_EQ(again.duplicates, 2);
  EXPECT_EQ(Count(), 3);
}

TEST_P(LogServiceTest, MalformedRecordsAreRefusedByNameAndNothingIsWritten) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    std::function<void(tuning::MeasureRecord*)> spoil;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](auto* r) { r->clear_workload_key(); }, "record 1: workload_key is empty"},
      {[](auto* r) { r->set_workload_key("dense"); },
       "record 1: workload_key 'dense' is not of the form template(arguments)"},
      {[](auto* r) { r->set_workload_key("dense.x86(" + std::string(2000, '1') + ")"); },
       "record 1: workload_key is 2011 bytes (at most 1024)"},
      {[](auto* r) { r->set_target(std::string("llvm\n-mcpu=x")); },
       "record 1: target holds a control character"},
      {[](auto* r) { r->clear_target(); }, "record 1: target is empty"},
      {[](auto* r) { r->set_costs(0, -1); }, "record 1: costs[0] is -1.000000"},
      {[nan](auto* r) { r->add_costs(nan); }, "record 1: costs[1] is nan"},
      {[](auto* r) { r->clear_costs(); },
       "record 1: a successful record (error_kind OK) has no costs"},
      {[](auto* r) { r->set_error_kind(static_cast<tuning::ErrorKind>(42)); },
       "record 1: error_kind 42 is unknown"},
      {[](auto* r) { r->set_config_index(-2); }, "record 1: config_index is negative (-2)"},
      {[](auto* r) { r->mutable_config()->mutable_knobs(0)->set_kind("zz"); },
       "record 1: config.knobs[0].kind is 'zz' (one of sp, re, an, ot)"},
      {[](auto* r) { r->set_timestamp(-5); }, "record 1: timestamp is not a finite time"},
      {[](auto* r) { r->set_error_message(std::string(20000, 'e')); },
       "record 1: error_message is 20000 bytes (at most 16384)"},
  };
  for (const Case& c : cases) {
    log::v1::PushRequest request;
    *request.add_records() = Record(kDense, 1, 0.001, 1700000000);
    tuning::MeasureRecord bad = Record(kDense, 2, 0.001, 1700000001);
    c.spoil(&bad);
    *request.add_records() = bad;
    *request.add_records() = Record(kDense, 3, 0.001, 1700000002);
    grpc::Status status = RawPush(request);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.message;
    EXPECT_NE(status.error_message().find("Push: " + c.message), std::string::npos)
        << status.error_message();
    EXPECT_NE(status.error_message().find("nothing was written"), std::string::npos);
    EXPECT_EQ(Count(), 0) << c.message;
  }
}

TEST_P(LogServiceTest, OversizedPushesAreRefusedAndNothingIsWritten) {
  log::v1::PushRequest many;
  for (int i = 0; i <= fleet::kMaxPushRecords; ++i) {
    *many.add_records() = Record(kDense, i, 0.001, 1700000000 + i);
  }
  grpc::Status status = RawPush(many);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.error_message(),
            "Push: 5001 records in one batch (at most 5000); nothing was written");

  // Over gRPC's message limit: refused before the tracker reads it.
  log::v1::PushRequest huge;
  for (int i = 0; i < 400; ++i) {
    tuning::MeasureRecord r = Record(kDense, i, 0.001, 1700000000 + i);
    r.set_error_message(std::string(16000, 'x'));
    *huge.add_records() = r;
  }
  status = RawPush(huge);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(Count(), 0);

  // The client splits the same records into batches the tracker takes.
  EXPECT_EQ(Client().Push({huge.records().begin(), huge.records().end()}).imported, 400);
}

class LogServiceTokenTest : public LogServiceTest {
 protected:
  void SetUp() override { Start(AccessTokens("s3cret", "r3ader")); }
};

// Every RPC of the service, through the client.
void CallEveryRpc(const fleet::LogClient& client, const std::string& expected_message) {
  const std::vector<std::pair<std::string, std::function<void()>>> calls = {
      {"Best", [&] { client.Best({}); }},
      {"List", [&] { client.List({}); }},
      {"Stats", [&] { client.Stats({}); }},
      {"Push", [&] { client.Push({Record(kDense, 1, 0.001, 1700000000)}); }},
  };
  for (const auto& [name, call] : calls) {
    try {
      call();
      ADD_FAILURE() << name << " was not refused";
    } catch (const fleet::FleetError& e) {
      EXPECT_EQ(e.code(), fleet::FleetErrorCode::kUnauthenticated) << name;
      EXPECT_NE(std::string(e.what()).find(expected_message), std::string::npos)
          << name << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("(" + name + ")"), std::string::npos) << e.what();
    }
  }
}

TEST_P(LogServiceTokenTest, MissingOrForgedTokenIsRefusedOnEveryRpc) {
  CallEveryRpc(Client(), "missing token");
  CallEveryRpc(Client("s3creT"), "wrong token");
  CallEveryRpc(Client("s3cret-and-more"), "wrong token");
  EXPECT_EQ(Count(), 0);
  fleet::LogClient client = Client("s3cret");
  EXPECT_EQ(client.Push({Record(kDense, 1, 0.001, 1700000000)}).imported, 1);
  EXPECT_EQ(client.Best({}).records.size(), 1u);
}

// The read-only token (a CI build's, a dashboard's) queries the log and cannot push to it.
TEST_P(LogServiceTokenTest, TheReadOnlyTokenQueriesButCannotPush) {
  ASSERT_EQ(Client("s3cret").Push({Record(kDense, 1, 0.001, 1700000000)}).imported, 1);
  fleet::LogClient reader = Client("r3ader");
  EXPECT_EQ(reader.Best({}).records.size(), 1u);
  EXPECT_EQ(reader.List({}).size(), 1u);
  EXPECT_EQ(reader.Stats({}).size(), 1u);
  try {
    reader.Push({Record(kDense, 2, 0.002, 1700000001)});
    ADD_FAILURE() << "a push with the read-only token was not refused";
  } catch (const fleet::FleetError& e) {
    EXPECT_EQ(e.code(), fleet::FleetErrorCode::kPermissionDenied);
    EXPECT_NE(std::string(e.what()).find("the read-only token reads the shared log and the fleet "
                                         "status only"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(Count(), 1);
}

INSTANTIATE_TEST_SUITE_P(Stores, LogServiceTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });
INSTANTIATE_TEST_SUITE_P(Stores, LogServiceTokenTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tessera::tracker
