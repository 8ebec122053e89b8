// The dashboard's HTTP server on loopback: the token on every endpoint and the page (401 without
// it, 403 with a forged one), the JSON behind the page, and a taken port refused.
#include "tracker/dashboard/dashboard.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "tracker/dashboard/dashboard_json.h"

namespace tessera::tracker {
namespace {

const char kToken[] = "dashboard-s3cret";
const char kReadToken[] = "dashboard-r3ader";

v1::FleetStatus SomeFleet() {
  v1::FleetStatus status;
  status.add_keys("rpi4");
  status.add_keys("cpu");
  for (const char* state : {"free", "busy", "dead"}) {
    v1::ServerStatus* s = status.add_servers();
    s->set_key("rpi4");
    s->set_state(state);
    s->set_address(std::string("10.0.0.1:") + state);
    s->mutable_info()->set_arch("aarch64");
  }
  v1::GpuInfo* gpu = status.mutable_servers(1)->mutable_info()->add_gpus();
  gpu->set_name("Orin");
  gpu->set_arch("sm_87");
  gpu->set_memory_bytes(int64_t{32} << 30);
  v1::QueueStatus* queue = status.add_queues();
  queue->set_key("rpi4");
  queue->set_length(3);
  v1::SessionStatus* session = status.add_sessions();
  session->set_session_id("s1");
  session->set_key("rpi4");
  session->set_user("ana");
  return status;
}

class DashboardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tuning::MeasureRecord record;
    record.set_workload_key("dense.x86(64,64,64,float32)");
    record.set_target("llvm");
    record.set_device_key("rpi4");
    record.set_config_index(7);
    record.add_costs(0.002);
    log_.With([&](records::TuningLog& log) {
      log.Append(record);
      record.set_config_index(8);
      record.set_costs(0, 0.001);
      log.Append(record);
      record.set_workload_key("dense.x86(8,8,8,float32)");
      record.clear_costs();
      record.set_error_kind(tuning::COMPILE_ERROR);
      log.Append(record);
    });
    DashboardSources sources;
    sources.fleet = [] { return SomeFleet(); };
    sources.log = &log_;
    dashboard_ = std::make_unique<Dashboard>(sources, AccessTokens(kToken, kReadToken));
    port_ = dashboard_->Start("127.0.0.1:0");
    ASSERT_GT(port_, 0);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
  }

  httplib::Result Get(const std::string& path, const std::string& token) {
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("x-tessera-token", token);
    return client_->Get(path.c_str(), headers);
  }
  Json GetJson(const std::string& path) {
    httplib::Result result = Get(path, kToken);
    EXPECT_TRUE(result) << path;
    EXPECT_EQ(result->status, 200) << path;
    EXPECT_EQ(result->get_header_value("Content-Type"), "application/json");
    return Json::parse(result->body);
  }

  SharedLog log_{""};
  std::unique_ptr<Dashboard> dashboard_;
  std::unique_ptr<httplib::Client> client_;
  int port_ = 0;
};

// A dashboard is for reading: the read-only token opens the page and every endpoint.
TEST_F(DashboardTest, TheReadOnlyTokenOpensEverything) {
  for (const std::string path :
       {"/", "/api/fleet", "/api/best", "/api/jobs", "/api/fleet_history", "/api/queue"}) {
    httplib::Result read = Get(path, kReadToken);
    ASSERT_TRUE(read) << path;
    EXPECT_EQ(read->status, 200) << path;
  }
}

TEST_F(DashboardTest, MissingOrForgedTokenIsRefusedOnEveryEndpointAndThePage) {
  for (const std::string path : {"/", "/api/fleet", "/api/best", "/api/jobs", "/api/fleet_history",
                                 "/api/queue", "/nothing"}) {
    httplib::Result missing = Get(path, "");
    ASSERT_TRUE(missing) << path;
    EXPECT_EQ(missing->status, 401) << path;
    EXPECT_NE(missing->body.find("missing token"), std::string::npos) << missing->body;
    EXPECT_EQ(missing->body.find("dense.x86"), std::string::npos);
    for (const std::string forged : {"dashboard-s3cre", "dashboard-s3cret2", "x"}) {
      httplib::Result refused = Get(path, forged);
      ASSERT_TRUE(refused) << path;
      EXPECT_EQ(refused->status, 403) << path;
      EXPECT_NE(refused->body.find("wrong token"), std::string::npos) << refused->body;
    }
    httplib::Result forged_query = Get(path + "?token=nope", "");
    ASSERT_TRUE(forged_query);
    EXPECT_EQ(forged_query->status, path == "/" ? 403 : 401) << path;
  }
  // Only the page takes the token from its URL; the endpoints want the header.
  EXPECT_EQ(Get(std::string("/?token=") + kToken, "")->status, 200);
  EXPECT_EQ(Get(std::string("/api/best?token=") + kToken, "")->status, 401);
  EXPECT_EQ(Get("/nothing", kToken)->status, 404);
}

TEST_F(DashboardTest, ThePageIsOneSelfContainedDocument) {
  httplib::Result page = Get("/", kToken);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<title>Tessera tracker</title>"), std::string::npos);
  EXPECT_NE(page->body.find("x-tessera-token"), std::string::npos);
  EXPECT_EQ(page->body.find("src=\"http"), std::string::npos);  // no external assets
  EXPECT_EQ(page->body.find("href=\"http"), std::string::npos);
  EXPECT_NE(page->body.find("Chart.js v3"), std::string::npos);  // the charting library, inlined
  EXPECT_EQ(page->body.find("<!-- chart.js -->"), std::string::npos);
}

TEST_F(DashboardTest, TheFleetIsSampledFromTheStart) {
  Json history = GetJson("/api/fleet_history");
  ASSERT_TRUE(history["keys"].contains("rpi4")) << history.dump();
  const Json& sample = history["keys"]["rpi4"][0];
  EXPECT_GT(sample[0].get<int64_t>(), 0);  // when
  EXPECT_EQ(sample[1], 1);                 // free
  EXPECT_EQ(sample[2], 1);                 // busy
  EXPECT_EQ(sample[3], 1);                 // dead
  EXPECT_EQ(history["keys"]["cpu"][0], Json::array({sample[0], 0, 0, 0}));
}

TEST(FleetHistoryTest, KeepsTheLastSamplesAndZeroesAbsentKeys) {
  FleetHistory history(2);
  history.Add(1, SomeFleet());
  v1::FleetStatus later;
  later.add_keys("cpu");
  v1::ServerStatus* s = later.add_servers();
  s->set_key("cpu");
  s->set_state("busy");
  history.Add(2, later);
  history.Add(3, later);
  Json json = history.ToJson();
  EXPECT_FALSE(json["keys"].contains("rpi4"));  // its only sample is gone
  EXPECT_EQ(json["keys"]["cpu"], Json::parse("[[2,0,1,0],[3,0,1,0]]"));
  FleetHistory both;
  both.Add(1, SomeFleet());
  both.Add(2, later);
  EXPECT_EQ(both.ToJson()["keys"]["rpi4"], Json::parse("[[1,1,1,1],[2,0,0,0]]"));
}

jobs::v1::BestPoint Best(int64_t unix_ms, int64_t done, double cost) {
  jobs::v1::BestPoint p;
  p.set_unix_ms(unix_ms);
  p.set_done(done);
  p.set_best_cost(cost);
  return p;
}

TEST(JobsJsonTest, TheModelCurveStartsWhenEveryTaskHasABest) {
  jobs::v1::JobStatus job;
  jobs::v1::TaskStatus* conv = job.add_tasks();
  conv->set_weight(3);
  *conv->add_improvements() = Best(100, 1, 4e-3);
  *conv->add_improvements() = Best(300, 9, 2e-3);
  jobs::v1::TaskStatus* dense = job.add_tasks();  // weight 0: counts once
  *dense->add_improvements() = Best(200, 2, 1e-3);
  *dense->add_improvements() = Best(300, 5, 0.5e-3);
  const Json curve = ModelCurveJson(job);
  ASSERT_EQ(curve.size(), 2u) << curve.dump();
  EXPECT_EQ(curve[0][0], 200);
  EXPECT_DOUBLE_EQ(curve[0][1].get<double>(), 3 * 4e-3 + 1e-3);
  EXPECT_EQ(curve[1][0], 300);  // one point for the two bests of one report
  EXPECT_DOUBLE_EQ(curve[1][1].get<double>(), 3 * 2e-3 + 0.5e-3);
  // A Winograd alternative of the first task: the faster of the two counts, at the task's weight.
  jobs::v1::TaskStatus* winograd = job.add_tasks();
  conv->set_workload_key("conv");
  winograd->set_workload_key("winograd");
  winograd->set_alternative_to("conv");
  winograd->set_weight(3);
  *winograd->add_improvements() = Best(250, 1, 1e-3);
  const Json with_alternative = ModelCurveJson(job);
  ASSERT_EQ(with_alternative.size(), 3u) << with_alternative.dump();
  EXPECT_DOUBLE_EQ(with_alternative[1][1].get<double>(), 3 * 1e-3 + 1e-3);    // at 250
  EXPECT_DOUBLE_EQ(with_alternative[2][1].get<double>(), 3 * 1e-3 + 0.5e-3);  // at 300
  job.mutable_tasks()->RemoveLast();
  jobs::v1::JobList list;
  *list.add_jobs() = job;
  EXPECT_EQ(JobsJson(list)[0]["tasks"][1]["improvements"],
            Json::parse("[[200,2,0.001],[300,5,0.0005]]"));
  EXPECT_EQ(JobsJson(list)[0]["tasks"][1]["cold_weights"], false);
  list.mutable_jobs(0)->mutable_tasks(1)->set_cold_weights(true);
  EXPECT_EQ(JobsJson(list)[0]["tasks"][1]["cold_weights"], true);
}

TEST_F(DashboardTest, FleetCountsServersPerKeyByState) {
  Json fleet = GetJson("/api/fleet");
  ASSERT_EQ(fleet["keys"].size(), 2u);
  EXPECT_EQ(fleet["keys"][0],
            Json::parse(R"({"key":"cpu","free":0,"busy":0,"dead":0,"queued":0})"));
  EXPECT_EQ(fleet["keys"][1],
            Json::parse(R"({"key":"rpi4","free":1,"busy":1,"dead":1,"queued":3})"));
  ASSERT_EQ(fleet["servers"].size(), 3u);
  EXPECT_EQ(fleet["servers"][2]["state"], "dead");
  EXPECT_EQ(fleet["servers"][2]["arch"], "aarch64");
  EXPECT_EQ(fleet["servers"][0]["gpus"], Json::array());
  EXPECT_EQ(fleet["servers"][1]["gpus"],
            Json::parse(R"([{"name":"Orin","arch":"sm_87","memory_bytes":34359738368}])"));
  ASSERT_EQ(fleet["sessions"].size(), 1u);
  EXPECT_EQ(fleet["sessions"][0]["user"], "ana");
}

TEST_F(DashboardTest, BestShowsTheFastestRecordPerWorkload) {
  Json best = GetJson("/api/best");
  EXPECT_EQ(best["total_records"], 3);
  EXPECT_EQ(best["truncated"], false);
  ASSERT_EQ(best["workloads"].size(), 2u);
  const Json& dense = best["workloads"][0];
  EXPECT_EQ(dense["workload_key"], "dense.x86(64,64,64,float32)");
  EXPECT_EQ(dense["config_index"], 8);
  EXPECT_DOUBLE_EQ(dense["best_seconds"].get<double>(), 0.001);
  EXPECT_EQ(dense["records"], 2);
  EXPECT_EQ(dense["device_key"], "rpi4");
  const Json& failed = best["workloads"][1];
  EXPECT_EQ(failed["failures"], 1);
  EXPECT_TRUE(failed["best_seconds"].is_null());
  EXPECT_TRUE(failed["config_index"].is_null());
}

TEST_F(DashboardTest, WithoutAJobServiceTheJobsEndpointSaysSo) {
  Json jobs = GetJson("/api/jobs");
  EXPECT_EQ(jobs["service"], false);
  EXPECT_EQ(jobs["reason"], "no job service on this tracker");
  EXPECT_TRUE(jobs["jobs"].empty());
}

TEST_F(DashboardTest, ATakenPortIsRefusedNotShared) {
  DashboardSources sources;
  sources.fleet = [] { return SomeFleet(); };
  sources.log = &log_;
  Dashboard second(sources, kToken);
  const std::string address = "127.0.0.1:" + std::to_string(port_);
  try {
    second.Start(address);
    FAIL() << "a second dashboard started on " << address;
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "tessera-tracker: cannot serve the dashboard on '" + address +
                                         "': port " + std::to_string(port_) +
                                         " is already in use by another process");
  }
  EXPECT_EQ(Get("/api/jobs", kToken)->status, 200);  // the first one still serves
}

TEST(JobsJsonTest, JobsCarryTheirProgressAndUnknownFiguresAreNull) {
  jobs::v1::JobList list;
  jobs::v1::JobStatus* job = list.add_jobs();
  job->set_job_id("j1");
  job->set_state("running");
  job->set_trials(16);
  job->set_done(4);
  job->set_eta_s(-1);
  jobs::v1::TaskStatus* first = job->add_tasks();
  first->set_workload_key("dense.x86(64,64,64,float32)");
  first->set_trials(8);
  first->set_done(4);
  first->set_failed(1);
  first->set_best_cost(0.002);
  first->set_eta_s(7);
  jobs::v1::TaskStatus* second = job->add_tasks();
  second->set_workload_key("dense.x86(8,8,8,float32)");
  second->set_trials(8);
  second->set_eta_s(-1);
  list.add_jobs()->set_job_id("j2");  // nothing done yet

  Json jobs = JobsJson(list);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0]["trials_total"], 16);
  EXPECT_EQ(jobs[0]["trials_done"], 4);
  EXPECT_DOUBLE_EQ(jobs[0]["failed_share"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(jobs[0]["best_seconds"].get<double>(), 0.002);
  EXPECT_TRUE(jobs[0]["eta_seconds"].is_null());
  EXPECT_DOUBLE_EQ(jobs[0]["tasks"][0]["eta_seconds"].get<double>(), 7);
  EXPECT_TRUE(jobs[0]["tasks"][1]["best_seconds"].is_null());
  EXPECT_TRUE(jobs[1]["failed_share"].is_null());
  EXPECT_TRUE(jobs[1]["best_seconds"].is_null());
}

TEST_F(DashboardTest, WithAJobServiceTheJobsEndpointListsItsJobs) {
  DashboardSources sources;
  sources.fleet = [] { return SomeFleet(); };
  sources.log = &log_;
  sources.jobs = [] { return Json::array({{{"id", "j1"}}}); };
  Dashboard with_jobs(sources, kToken);
  httplib::Client client("127.0.0.1", with_jobs.Start("127.0.0.1:0"));
  httplib::Result result = client.Get("/api/jobs", {{"x-tessera-token", kToken}});
  ASSERT_TRUE(result);
  EXPECT_EQ(Json::parse(result->body), Json::parse(R"({"service":true,"jobs":[{"id":"j1"}]})"));
  // What the worker pool scales by, from the same jobs.
  sources.jobs = [] {
    return Json::array({{{"id", "j1"},
                         {"state", "running"},
                         {"trials_total", 64},
                         {"trials_done", 24},
                         {"workers", 2},
                         {"tasks", Json::array()}}});
  };
  Dashboard queue(sources, kToken);
  httplib::Client queue_client("127.0.0.1", queue.Start("127.0.0.1:0"));
  result = queue_client.Get("/api/queue", {{"x-tessera-token", kToken}});
  ASSERT_TRUE(result);
  EXPECT_EQ(Json::parse(result->body)["pending_trials"], 40);
}

TEST(DashboardWithoutTokenTest, ServesLoopbackPeers) {
  SharedLog log("");
  DashboardSources sources;
  sources.fleet = [] { return v1::FleetStatus(); };
  sources.log = &log;
  Dashboard dashboard(sources, "");
  httplib::Client client("127.0.0.1", dashboard.Start("127.0.0.1:0"));
  httplib::Result result = client.Get("/api/fleet");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(Json::parse(result->body)["servers"].size(), 0u);
}

// What an autoscaler reads: only queued and running jobs count.
TEST(QueueJsonTest, CountsTheTrialsLeftOfActiveJobs) {
  jobs::v1::JobList list;
  jobs::v1::JobStatus* running = list.add_jobs();
  running->set_job_id("j1");
  running->set_state("running");
  running->set_trials(100);
  running->set_done(40);
  running->set_workers(3);
  running->add_tasks()->set_leased(8);
  running->add_tasks()->set_leased(4);
  jobs::v1::JobStatus* queued = list.add_jobs();
  queued->set_job_id("j2");
  queued->set_state("queued");
  queued->set_trials(50);
  jobs::v1::JobStatus* done = list.add_jobs();
  done->set_job_id("j3");
  done->set_state("done");
  done->set_trials(70);
  EXPECT_EQ(
      QueueJson(JobsJson(list)),
      Json({{"active_jobs", 2}, {"pending_trials", 110}, {"leased_trials", 12}, {"workers", 3}}));
  EXPECT_EQ(QueueJson(Json::array())["pending_trials"], 0);
  // A tracker sharing its jobs with others counts only those its devices measure.
  running->set_rpc_key("phone");
  queued->set_rpc_key("cpu");
  EXPECT_EQ(
      QueueJson(JobsJson(list), [](const std::string& key) { return key == "cpu"; }),
      Json({{"active_jobs", 1}, {"pending_trials", 50}, {"leased_trials", 0}, {"workers", 0}}));
}

}  // namespace
}  // namespace tessera::tracker
