// Bad input: every invalid field is rejected with INVALID_ARGUMENT naming it, nothing is
// applied, and the server keeps answering.
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

class BadInputTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    CreateSim("sim", 8, "conservative");
  }
  // Submits `spec` and expects INVALID_ARGUMENT whose BadRequest names `field`.
  void ExpectRejected(const pb::JobSpec& spec, const std::string& field) {
    SCOPED_TRACE(field);
    pb::SubmitJobResponse response;
    const auto status = Submit("sim", spec, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_EQ(ViolatedField(status), field) << status.error_message();
  }
};

TEST_F(BadInputTest, EachInvalidJobFieldIsNamed) {
  pb::JobSpec spec = Rigid(0, 10);
  ExpectRejected(spec, "job.model.rigid.k");
  spec = Rigid(2, 0);
  ExpectRejected(spec, "job.model.rigid.time");
  spec = Rigid(2, 10);
  spec.mutable_model()->mutable_rigid()->mutable_time()->set_seconds(-5);
  ExpectRejected(spec, "job.model.rigid.time");
  ExpectRejected(pb::JobSpec(), "job.model");
  spec = pb::JobSpec();
  spec.mutable_model();
  ExpectRejected(spec, "job.model");
  spec = Rigid(2, 10);
  spec.set_weight(-1);
  ExpectRejected(spec, "job.weight");
  spec = Rigid(16, 10);  // wider than the cluster
  ExpectRejected(spec, "job.model");
  spec = Rigid(2, 10);
  spec.mutable_release()->set_seconds(-1);
  ExpectRejected(spec, "job.release");
  spec = Rigid(2, 10);
  spec.mutable_release()->set_nanos(2'000'000'000);
  ExpectRejected(spec, "job.release");
  spec = Rigid(2, 10);
  spec.mutable_release()->set_seconds(100);
  spec.mutable_deadline()->set_seconds(50);
  ExpectRejected(spec, "job.deadline");
  spec = pb::JobSpec();
  spec.mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(10);
  spec.mutable_model()->mutable_amdahl()->set_alpha(1.5);
  ExpectRejected(spec, "job.model.amdahl.alpha");
  spec = pb::JobSpec();
  spec.mutable_model()->mutable_downey()->mutable_t1()->set_seconds(10);
  spec.mutable_model()->mutable_downey()->set_a(0.5);
  ExpectRejected(spec, "job.model.downey.a");
  spec = pb::JobSpec();
  auto* entry = spec.mutable_model()->mutable_table()->add_entries();
  entry->set_k(2);
  entry->mutable_time()->set_seconds(5);
  entry = spec.mutable_model()->mutable_table()->add_entries();
  entry->set_k(1);
  entry->mutable_time()->set_seconds(9);
  ExpectRejected(spec, "job.model.table.entries[1].k");
  spec = Rigid(2, 10);
  spec.set_name(std::string(300, 'x'));
  ExpectRejected(spec, "job.name");
  spec = Rigid(2, 10);
  spec.mutable_model()->mutable_rigid()->mutable_time()->set_seconds(400LL * 24 * 3600 * 366);
  ExpectRejected(spec, "job.model.rigid.time");

  // Nothing was applied and the server still answers.
  EXPECT_EQ(Schedule("sim").jobs_size(), 0);
  pb::SubmitJobResponse ok;
  EXPECT_OK(Submit("sim", Rigid(2, 10), &ok));
}

TEST_F(BadInputTest, InvalidClustersRequestsAndIds) {
  auto create = [&](pb::ClusterSpec spec) {
    pb::CreateClusterRequest request;
    *request.mutable_spec() = std::move(spec);
    pb::Cluster cluster;
    grpc::ClientContext context;
    return stub_->CreateCluster(&context, request, &cluster);
  };
  pb::ClusterSpec spec;
  spec.set_name("x");
  EXPECT_EQ(ViolatedField(create(spec)), "cluster.processors");
  spec.set_processors(2'000'000);
  EXPECT_EQ(ViolatedField(create(spec)), "cluster.processors");
  spec.set_processors(4);
  spec.set_name("bad name!");
  EXPECT_EQ(ViolatedField(create(spec)), "cluster.name");
  spec.set_name("x");
  spec.mutable_policy()->set_name("nope");
  EXPECT_EQ(ViolatedField(create(spec)), "cluster.policy.name");
  spec.mutable_policy()->set_name("easy");
  (*spec.mutable_policy()->mutable_params())["rho"] = 2;
  EXPECT_EQ(ViolatedField(create(spec)), "cluster.policy.params");
  spec.clear_policy();
  spec.set_name("sim");
  EXPECT_EQ(create(spec).error_code(), grpc::StatusCode::ALREADY_EXISTS);

  pb::SubmitJobResponse response;
  EXPECT_EQ(Submit("nope", Rigid(1, 1), &response).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(ViolatedField(Submit("sim", Rigid(1, 1), &response, std::string(200, 'r'))),
            "request_id");

  pb::AddReservationRequest add;
  add.set_cluster("sim");
  add.set_processors(9);
  add.mutable_start()->set_seconds(0);
  add.mutable_end()->set_seconds(10);
  pb::Reservation reservation;
  grpc::ClientContext c1;
  EXPECT_EQ(ViolatedField(stub_->AddReservation(&c1, add, &reservation)), "processors");
  add.set_processors(2);
  add.mutable_end()->set_seconds(0);
  grpc::ClientContext c2;
  EXPECT_EQ(ViolatedField(stub_->AddReservation(&c2, add, &reservation)), "end");
  add.clear_end();
  grpc::ClientContext c3;
  EXPECT_EQ(ViolatedField(stub_->AddReservation(&c3, add, &reservation)), "end");

  pb::ListJobsRequest list;
  list.set_cluster("sim");
  list.set_page_size(100'000);
  pb::ListJobsResponse jobs;
  grpc::ClientContext c4;
  EXPECT_EQ(ViolatedField(stub_->ListJobs(&c4, list, &jobs)), "page_size");
  list.set_page_size(0);
  list.set_page_token("garbage");
  grpc::ClientContext c5;
  EXPECT_EQ(ViolatedField(stub_->ListJobs(&c5, list, &jobs)), "page_token");

  pb::ReportJobEventRequest event;
  event.set_cluster("sim");
  event.set_id("j1");
  pb::Job job;
  grpc::ClientContext c6;
  EXPECT_EQ(ViolatedField(stub_->ReportJobEvent(&c6, event, &job)), "kind");
  event.set_kind(pb::FINISHED_EVENT);
  grpc::ClientContext c7;
  EXPECT_EQ(stub_->ReportJobEvent(&c7, event, &job).error_code(), grpc::StatusCode::NOT_FOUND);

  pb::AdvanceClockRequest advance;
  advance.set_cluster("sim");
  pb::AdvanceClockResponse advanced;
  grpc::ClientContext c8;
  EXPECT_EQ(ViolatedField(stub_->AdvanceClock(&c8, advance, &advanced)), "to");
  advance.mutable_by()->set_seconds(-3);
  grpc::ClientContext c9;
  EXPECT_EQ(ViolatedField(stub_->AdvanceClock(&c9, advance, &advanced)), "by");

  pb::GetScheduleRequest window;
  window.set_cluster("sim");
  window.mutable_from()->set_seconds(10);
  window.mutable_to()->set_seconds(5);
  pb::Schedule schedule;
  grpc::ClientContext c10;
  EXPECT_EQ(ViolatedField(stub_->GetSchedule(&c10, window, &schedule)), "to");

  // Still answering, nothing half-applied.
  pb::Cluster cluster;
  pb::GetClusterRequest get;
  get.set_name("sim");
  grpc::ClientContext c11;
  ASSERT_OK(stub_->GetCluster(&c11, get, &cluster));
  EXPECT_EQ(cluster.queued_jobs() + cluster.running_jobs(), 0);
  EXPECT_EQ(cluster.reservations(), 0);
}

}  // namespace
}  // namespace resched::server::testing
