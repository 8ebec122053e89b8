// Test helper of //tests/integration:dashboard_test: puts a job with progress on a live tracker,
// as `tessera job submit` and one worker's batch would. Submits a job of two tasks (8 trials
// each) on key KEY, leases the first batch (4 trials) as a worker and reports it (three measured
// records and one failure); prints the job id. Then a second job of user ben at a higher priority,
// one task of weight 3 whose one batch of four brings new bests of 5, 3 and 1 ms (a 4 ms between),
// and prints its id on a second line.
//   dashboard_job TRACKER_ADDRESS TOKEN_FILE KEY
#include <grpcpp/grpcpp.h>

#include <iostream>
#include <string>

#include "fleet/secrets.h"
#include "proto/jobs.grpc.pb.h"

namespace {

using tessera::jobs::v1::JobService;

void Check(const grpc::Status& status, const char* what) {
  if (!status.ok()) {
    std::cerr << what << ": " << status.error_message() << "\n";
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: dashboard_job TRACKER_ADDRESS TOKEN_FILE KEY\n";
    return 2;
  }
  const std::string token = tessera::fleet::ReadTokenFile(argv[2]);
  const std::string key = argv[3];
  auto stub = JobService::NewStub(grpc::CreateChannel(argv[1], grpc::InsecureChannelCredentials()));
  auto context = [&token](grpc::ClientContext* c) { c->AddMetadata("x-tessera-token", token); };

  tessera::jobs::v1::SubmitRequest submit;
  for (const char* workload : {"dense.x86(64,64,64,float32)", "dense.x86(128,128,128,float32)"}) {
    tessera::jobs::v1::TaskSpec* task = submit.add_tasks();
    task->set_workload_key(workload);
    task->set_trials(8);
  }
  submit.mutable_tasks(1)->set_cold_weights(true);  // the page marks it
  submit.set_target("llvm -mcpu=znver3");
  submit.set_rpc_key(key);
  submit.set_user("ana");
  submit.set_tuner("random");
  submit.set_batch_size(4);
  submit.set_name("two-dense.onnx");
  tessera::jobs::v1::SubmitReply submitted;
  {
    grpc::ClientContext c;
    context(&c);
    Check(stub->Submit(&c, submit, &submitted), "Submit");
  }

  tessera::jobs::v1::LeaseRequest lease_request;
  lease_request.set_worker_id("dashboard-test-worker");
  tessera::jobs::v1::LeaseReply lease;
  {
    grpc::ClientContext c;
    context(&c);
    Check(stub->Lease(&c, lease_request, &lease), "Lease");
  }
  if (!lease.has_work()) {
    std::cerr << "Lease: no work\n";
    return 1;
  }
  tessera::jobs::v1::ReportRequest report;
  report.set_lease_id(lease.lease().lease_id());
  report.set_worker_id(lease_request.worker_id());
  for (int i = 0; i < lease.lease().trials(); ++i) {
    tessera::tuning::MeasureRecord* record = report.add_records();
    record->set_workload_key(lease.lease().workload_key());
    record->set_target(lease.lease().target());
    record->set_device_key(key);
    record->set_config_index(10 + i);
    record->set_timestamp(1700000100 + i);
    if (i == 0) {
      record->set_error_kind(tessera::tuning::COMPILE_ERROR);
      record->set_error_message("did not build");
    } else {
      record->add_costs(0.001 * (i + 1));
    }
  }
  tessera::jobs::v1::ReportReply reported;
  {
    grpc::ClientContext c;
    context(&c);
    Check(stub->Report(&c, report, &reported), "Report");
  }
  std::cout << submitted.job_id() << "\n";

  tessera::jobs::v1::SubmitRequest second = submit;
  second.clear_tasks();
  tessera::jobs::v1::TaskSpec* task = second.add_tasks();
  task->set_workload_key("dense.x86(32,32,32,float32)");
  task->set_trials(4);
  task->set_weight(3);
  second.set_user("ben");
  second.set_priority(5);
  second.set_name("one-dense.onnx");
  {
    grpc::ClientContext c;
    context(&c);
    Check(stub->Submit(&c, second, &submitted), "Submit");
  }
  {
    grpc::ClientContext c;
    context(&c);
    Check(stub->Lease(&c, lease_request, &lease), "Lease");
  }
  if (!lease.has_work() || lease.lease().job_id() != submitted.job_id()) {
    std::cerr << "Lease: not the second job's batch\n";
    return 1;
  }
  report.set_lease_id(lease.lease().lease_id());
  report.clear_records();
  const double costs_ms[] = {5, 3, 4, 1};
  for (int i = 0; i < lease.lease().trials(); ++i) {
    tessera::tuning::MeasureRecord* record = report.add_records();
    record->set_workload_key(lease.lease().workload_key());
    record->set_target(lease.lease().target());
    record->set_device_key(key);
    record->set_config_index(20 + i);
    record->set_timestamp(1700000200 + i);
    record->add_costs(costs_ms[i % 4] * 1e-3);
  }
  {
    grpc::ClientContext c;
    context(&c);
    Check(stub->Report(&c, report, &reported), "Report");
  }
  std::cout << submitted.job_id() << "\n";
  return 0;
}
