// Tenants' work on the real service with a tokens file: jobs and DAG reservations record their
// tenant (and keep it across a restart, from the journal and from a snapshot); a user acts on its
// own work only and sees the others' as capacity, in answers, schedules and watch streams;
// operators and admins see and act on everything.
#include <stdlib.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "tests/server/tenant_fixture.h"
#include "tests/testing/temp_dir.h"

namespace resched::server::testing {
namespace {

constexpr char kAlice[] = "alice-token-2b7d";
constexpr char kBob[] = "bob-token-91fe";
constexpr char kOps[] = "ops-token-c04a";

pb::Dag TwoTaskDag() {
  pb::Dag dag;
  for (const char* name : {"a", "b"}) {
    pb::DagTask* task = dag.add_tasks();
    task->set_name(name);
    task->mutable_model()->mutable_rigid()->set_k(2);
    task->mutable_model()->mutable_rigid()->mutable_time()->set_seconds(600);
  }
  pb::DagEdge* edge = dag.add_edges();
  edge->set_from("a");
  edge->set_to("b");
  return dag;
}

class TenantTest : public TokenServerFixture {
 protected:
  TenantTest() {
    data_dir_ = temp_.path();
    limits_.snapshot_every_records = 1'000'000;  // a test asks for its snapshot
  }

  std::string TokensYaml() const override {
    return absl::StrCat("tokens:\n", GrantLine(kAlice, "alice", "user"),
                        GrantLine(kBob, "bob", "user"), GrantLine(kOps, "ops", "admin"));
  }
  void SetUp() override {
    TokenServerFixture::SetUp();
    CreateClusterAs(kOps, "sim", 8);
  }

  // Submits a 2-processor, 1-hour job as `token`'s holder; its answer, checked OK.
  pb::SubmitJobResponse SubmitAs(const char* token, const std::string& name,
                                 const std::string& owner = "") {
    pb::SubmitJobRequest request;
    request.set_cluster("sim");
    *request.mutable_job() = Rigid(2, 3600);
    request.mutable_job()->set_name(name);
    request.mutable_job()->set_owner(owner);
    pb::SubmitJobResponse response;
    EXPECT_OK(Call(token, &pb::Resched::Stub::SubmitJob, request, &response));
    return response;
  }

  grpc::Status GetJobAs(const char* token, const std::string& id, pb::Job* job) {
    pb::GetJobRequest request;
    request.set_cluster("sim");
    request.set_id(id);
    return Call(token, &pb::Resched::Stub::GetJob, request, job);
  }

  grpc::Status CancelAs(const char* token, const std::string& id) {
    pb::CancelJobRequest request;
    request.set_cluster("sim");
    request.set_id(id);
    pb::Job job;
    return Call(token, &pb::Resched::Stub::CancelJob, request, &job);
  }

  std::vector<std::string> JobIdsSeenBy(const char* token) {
    pb::ListJobsRequest request;
    request.set_cluster("sim");
    pb::ListJobsResponse response;
    EXPECT_OK(Call(token, &pb::Resched::Stub::ListJobs, request, &response));
    std::vector<std::string> ids;
    for (const pb::Job& job : response.jobs()) ids.push_back(job.id());
    return ids;
  }

  pb::Schedule ScheduleSeenBy(const char* token) {
    pb::GetScheduleRequest request;
    request.set_cluster("sim");
    pb::Schedule schedule;
    EXPECT_OK(Call(token, &pb::Resched::Stub::GetSchedule, request, &schedule));
    ExpectValid(schedule);
    return schedule;
  }

  std::string ReserveAs(const char* token, const std::string& label) {
    pb::ReserveDAGRequest request;
    request.set_cluster("sim");
    *request.mutable_dag() = TwoTaskDag();
    request.set_label(label);
    pb::ReserveDAGResponse response;
    EXPECT_OK(Call(token, &pb::Resched::Stub::ReserveDAG, request, &response));
    return response.dag_id();
  }

  grpc::Status GetDagAs(const char* token, const std::string& id, pb::DagReservation* dag) {
    pb::GetDagReservationRequest request;
    request.set_cluster("sim");
    request.set_id(id);
    return Call(token, &pb::Resched::Stub::GetDagReservation, request, dag);
  }

  grpc::Status ReleaseAs(const char* token, const std::string& id) {
    pb::ReleaseDAGRequest request;
    request.set_cluster("sim");
    request.set_id(id);
    pb::ReleaseDAGResponse response;
    return Call(token, &pb::Resched::Stub::ReleaseDAG, request, &response);
  }

  // Which tenant owns what, and who may act on it, as each token's holder sees it.
  void ExpectOwnership(const std::string& alice_job, const std::string& bob_job,
                       const std::string& alice_dag) {
    pb::Job job;
    ASSERT_OK(GetJobAs(kAlice, alice_job, &job));
    EXPECT_EQ(job.spec().owner(), "alice");
    // Another tenant's job answers as a job that does not exist: its id tells nothing.
    const grpc::Status denied = GetJobAs(kBob, alice_job, &job);
    EXPECT_EQ(denied.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(denied.error_message(), absl::StrCat("job '", alice_job, "' not found"));
    const grpc::Status missing = GetJobAs(kBob, "j999", &job);
    EXPECT_EQ(missing.error_code(), denied.error_code());
    EXPECT_EQ(missing.error_message(), "job 'j999' not found");
    EXPECT_EQ(JobIdsSeenBy(kBob), std::vector<std::string>{bob_job});
    EXPECT_EQ(JobIdsSeenBy(kOps).size(), 2u);
    pb::DagReservation dag;
    ASSERT_OK(GetDagAs(kAlice, alice_dag, &dag));
    EXPECT_EQ(dag.owner(), "alice");
    EXPECT_EQ(GetDagAs(kBob, alice_dag, &dag).error_code(), grpc::StatusCode::NOT_FOUND);
  }

  const resched::testing::TempDir temp_{"resched-tenants"};
};

TEST_F(TenantTest, AUserActsOnItsOwnWorkOnlyAndOperatorsOnAll) {
  const std::string alice_job = SubmitAs(kAlice, "alice-sim").job().id();
  const std::string bob_job = SubmitAs(kBob, "bob-sim").job().id();
  const std::string alice_dag = ReserveAs(kAlice, "alice-workflow");
  ExpectOwnership(alice_job, bob_job, alice_dag);

  EXPECT_EQ(CancelAs(kBob, alice_job).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(ReleaseAs(kBob, alice_dag).error_code(), grpc::StatusCode::NOT_FOUND);
  pb::ListDagReservationsRequest list;
  list.set_cluster("sim");
  pb::ListDagReservationsResponse listed;
  ASSERT_OK(Call(kBob, &pb::Resched::Stub::ListDagReservations, list, &listed));
  EXPECT_EQ(listed.dags_size(), 0);
  pb::Job job;
  ASSERT_OK(GetJobAs(kAlice, alice_job, &job));
  EXPECT_EQ(job.state(), pb::RUNNING);  // Bob's cancel changed nothing

  // An admin (or operator) acts on anyone's work.
  ASSERT_OK(CancelAs(kOps, bob_job));
  ASSERT_OK(ReleaseAs(kAlice, alice_dag));
}

TEST_F(TenantTest, ASubmissionRecordsItsTenantAndOnlyOperatorsSubmitForAnother) {
  EXPECT_EQ(SubmitAs(kAlice, "mine").job().spec().owner(), "alice");
  EXPECT_EQ(SubmitAs(kAlice, "mine too", "alice").job().spec().owner(), "alice");
  pb::SubmitJobRequest request;
  request.set_cluster("sim");
  *request.mutable_job() = Rigid(1, 60);
  request.mutable_job()->set_owner("bob");
  pb::SubmitJobResponse response;
  const grpc::Status refused = Call(kAlice, &pb::Resched::Stub::SubmitJob, request, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(),
            "job.owner: a user submits as its own tenant 'alice' (leave job.owner empty); "
            "submitting for another tenant needs the operator role");
  // A broker holding an operator or admin token submits on behalf of its users.
  const std::string for_bob = SubmitAs(kOps, "brokered", "bob").job().id();
  EXPECT_EQ(JobIdsSeenBy(kBob), std::vector<std::string>{for_bob});
}

TEST_F(TenantTest, RequestIdsAreEachTenantsOwn) {
  pb::SubmitJobRequest request;
  request.set_cluster("sim");
  *request.mutable_job() = Rigid(1, 60);
  request.set_request_id("nightly-1");
  pb::SubmitJobResponse alices;
  ASSERT_OK(Call(kAlice, &pb::Resched::Stub::SubmitJob, request, &alices));
  pb::SubmitJobResponse bobs;
  ASSERT_OK(Call(kBob, &pb::Resched::Stub::SubmitJob, request, &bobs));  // not Alice's answer
  EXPECT_NE(bobs.job().id(), alices.job().id());
  EXPECT_EQ(bobs.job().spec().owner(), "bob");
  pb::SubmitJobResponse retried;
  const grpc::Status replayed = Call(kAlice, &pb::Resched::Stub::SubmitJob, request, &retried);
  EXPECT_EQ(replayed.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(replayed.error_message().find("alice/"), std::string::npos);  // the client's id
  Stop();
  Start();  // the journal keeps each tenant's answer apart
  const grpc::Status after_restart = Call(kBob, &pb::Resched::Stub::SubmitJob, request, &retried);
  EXPECT_EQ(after_restart.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(JobIdsSeenBy(kBob), std::vector<std::string>{bobs.job().id()});
}

TEST_F(TenantTest, ARetriedCreateClusterReplaysItsFirstAnswerBeforeAndAfterARestart) {
  pb::CreateClusterRequest request;
  request.mutable_spec()->set_name("made-once");
  request.mutable_spec()->set_processors(4);
  request.mutable_spec()->set_clock(pb::SIMULATED);
  request.mutable_spec()->mutable_policy()->set_name("fcfs");
  request.set_request_id("create-1");
  pb::Cluster first;
  ASSERT_OK(Call(kOps, &pb::Resched::Stub::CreateCluster, request, &first));
  pb::Cluster retried;
  grpc::Status replayed = Call(kOps, &pb::Resched::Stub::CreateCluster, request, &retried);
  EXPECT_EQ(replayed.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(replayed.error_message(),
            "request_id 'create-1' was already applied; the first answer is in the status "
            "details");
  Stop();
  Start();
  replayed = Call(kOps, &pb::Resched::Stub::CreateCluster, request, &retried);
  EXPECT_EQ(replayed.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(replayed.error_message(),
            "request_id 'create-1' was already applied; the first answer is in the status "
            "details");
}

TEST_F(TenantTest, OthersWorkIsCapacityWithoutIdsNamesOrLabels) {
  const std::string alice_job = SubmitAs(kAlice, "alice-secret-name").job().id();
  const std::string alice_dag = ReserveAs(kAlice, "alice-secret-label");
  const std::string bob_job = SubmitAs(kBob, "bob-sim").job().id();

  const pb::Schedule bobs_view = ScheduleSeenBy(kBob);
  ASSERT_EQ(bobs_view.jobs_size(), 2);
  int redacted = 0;
  for (const pb::Job& job : bobs_view.jobs()) {
    if (job.id() == bob_job) {
      EXPECT_EQ(job.spec().name(), "bob-sim");
      continue;
    }
    ++redacted;
    EXPECT_EQ(job.id(), "");
    EXPECT_EQ(job.spec().name(), "");
    EXPECT_EQ(job.spec().owner(), "");
    EXPECT_EQ(job.allocation().processors(), 2);  // still capacity
  }
  EXPECT_EQ(redacted, 1);
  ASSERT_EQ(bobs_view.dag_tasks_size(), 2);
  for (const pb::DagTaskSlot& slot : bobs_view.dag_tasks()) {
    EXPECT_EQ(slot.dag_id(), "");
    EXPECT_EQ(slot.task(), "");
    EXPECT_EQ(slot.allocation().processors(), 2);
  }
  EXPECT_EQ(bobs_view.SerializeAsString().find("alice"), std::string::npos);

  const pb::Schedule alices_view = ScheduleSeenBy(kAlice);
  for (const pb::DagTaskSlot& slot : alices_view.dag_tasks()) EXPECT_EQ(slot.dag_id(), alice_dag);
  const pb::Schedule ops_view = ScheduleSeenBy(kOps);
  EXPECT_NE(ops_view.SerializeAsString().find("alice-secret-name"), std::string::npos);

  // A job that moves Alice's shows it redacted in Bob's answer too.
  pb::SubmitJobRequest wide;
  wide.set_cluster("sim");
  *wide.mutable_job() = Rigid(8, 60);
  pb::SubmitJobResponse answer;
  ASSERT_OK(Call(kBob, &pb::Resched::Stub::SubmitJob, wide, &answer));
  EXPECT_EQ(answer.SerializeAsString().find("alice"), std::string::npos);
}

TEST_F(TenantTest, AWatchStreamShowsOthersWorkRedacted) {
  SubmitAs(kAlice, "alice-before");
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", kBob));
  pb::WatchScheduleRequest request;
  request.set_cluster("sim");
  std::unique_ptr<grpc::ClientReader<pb::ScheduleEvent>> reader =
      stub_->WatchSchedule(&context, request);
  pb::ScheduleEvent event;
  ASSERT_TRUE(reader->Read(&event));
  ASSERT_EQ(event.kind(), pb::ScheduleEvent::SCHEDULE);
  ASSERT_EQ(event.schedule().jobs_size(), 1);
  EXPECT_EQ(event.schedule().jobs(0).id(), "");
  ExpectValid(event.schedule());

  SubmitAs(kAlice, "alice-after");
  ReserveAs(kAlice, "alice-dag");
  const std::string bob_job = SubmitAs(kBob, "bob-after").job().id();
  bool saw_own = false;
  while (!saw_own && reader->Read(&event)) {
    EXPECT_EQ(event.SerializeAsString().find("alice"), std::string::npos) << event.DebugString();
    if (event.kind() == pb::ScheduleEvent::DAG_RESERVED) {
      EXPECT_EQ(event.dag().id(), "");
    }
    saw_own = event.kind() == pb::ScheduleEvent::JOB_CHANGED && event.job().id() == bob_job;
  }
  EXPECT_TRUE(saw_own);
  context.TryCancel();
}

TEST_F(TenantTest, OwnersSurviveARestartFromTheJournalAndFromASnapshot) {
  const std::string alice_job = SubmitAs(kAlice, "alice-sim").job().id();
  const std::string bob_job = SubmitAs(kBob, "bob-sim").job().id();
  const std::string alice_dag = ReserveAs(kAlice, "alice-workflow");
  Stop();
  Start();  // replays the journal
  ExpectOwnership(alice_job, bob_job, alice_dag);

  limits_.snapshot_every_records = 1;
  Stop();
  Start();
  SubmitAs(kOps, "after-restart");  // journals a record, and so snapshots the cluster
  EXPECT_GE(app_->FlushSnapshots(), 1);
  limits_.snapshot_every_records = 1'000'000;
  Stop();
  Start();  // from the snapshot
  pb::Job job;
  ASSERT_OK(GetJobAs(kAlice, alice_job, &job));
  EXPECT_EQ(job.spec().owner(), "alice");
  pb::DagReservation dag;
  ASSERT_OK(GetDagAs(kAlice, alice_dag, &dag));
  EXPECT_EQ(dag.owner(), "alice");
  EXPECT_EQ(GetDagAs(kBob, alice_dag, &dag).error_code(), grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace resched::server::testing
