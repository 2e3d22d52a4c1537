// The service end to end in process: every RPC of the v1 API, on the real gRPC stack.
#include <google/protobuf/util/time_util.h>

#include <set>

#include "core/registry/registry.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

TEST_F(ServerTest, DefaultClusterFromTheEmbeddedConfig) {
  pb::ListClustersResponse clusters;
  grpc::ClientContext context;
  ASSERT_OK(stub_->ListClusters(&context, {}, &clusters));
  ASSERT_EQ(clusters.clusters_size(), 1);
  EXPECT_EQ(clusters.clusters(0).spec().name(), "default");
  EXPECT_EQ(clusters.clusters(0).capacity(), 64);
  EXPECT_EQ(clusters.clusters(0).spec().clock(), pb::WALL);
  EXPECT_EQ(clusters.clusters(0).spec().policy().name(), "conservative");
}

TEST_F(ServerTest, SubmitPlacesWithTheClusterPolicy) {
  CreateSim("sim", 4, "conservative");
  pb::SubmitJobResponse r1, r2, r3;
  ASSERT_OK(Submit("sim", Rigid(2, 10), &r1));
  ASSERT_OK(Submit("sim", Rigid(4, 10), &r2));
  ASSERT_OK(Submit("sim", Rigid(2, 5), &r3));
  EXPECT_EQ(r1.job().state(), pb::RUNNING);
  EXPECT_EQ(r2.job().allocation().start().seconds(), 10);
  EXPECT_EQ(r2.job().state(), pb::QUEUED);
  EXPECT_TRUE(r2.job().guaranteed());
  EXPECT_EQ(r3.job().allocation().start().seconds(), 0);  // backfilled
  const auto schedule = Schedule("sim");
  EXPECT_EQ(schedule.jobs_size(), 3);
  ExpectValid(schedule);
}

TEST_F(ServerTest, WallClockJobStartsNow) {
  pb::SubmitJobResponse r;
  ASSERT_OK(Submit("default", Rigid(8, 3600), &r));
  EXPECT_EQ(r.job().state(), pb::RUNNING);
  EXPECT_GT(r.job().allocation().start().seconds(), 1'700'000'000);
  ExpectValid(Schedule("default"));
}

TEST_F(ServerTest, EarlyFinishAndCancelFreeCapacity) {
  CreateSim("sim", 4, "conservative");
  pb::SubmitJobResponse r1, r2, r3;
  ASSERT_OK(Submit("sim", Rigid(4, 10), &r1));
  ASSERT_OK(Submit("sim", Rigid(4, 10), &r2));
  ASSERT_OK(Submit("sim", Rigid(4, 10), &r3));
  {
    pb::AdvanceClockResponse response;
    ASSERT_OK(AdvanceBy("sim", 4, &response));
    EXPECT_EQ(response.now().seconds(), 4);
  }
  {
    pb::ReportJobEventRequest request;
    request.set_cluster("sim");
    request.set_id(r1.job().id());
    request.set_kind(pb::FINISHED_EVENT);
    pb::Job job;
    grpc::ClientContext context;
    ASSERT_OK(stub_->ReportJobEvent(&context, request, &job));
    EXPECT_EQ(job.state(), pb::FINISHED);
    EXPECT_EQ(job.allocation().end().seconds(), 4);
  }
  {
    pb::CancelJobRequest request;
    request.set_cluster("sim");
    request.set_id(r2.job().id());
    pb::Job job;
    grpc::ClientContext context;
    ASSERT_OK(stub_->CancelJob(&context, request, &job));
    EXPECT_EQ(job.state(), pb::CANCELLED);
  }
  pb::GetJobRequest get;
  get.set_cluster("sim");
  get.set_id(r3.job().id());
  pb::Job job;
  grpc::ClientContext context;
  ASSERT_OK(stub_->GetJob(&context, get, &job));
  // r1 ended at 4, r2 moved to 4 and was cancelled there: r3 moved from 20 to 4.
  EXPECT_EQ(job.allocation().start().seconds(), 4);
  EXPECT_EQ(job.state(), pb::RUNNING);
  ExpectValid(Schedule("sim"));
}

TEST_F(ServerTest, AdvanceClockStartsAndFinishesJobs) {
  CreateSim("sim", 4, "easy");
  pb::SubmitJobResponse r1, r2;
  ASSERT_OK(Submit("sim", Rigid(4, 10), &r1));
  ASSERT_OK(Submit("sim", Rigid(4, 10), &r2));
  pb::AdvanceClockRequest request;
  request.set_cluster("sim");
  request.mutable_to()->set_seconds(12);
  pb::AdvanceClockResponse response;
  grpc::ClientContext context;
  ASSERT_OK(stub_->AdvanceClock(&context, request, &response));
  ASSERT_EQ(response.finished_size(), 1);
  EXPECT_EQ(response.finished(0).id(), r1.job().id());
  ASSERT_EQ(response.started_size(), 1);
  EXPECT_EQ(response.started(0).id(), r2.job().id());
  grpc::ClientContext wall;
  request.set_cluster("default");
  EXPECT_EQ(stub_->AdvanceClock(&wall, request, &response).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(ServerTest, ReservationsHoldAndRelease) {
  CreateSim("sim", 4, "conservative");
  pb::AddReservationRequest add;
  add.set_cluster("sim");
  add.set_processors(4);
  add.mutable_start()->set_seconds(0);
  add.mutable_end()->set_seconds(100);
  add.set_reason("maintenance");
  pb::Reservation reservation;
  {
    grpc::ClientContext context;
    ASSERT_OK(stub_->AddReservation(&context, add, &reservation));
  }
  pb::SubmitJobResponse r;
  ASSERT_OK(Submit("sim", Rigid(1, 10), &r));
  EXPECT_EQ(r.job().allocation().start().seconds(), 100);
  auto schedule = Schedule("sim");
  EXPECT_EQ(schedule.reservations_size(), 1);
  ExpectValid(schedule);
  pb::RemoveReservationRequest remove;
  remove.set_cluster("sim");
  remove.set_id(reservation.id());
  pb::RemoveReservationResponse removed;
  {
    grpc::ClientContext context;
    ASSERT_OK(stub_->RemoveReservation(&context, remove, &removed));
  }
  pb::GetJobRequest get;
  get.set_cluster("sim");
  get.set_id(r.job().id());
  pb::Job job;
  grpc::ClientContext context;
  ASSERT_OK(stub_->GetJob(&context, get, &job));
  EXPECT_EQ(job.state(), pb::RUNNING);  // moved to now = 0
  grpc::ClientContext again;
  EXPECT_EQ(stub_->RemoveReservation(&again, remove, &removed).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(ServerTest, RetriedRequestIdReturnsTheFirstAnswer) {
  CreateSim("sim", 4, "conservative");
  pb::SubmitJobResponse first, second;
  ASSERT_OK(Submit("sim", Rigid(1, 10), &first, "req-1"));
  const auto status = Submit("sim", Rigid(1, 10), &second, "req-1");
  ASSERT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  google::rpc::Status rich;
  ASSERT_TRUE(rich.ParseFromString(status.error_details()));
  pb::SubmitJobResponse replayed;
  ASSERT_TRUE(rich.details(0).UnpackTo(&replayed));
  EXPECT_EQ(replayed.job().id(), first.job().id());
  EXPECT_EQ(Schedule("sim").jobs_size(), 1);  // applied once
  pb::CancelJobRequest cancel;
  cancel.set_cluster("sim");
  cancel.set_id(first.job().id());
  cancel.set_request_id("req-1");
  pb::Job job;
  grpc::ClientContext context;
  EXPECT_EQ(stub_->CancelJob(&context, cancel, &job).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);  // the id belongs to a SubmitJob
}

TEST_F(ServerTest, ALargeFirstAnswerIsReplayedWithoutItsLists) {
  // 300 placements make a first answer larger than a trailer carries.
  CreateSim("sim", 16, "conservative");
  pb::ReserveDAGRequest request;
  request.set_cluster("sim");
  request.set_request_id("big");
  for (int i = 0; i < 300; ++i) {
    pb::DagTask* task = request.mutable_dag()->add_tasks();
    task->set_name(absl::StrCat("task-", i));
    task->mutable_model()->mutable_rigid()->set_k(1);
    task->mutable_model()->mutable_rigid()->mutable_time()->set_seconds(60);
  }
  pb::ReserveDAGResponse first, second;
  grpc::ClientContext context;
  ASSERT_OK(stub_->ReserveDAG(&context, request, &first));
  ASSERT_GT(first.ByteSizeLong(), 4096u);
  grpc::ClientContext again;
  const grpc::Status status = stub_->ReserveDAG(&again, request, &second);
  ASSERT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS) << status.error_message();
  EXPECT_NE(status.error_message().find("without its placements"), std::string::npos)
      << status.error_message();
  google::rpc::Status rich;
  ASSERT_TRUE(rich.ParseFromString(status.error_details()));
  pb::ReserveDAGResponse replayed;
  ASSERT_TRUE(rich.details(0).UnpackTo(&replayed));
  EXPECT_EQ(replayed.dag_id(), first.dag_id());
  EXPECT_EQ(replayed.completion().seconds(), first.completion().seconds());
  EXPECT_EQ(replayed.placements_size(), 0);
}

TEST_F(ServerTest, DryRunChangesNothing) {
  CreateSim("sim", 4, "conservative");
  pb::SubmitJobRequest request;
  request.set_cluster("sim");
  *request.mutable_job() = Rigid(2, 10);
  request.set_dry_run(true);
  pb::SubmitJobResponse response;
  grpc::ClientContext context;
  ASSERT_OK(stub_->SubmitJob(&context, request, &response));
  EXPECT_EQ(response.job().allocation().processors(), 2);
  EXPECT_TRUE(response.job().id().empty());
  EXPECT_EQ(Schedule("sim").jobs_size(), 0);
}

TEST_F(ServerTest, ListJobsPagesInSubmissionOrder) {
  CreateSim("sim", 4, "fcfs");
  for (int i = 0; i < 5; ++i) {
    pb::SubmitJobResponse r;
    ASSERT_OK(Submit("sim", Rigid(1, 10 + i), &r));
  }
  std::vector<std::string> ids;
  std::string token;
  do {
    pb::ListJobsRequest request;
    request.set_cluster("sim");
    request.set_page_size(2);
    request.set_page_token(token);
    pb::ListJobsResponse response;
    grpc::ClientContext context;
    ASSERT_OK(stub_->ListJobs(&context, request, &response));
    for (const auto& job : response.jobs()) ids.push_back(job.id());
    token = response.next_page_token();
  } while (!token.empty());
  EXPECT_EQ(ids, (std::vector<std::string>{"j1", "j2", "j3", "j4", "j5"}));
}

std::int64_t Micros(const google::protobuf::Timestamp& t) {
  return google::protobuf::util::TimeUtil::TimestampToMicroseconds(t);
}
std::int64_t Micros(const google::protobuf::Duration& d) {
  return google::protobuf::util::TimeUtil::DurationToMicroseconds(d);
}

// A "fast" group of 4 at speed 2 and an unnamed group of 8 at speed 1.
pb::CreateClusterRequest TwoSpeedCluster(const std::string& policy) {
  pb::CreateClusterRequest mixed;
  mixed.mutable_spec()->set_name("mixed");
  mixed.mutable_spec()->set_clock(pb::SIMULATED);
  mixed.mutable_spec()->mutable_policy()->set_name(policy);
  auto* fast = mixed.mutable_spec()->add_groups();
  fast->set_name("fast");
  fast->set_count(4);
  fast->set_speed(2);
  mixed.mutable_spec()->add_groups()->set_count(8);
  return mixed;
}

TEST_F(ServerTest, ClustersOfSeveralSpeedsPlaceEachJobInOneGroupAtItsSpeed) {
  pb::Cluster cluster;
  grpc::ClientContext create;
  ASSERT_OK(stub_->CreateCluster(&create, TwoSpeedCluster("conservative"), &cluster));
  EXPECT_EQ(cluster.capacity(), 12);
  pb::SubmitJobResponse fast, wide;
  ASSERT_OK(Submit("mixed", Rigid(4, 10), &fast));  // 5 s on the fast group
  ASSERT_OK(Submit("mixed", Rigid(8, 10), &wide));  // only the slow group holds 8
  EXPECT_EQ(fast.job().group(), 0);
  EXPECT_EQ(Micros(fast.job().allocation().end()) - Micros(fast.job().allocation().start()),
            5 * kMicrosPerSecond);
  EXPECT_EQ(Micros(fast.job().sequential_time()), 20 * kMicrosPerSecond);
  EXPECT_EQ(wide.job().group(), 1);
  EXPECT_EQ(Micros(wide.job().allocation().end()), 10 * kMicrosPerSecond);
  // The model is the one submitted, for processors of speed 1.
  EXPECT_EQ(Micros(fast.job().spec().model().rigid().time()), 10 * kMicrosPerSecond);

  const pb::Schedule schedule = Schedule("mixed");
  ASSERT_EQ(schedule.groups_size(), 2);
  EXPECT_EQ(schedule.groups(0).name(), "fast");
  ASSERT_EQ(schedule.jobs_size(), 2);
  for (int id : schedule.jobs(0).allocation().processor_ids()) EXPECT_LT(id, 4);
  for (int id : schedule.jobs(1).allocation().processor_ids()) EXPECT_GE(id, 4);
  EXPECT_EQ(schedule.jobs(1).allocation().processor_ids_size(), 8);

  // A hold of the fast group's processors, and one naming no group of the cluster.
  pb::AddReservationRequest hold;
  hold.set_cluster("mixed");
  hold.set_processors(2);
  hold.mutable_start()->set_seconds(100);
  hold.mutable_end()->set_seconds(200);
  hold.set_group(0);
  pb::Reservation held;
  grpc::ClientContext add;
  ASSERT_OK(stub_->AddReservation(&add, hold, &held));
  EXPECT_EQ(held.group(), 0);
  const pb::Schedule with_hold = Schedule("mixed");
  ASSERT_EQ(with_hold.reservations_size(), 1);
  for (int id : with_hold.reservations(0).processor_ids()) EXPECT_LT(id, 4);
  ExpectValid(with_hold);
  hold.set_group(2);
  grpc::ClientContext bad;
  const grpc::Status no_such_group = stub_->AddReservation(&bad, hold, &held);
  EXPECT_EQ(no_such_group.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(no_such_group.error_message().find("in [0, 2)"), std::string::npos)
      << no_such_group.error_message();

  // No group holds 12 processors, though the cluster has them.
  pb::SubmitJobResponse refused;
  const grpc::Status too_wide = Submit("mixed", Rigid(12, 10), &refused);
  EXPECT_EQ(too_wide.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(too_wide.error_message().find("no allowed width fits one processor group"),
            std::string::npos)
      << too_wide.error_message();
}

// Split and the reservation scheme cut each group into parts of its own.
TEST_F(ServerTest, PartitionedPoliciesRunInsideEachGroupOnSeveralSpeeds) {
  pb::Cluster cluster;
  grpc::ClientContext create;
  ASSERT_OK(stub_->CreateCluster(&create, TwoSpeedCluster("split"), &cluster));
  pb::SubmitJobResponse narrow, wide;
  // Split(2): classes of 2 and 2 in the fast group, 4 and 4 in the slow one.
  ASSERT_OK(Submit("mixed", Rigid(2, 10), &narrow));  // 5 s in the fast group's class
  // Only the fast group's whole part holds 4 there, after the narrow job (ends at 10); the
  // slow group's class of 4 ends it at 10 too: the slower group.
  ASSERT_OK(Submit("mixed", Rigid(4, 10), &wide));
  EXPECT_EQ(narrow.job().group(), 0);
  EXPECT_EQ(Micros(narrow.job().allocation().end()), 5 * kMicrosPerSecond);
  EXPECT_EQ(wide.job().group(), 1);
  EXPECT_EQ(Micros(wide.job().allocation().end()), 10 * kMicrosPerSecond);
  ExpectValid(Schedule("mixed"));

  pb::CreateClusterRequest scheme = TwoSpeedCluster("reserve-aux-dasedf");
  scheme.mutable_spec()->set_name("scheme");
  grpc::ClientContext create_scheme;
  ASSERT_OK(stub_->CreateCluster(&create_scheme, scheme, &cluster));
  pb::SubmitJobResponse placed;
  ASSERT_OK(Submit("scheme", Rigid(8, 10), &placed));  // only the slow group holds 8
  EXPECT_EQ(placed.job().group(), 1);
  ExpectValid(Schedule("scheme"));
}

// Replan on two speeds: each group's queued jobs planned in their group, at its speed.
TEST_F(ServerTest, ReplanOnSeveralSpeedsKeepsEachJobInItsGroup) {
  pb::Cluster cluster;
  grpc::ClientContext create;
  ASSERT_OK(stub_->CreateCluster(&create, TwoSpeedCluster("fcfs"), &cluster));
  std::map<std::string, int> group_of;
  // FCFS in a bad order on both groups: wide and narrow jobs alternating.
  for (int i = 0; i < 8; ++i) {
    pb::SubmitJobResponse job;
    ASSERT_OK(Submit("mixed", Rigid(i % 2 == 0 ? 3 : 2, 600), &job));
    group_of[job.job().id()] = job.job().group();
  }
  pb::ReplanRequest replan;
  replan.set_cluster("mixed");
  replan.mutable_algorithm()->set_name("mrt");
  replan.set_force(true);
  pb::ReplanResponse replanned;
  grpc::ClientContext again;
  ASSERT_OK(stub_->Replan(&again, replan, &replanned));
  EXPECT_TRUE(replanned.applied());
  EXPECT_TRUE(replanned.has_makespan_lower_bound());
  const pb::Schedule schedule = Schedule("mixed");
  for (const pb::Job& job : schedule.jobs()) {
    EXPECT_EQ(job.group(), group_of[job.id()]) << job.id();
  }
  ExpectValid(schedule);
}

// ReserveDAG and QueryDeadline on two speeds: every task runs in one group at its speed, the
// answer and the schedule say which, and the groups' jobs plan around the tasks.
TEST_F(ServerTest, DagsOnSeveralSpeedsRunEachTaskInOneGroupAtItsSpeed) {
  pb::Cluster cluster;
  grpc::ClientContext create;
  ASSERT_OK(stub_->CreateCluster(&create, TwoSpeedCluster("conservative"), &cluster));
  pb::ReserveDAGRequest dag;
  dag.set_cluster("mixed");
  for (const char* name : {"a", "b"}) {
    pb::DagTask* task = dag.mutable_dag()->add_tasks();
    task->set_name(name);
    *task->mutable_model() = Rigid(4, 10).model();
  }
  pb::DagEdge* edge = dag.mutable_dag()->add_edges();
  edge->set_from("a");
  edge->set_to("b");
  for (const char* planner : {"cpa", "bl_cpar_bd_cpar", "barbosa"}) {
    SCOPED_TRACE(planner);
    dag.mutable_algorithm()->set_name(planner);
    pb::ReserveDAGResponse reserved;
    grpc::ClientContext reserve;
    ASSERT_OK(stub_->ReserveDAG(&reserve, dag, &reserved));
    ASSERT_EQ(reserved.placements_size(), 2);
    // On the empty cluster the fast group (5 s a task instead of 10) wins; later DAGs may tie
    // with the slow group, which then keeps them.
    if (std::string(planner) == "cpa") {
      EXPECT_EQ(reserved.placements(0).group(), 0);
    }
    for (const pb::TaskPlacement& p : reserved.placements()) {
      ASSERT_TRUE(p.has_group()) << p.task();
      EXPECT_EQ(Micros(p.allocation().end()) - Micros(p.allocation().start()),
                (p.group() == 0 ? 5 : 10) * kMicrosPerSecond)
          << p.task();
    }
  }
  // HEFT runs a task on one processor: of the fast group while one is free.
  pb::ReserveDAGRequest seq = dag;
  for (pb::DagTask& task : *seq.mutable_dag()->mutable_tasks()) {
    *task.mutable_model() = Rigid(1, 10).model();
  }
  seq.mutable_algorithm()->set_name("heft");
  pb::ReserveDAGResponse heft;
  grpc::ClientContext reserve;
  ASSERT_OK(stub_->ReserveDAG(&reserve, seq, &heft));
  ASSERT_EQ(heft.placements_size(), 2);
  EXPECT_TRUE(heft.placements(0).has_group());

  pb::QueryDeadlineRequest query;
  query.set_cluster("mixed");
  *query.mutable_dag() = dag.dag();
  query.mutable_algorithm()->set_name("dl_rc_cpar");
  query.mutable_deadline()->set_seconds(3600);
  query.set_commit(true);
  pb::QueryDeadlineResponse answer;
  grpc::ClientContext ask;
  ASSERT_OK(stub_->QueryDeadline(&ask, query, &answer));
  EXPECT_TRUE(answer.feasible());
  ASSERT_EQ(answer.placements_size(), 2);
  EXPECT_TRUE(answer.placements(0).has_group());

  // Jobs around them, then the whole schedule through the validator, per group.
  pb::SubmitJobResponse job;
  for (int i = 0; i < 4; ++i) ASSERT_OK(Submit("mixed", Rigid(3, 20), &job));
  const pb::Schedule schedule = Schedule("mixed");
  ASSERT_EQ(schedule.dag_tasks_size(), 10);
  for (const pb::DagTaskSlot& slot : schedule.dag_tasks()) {
    EXPECT_TRUE(slot.has_group()) << slot.dag_id() << "/" << slot.task();
  }
  ExpectValid(schedule);
}

TEST_F(ServerTest, GroupsOfOneSpeedAreOneCluster) {
  pb::CreateClusterRequest same = TwoSpeedCluster("conservative");
  same.mutable_spec()->mutable_groups(0)->set_speed(1);
  pb::Cluster cluster;
  grpc::ClientContext create;
  ASSERT_OK(stub_->CreateCluster(&create, same, &cluster));
  EXPECT_EQ(cluster.capacity(), 12);
  pb::SubmitJobResponse wide;
  ASSERT_OK(Submit("mixed", Rigid(12, 10), &wide));  // spans both groups
  EXPECT_FALSE(wide.job().has_group());
}

TEST_F(ServerTest, ListAlgorithmsComesFromTheRegistry) {
  pb::ListAlgorithmsResponse response;
  grpc::ClientContext context;
  ASSERT_OK(stub_->ListAlgorithms(&context, {}, &response));
  std::set<std::string> listed;
  for (const auto& a : response.algorithms()) listed.insert(a.name());
  std::set<std::string> registered;
  for (const auto& info : AlgorithmRegistry()) registered.insert(info.name);
  EXPECT_EQ(listed, registered);
  EXPECT_TRUE(listed.contains("conservative"));
  EXPECT_EQ(response.algorithms_size(), static_cast<int>(AlgorithmRegistry().size()));
  // Each parameter says whether it takes whole numbers only.
  for (const auto& a : response.algorithms()) {
    for (const auto& p : a.params()) {
      if (p.name() != "rho") continue;
      EXPECT_EQ(p.integer(), a.name() == "split") << a.name();
    }
  }
}

TEST_F(ServerTest, WatchScheduleStreamsASnapshotThenChanges) {
  CreateSim("sim", 4, "conservative");
  auto stream = Watch("sim");
  pb::ScheduleEvent event;
  ASSERT_TRUE(stream->reader->Read(&event));
  EXPECT_EQ(event.kind(), pb::ScheduleEvent::SCHEDULE);
  pb::SubmitJobResponse r;
  ASSERT_OK(Submit("sim", Rigid(1, 10), &r));
  ASSERT_TRUE(stream->reader->Read(&event));
  EXPECT_EQ(event.kind(), pb::ScheduleEvent::JOB_CHANGED);
  EXPECT_EQ(event.job().id(), r.job().id());
  stream->context.TryCancel();
  Drain(*stream);
}

TEST_F(ServerTest, DeleteClusterNeedsForceWithActiveJobs) {
  CreateSim("sim", 4, "conservative");
  pb::SubmitJobResponse r;
  ASSERT_OK(Submit("sim", Rigid(1, 10), &r));
  pb::DeleteClusterRequest request;
  request.set_name("sim");
  pb::DeleteClusterResponse response;
  grpc::ClientContext c1;
  EXPECT_EQ(stub_->DeleteCluster(&c1, request, &response).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  request.set_force(true);
  grpc::ClientContext c2;
  EXPECT_OK(stub_->DeleteCluster(&c2, request, &response));
  pb::GetClusterRequest get;
  get.set_name("sim");
  pb::Cluster cluster;
  grpc::ClientContext c3;
  EXPECT_EQ(stub_->GetCluster(&c3, get, &cluster).error_code(), grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace resched::server::testing
