// ReserveDAG, QueryDeadline and the DAG reservation resource through the real gRPC service.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/dag/dag_plan.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

constexpr std::int64_t kHourS = 3600;
// Enough layers of 40 tasks that the tightest-deadline search takes seconds.
constexpr int kLongDagLayers = 200;

pb::Dag Diamond() {
  pb::Dag dag;
  const std::pair<const char*, int> tasks[] = {{"a", 2}, {"b", 6}, {"c", 3}, {"d", 1}};
  for (const auto& [name, hours] : tasks) {
    pb::DagTask* t = dag.add_tasks();
    t->set_name(name);
    t->mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(hours * kHourS);
    t->mutable_model()->mutable_amdahl()->set_alpha(0.1);
  }
  for (const auto& [from, to] : {std::pair{"a", "b"}, {"a", "c"}, {"b", "d"}, {"c", "d"}}) {
    pb::DagEdge* e = dag.add_edges();
    e->set_from(from);
    e->set_to(to);
  }
  return dag;
}

class DagServiceTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    CreateSim("sim", 16, "conservative");
    pb::AddReservationRequest hold;
    hold.set_cluster("sim");
    hold.set_processors(12);
    hold.mutable_start()->set_seconds(0);
    hold.mutable_end()->set_seconds(2 * kHourS);
    pb::Reservation r;
    grpc::ClientContext context;
    ASSERT_OK(stub_->AddReservation(&context, hold, &r));
  }

  // What the engine running DAG `id`'s tasks reports of `task`, now.
  grpc::Status ReportTask(const std::string& id, const std::string& task, pb::JobEventKind kind,
                          pb::DagReservation* after) {
    pb::ReportDagTaskEventRequest report;
    report.set_cluster("sim");
    report.set_id(id);
    report.set_task(task);
    report.set_kind(kind);
    grpc::ClientContext context;
    return stub_->ReportDagTaskEvent(&context, report, after);
  }

  grpc::Status Release(const std::string& id) {
    pb::ReleaseDAGRequest request;
    request.set_cluster("sim");
    request.set_id(id);
    pb::ReleaseDAGResponse response;
    grpc::ClientContext context;
    return stub_->ReleaseDAG(&context, request, &response);
  }

  grpc::Status Reserve(const pb::Dag& dag, pb::ReserveDAGResponse* response, bool dry_run = false,
                       const std::string& algorithm = "", const std::string& request_id = "") {
    pb::ReserveDAGRequest request;
    request.set_cluster("sim");
    *request.mutable_dag() = dag;
    request.mutable_algorithm()->set_name(algorithm);
    request.set_dry_run(dry_run);
    request.set_request_id(request_id);
    grpc::ClientContext context;
    return stub_->ReserveDAG(&context, request, response);
  }

  grpc::Status Query(const pb::Dag& dag, std::optional<std::int64_t> deadline_s, bool commit,
                     pb::QueryDeadlineResponse* response, const std::string& algorithm = "",
                     std::chrono::milliseconds call_deadline = std::chrono::milliseconds(0)) {
    pb::QueryDeadlineRequest request;
    request.set_cluster("sim");
    *request.mutable_dag() = dag;
    request.mutable_algorithm()->set_name(algorithm);
    if (deadline_s) request.mutable_deadline()->set_seconds(*deadline_s);
    request.set_commit(commit);
    grpc::ClientContext context;
    if (call_deadline.count() > 0) {
      context.set_deadline(std::chrono::system_clock::now() + call_deadline);
    }
    return stub_->QueryDeadline(&context, request, response);
  }

  std::vector<pb::DagReservation> Dags() {
    pb::ListDagReservationsRequest request;
    request.set_cluster("sim");
    pb::ListDagReservationsResponse response;
    grpc::ClientContext context;
    EXPECT_OK(stub_->ListDagReservations(&context, request, &response));
    return {response.dags().begin(), response.dags().end()};
  }
};

TEST_F(DagServiceTest, ReserveDagCommitsEveryTaskAroundTheHoldAndShowsThemInTheSchedule) {
  const pb::Schedule before = Schedule("sim");
  pb::ReserveDAGResponse response;
  ASSERT_OK(Reserve(Diamond(), &response));
  EXPECT_EQ(response.dag_id(), "d1");
  ASSERT_EQ(response.placements_size(), 4);
  ExpectValidPlan(Diamond(), response.placements(), before);
  EXPECT_GT(response.cpu_hours(), 0);
  EXPECT_EQ(response.turnaround().seconds(), response.completion().seconds());  // now = 0

  const pb::Schedule after = Schedule("sim");
  ExpectValid(after);
  ASSERT_EQ(after.dag_tasks_size(), 4);
  std::set<std::string> names;
  for (const auto& t : after.dag_tasks()) {
    EXPECT_EQ(t.dag_id(), "d1");
    names.insert(t.task());
  }
  EXPECT_EQ(names, (std::set<std::string>{"a", "b", "c", "d"}));
  const auto dags = Dags();
  ASSERT_EQ(dags.size(), 1u);
  EXPECT_EQ(dags[0].algorithm(), "bl_cpar_bd_cpar");
  EXPECT_EQ(dags[0].edges_size(), 4);
}

TEST_F(DagServiceTest, ACommittedDagBlocksLaterWorkAndReleasingItLetsWorkMoveEarlier) {
  pb::ReserveDAGResponse dag;
  ASSERT_OK(Reserve(Diamond(), &dag));
  // A job needing the whole machine can start only after the hold and every DAG task.
  pb::SubmitJobResponse job;
  ASSERT_OK(Submit("sim", Rigid(16, 600), &job));
  const std::int64_t dag_end = dag.completion().seconds();
  EXPECT_GE(job.job().allocation().start().seconds(), dag_end);
  ExpectValid(Schedule("sim"));

  ASSERT_OK(Release(dag.dag_id()));
  EXPECT_TRUE(Dags().empty());
  const pb::Schedule after = Schedule("sim");
  EXPECT_EQ(after.dag_tasks_size(), 0);
  ASSERT_EQ(after.jobs_size(), 1);
  EXPECT_EQ(after.jobs(0).allocation().start().seconds(), 2 * kHourS) << "moved to the hold's end";
  ExpectValid(after);

  EXPECT_EQ(Release(dag.dag_id()).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(DagServiceTest, ADryRunChangesNothing) {
  const pb::Schedule before = Schedule("sim");
  pb::ReserveDAGResponse response;
  ASSERT_OK(Reserve(Diamond(), &response, /*dry_run=*/true));
  EXPECT_TRUE(response.dag_id().empty());
  EXPECT_EQ(response.placements_size(), 4);
  ExpectValidPlan(Diamond(), response.placements(), before);
  EXPECT_EQ(Schedule("sim").SerializeAsString(), before.SerializeAsString());
  EXPECT_TRUE(Dags().empty());
  // The same plan is what a commit books.
  pb::ReserveDAGResponse committed;
  ASSERT_OK(Reserve(Diamond(), &committed));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(committed.placements(i).SerializeAsString(),
              response.placements(i).SerializeAsString());
  }
}

TEST_F(DagServiceTest, AFailedReservationLeavesNothingBehind) {
  const pb::Schedule before = Schedule("sim");
  pb::Dag cyclic = Diamond();
  pb::DagEdge* back = cyclic.add_edges();
  back->set_from("d");
  back->set_to("a");
  pb::ReserveDAGResponse response;
  grpc::Status s = Reserve(cyclic, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("cycle"), std::string::npos) << s.error_message();

  pb::Dag too_wide = Diamond();
  too_wide.mutable_tasks(2)->mutable_model()->clear_amdahl();
  too_wide.mutable_tasks(2)->mutable_model()->mutable_rigid()->set_k(17);
  too_wide.mutable_tasks(2)->mutable_model()->mutable_rigid()->mutable_time()->set_seconds(60);
  s = Reserve(too_wide, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ViolatedField(s), "dag.tasks[2].model");

  s = Reserve(Diamond(), &response, false, "heft-ish");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ViolatedField(s), "algorithm.name");

  pb::Dag unknown = Diamond();
  unknown.mutable_edges(0)->set_from("nobody");
  s = Reserve(unknown, &response);
  EXPECT_EQ(ViolatedField(s), "dag.edges[0].from");

  EXPECT_EQ(Schedule("sim").SerializeAsString(), before.SerializeAsString());
  EXPECT_TRUE(Dags().empty());
}

TEST_F(DagServiceTest, EveryBuiltDagPlannerIsSelectableByName) {
  pb::ListAlgorithmsRequest list_request;
  pb::ListAlgorithmsResponse list;
  grpc::ClientContext context;
  ASSERT_OK(stub_->ListAlgorithms(&context, list_request, &list));
  const pb::Schedule before = Schedule("sim");
  int built = 0;
  for (const auto& a : list.algorithms()) {
    if (a.kind() != pb::AlgorithmInfo::DAG_PLANNER) continue;
    ++built;
    pb::ReserveDAGResponse response;
    ASSERT_OK(Reserve(Diamond(), &response, /*dry_run=*/true, a.name())) << a.name();
    ExpectValidPlan(Diamond(), response.placements(), before);
  }
  EXPECT_GE(built, 24);
}

TEST_F(DagServiceTest, QueryDeadlineAnswersTheTightestDeadlineAndCommitsOnRequest) {
  const pb::Schedule before = Schedule("sim");
  pb::QueryDeadlineResponse tightest;
  ASSERT_OK(Query(Diamond(), std::nullopt, false, &tightest));
  EXPECT_TRUE(tightest.feasible());
  ASSERT_TRUE(tightest.has_tightest_deadline());
  const std::int64_t k = tightest.tightest_deadline().seconds() + 1;  // whole seconds, above it
  ExpectValidPlan(Diamond(), tightest.placements(), before,
                  *FromProto(tightest.tightest_deadline(), "tightest_deadline"));
  EXPECT_TRUE(tightest.dag_id().empty());

  pb::QueryDeadlineResponse missed;
  ASSERT_OK(Query(Diamond(), kHourS, false, &missed));
  EXPECT_FALSE(missed.feasible());
  EXPECT_EQ(missed.placements_size(), 0);
  EXPECT_TRUE(missed.has_tightest_deadline()) << "an infeasible answer says what would work";

  pb::QueryDeadlineResponse committed;
  ASSERT_OK(Query(Diamond(), k + kHourS, true, &committed));
  EXPECT_TRUE(committed.feasible());
  EXPECT_EQ(committed.dag_id(), "d1");
  ExpectValidPlan(Diamond(), committed.placements(), before, (k + kHourS) * kMicrosPerSecond);
  ASSERT_EQ(Dags().size(), 1u);
  ExpectValid(Schedule("sim"));

  pb::QueryDeadlineResponse not_committed;
  ASSERT_OK(Query(Diamond(), 60, true, &not_committed));
  EXPECT_FALSE(not_committed.feasible());
  EXPECT_TRUE(not_committed.dag_id().empty());
  EXPECT_EQ(Dags().size(), 1u);
}

TEST_F(DagServiceTest, WatchersSeeDagsReservedAndReleased) {
  auto watch = Watch("sim");
  auto& reader = watch->reader;
  pb::ScheduleEvent event;
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.kind(), pb::ScheduleEvent::SCHEDULE);
  pb::ReserveDAGResponse dag;
  ASSERT_OK(Reserve(Diamond(), &dag));
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.kind(), pb::ScheduleEvent::DAG_RESERVED);
  EXPECT_EQ(event.dag().id(), dag.dag_id());
  EXPECT_EQ(event.dag().placements_size(), 4);
  ASSERT_OK(Release(dag.dag_id()));
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.kind(), pb::ScheduleEvent::DAG_RELEASED);
  EXPECT_EQ(event.dag().id(), dag.dag_id());
  watch->context.TryCancel();
  Drain(*watch);
}

TEST_F(DagServiceTest, AFailedTaskReleasesItsDependantsAndWorkBehindThemMovesEarlier) {
  pb::ReserveDAGResponse dag;
  ASSERT_OK(Reserve(Diamond(), &dag));
  pb::SubmitJobResponse job;
  ASSERT_OK(Submit("sim", Rigid(16, 600), &job));
  const std::int64_t planned = job.job().allocation().start().seconds();
  EXPECT_GE(planned, dag.completion().seconds()) << "the whole machine, after the DAG";
  auto watch = Watch("sim");
  pb::ScheduleEvent event;
  ASSERT_TRUE(watch->reader->Read(&event));
  pb::AdvanceClockResponse advanced;
  ASSERT_OK(AdvanceBy("sim", 60, &advanced));

  pb::DagReservation after;
  ASSERT_OK(ReportTask(dag.dag_id(), "a", pb::FAILED_EVENT, &after));
  std::vector<std::string> states;
  for (const pb::TaskPlacement& p : after.placements()) {
    states.push_back(pb::DagTaskState_Name(p.state()));
  }
  EXPECT_EQ(states, (std::vector<std::string>{"TASK_FAILED", "TASK_RELEASED", "TASK_RELEASED",
                                              "TASK_RELEASED"}));
  EXPECT_EQ(after.placements(0).ended().seconds(), 60);
  do {
    ASSERT_TRUE(watch->reader->Read(&event));
  } while (event.kind() != pb::ScheduleEvent::DAG_TASK_CHANGED);
  EXPECT_EQ(event.dag().id(), dag.dag_id());
  watch->context.TryCancel();
  Drain(*watch);

  const pb::Schedule schedule = Schedule("sim");
  ExpectValid(schedule);
  ASSERT_EQ(schedule.jobs_size(), 1);
  EXPECT_EQ(schedule.jobs(0).allocation().start().seconds(), 2 * kHourS)
      << "moved to the hold's end, planned at " << planned;
  EXPECT_EQ(ReportTask(dag.dag_id(), "a", pb::FAILED_EVENT, &after).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(DagServiceTest, TheScheduleShowsEachTaskSlotsReportedState) {
  pb::ReserveDAGResponse dag;
  ASSERT_OK(Reserve(Diamond(), &dag));
  pb::AdvanceClockResponse advanced;
  ASSERT_OK(AdvanceBy("sim", 60, &advanced));
  pb::DagReservation after;
  ASSERT_OK(ReportTask(dag.dag_id(), "a", pb::STARTED, &after));
  const pb::Schedule schedule = Schedule("sim");
  ExpectValid(schedule);
  std::map<std::string, std::string> states;
  for (const pb::DagTaskSlot& slot : schedule.dag_tasks()) {
    states[slot.task()] = pb::DagTaskState_Name(slot.state());
  }
  EXPECT_EQ(states, (std::map<std::string, std::string>{{"a", "TASK_RUNNING"},
                                                        {"b", "TASK_RESERVED"},
                                                        {"c", "TASK_RESERVED"},
                                                        {"d", "TASK_RESERVED"}}));
}

TEST_F(DagServiceTest, ARetriedReservationIsAppliedOnce) {
  pb::ReserveDAGResponse first;
  ASSERT_OK(Reserve(Diamond(), &first, false, "", "dag-42"));
  pb::ReserveDAGResponse second;
  const grpc::Status s = Reserve(Diamond(), &second, false, "", "dag-42");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(Dags().size(), 1u);
}

// Layers of `width` Amdahl tasks, each after two tasks of the layer before.
pb::Dag Layered(int layers, int width) {
  pb::Dag dag;
  for (int l = 0; l < layers; ++l) {
    for (int i = 0; i < width; ++i) {
      pb::DagTask* t = dag.add_tasks();
      t->set_name(absl::StrCat("t", l, "_", i));
      t->mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds((1 + (l * 7 + i) % 5) *
                                                                      kHourS);
      t->mutable_model()->mutable_amdahl()->set_alpha(0.1);
      if (l == 0) continue;
      for (int parent : {i, (i + 1) % width}) {
        pb::DagEdge* e = dag.add_edges();
        e->set_from(absl::StrCat("t", l - 1, "_", parent));
        e->set_to(absl::StrCat("t", l, "_", i));
      }
    }
  }
  return dag;
}

// The DAG planners run off the cluster's lock: SubmitJob answers at once while a large DAG's
// tightest-deadline search plans (under the lock, each submission would wait for the search).
// The jobs take capacity the plan wanted: the commit finds the plan stale and plans again.
TEST_F(DagServiceTest, SubmitJobAnswersWhileADagIsPlanned) {
  using Clock = std::chrono::steady_clock;
  const pb::Dag dag = Layered(kLongDagLayers, 40);
  std::atomic<bool> done{false};
  pb::QueryDeadlineResponse response;
  const auto started = Clock::now();
  std::future<grpc::Status> query = std::async(std::launch::async, [&] {
    grpc::Status s = Query(dag, std::nullopt, /*commit=*/true, &response, "dl_bd_cpar");
    done = true;
    return s;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  int answered_during = 0;
  double slowest = 0;
  // A bounded burst: a plan made stale by it is made again (see kMaxPlanAttempts) and committed.
  for (int i = 0; i < 10 && !done; ++i) {
    const auto sent = Clock::now();
    pb::SubmitJobResponse r;
    ASSERT_OK(Submit("sim", Rigid(1, 60), &r));
    slowest = std::max(slowest, std::chrono::duration<double>(Clock::now() - sent).count());
    if (!done) ++answered_during;
  }
  ASSERT_OK(query.get());
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  EXPECT_GE(answered_during, 1) << "the search (" << seconds << " s) ended before any submission";
  EXPECT_LT(slowest, seconds / 4) << "a submission waited for the DAG planner";
  EXPECT_FALSE(response.dag_id().empty());
  const pb::Schedule schedule = Schedule("sim");
  ExpectValid(schedule);
  EXPECT_EQ(schedule.dag_tasks_size(), dag.tasks_size());
}

TEST_F(DagServiceTest, ATightestDeadlineSearchStopsAtTheCallsDeadline) {
  using Clock = std::chrono::steady_clock;
  // The largest DAG accepted, bisected to the microsecond: many probes of many tasks.
  pb::QueryDeadlineRequest request;
  request.set_cluster("sim");
  *request.mutable_dag() = Layered(250, 40);
  request.mutable_algorithm()->set_name("dl_bd_cpar");
  (*request.mutable_algorithm()->mutable_params())["resolution_s"] = 1e-6;
  auto query = [&](bool commit, std::chrono::milliseconds deadline) {
    request.set_commit(commit);
    grpc::ClientContext context;
    if (deadline.count() > 0) context.set_deadline(std::chrono::system_clock::now() + deadline);
    pb::QueryDeadlineResponse response;
    return stub_->QueryDeadline(&context, request, &response);
  };
  // The whole search, for scale.
  auto started = Clock::now();
  ASSERT_OK(query(false, std::chrono::milliseconds(0)));
  const double search_seconds = std::chrono::duration<double>(Clock::now() - started).count();

  const grpc::Status s = query(true, std::chrono::milliseconds(50));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << s.error_message();
  EXPECT_TRUE(Dags().empty());
  EXPECT_EQ(Schedule("sim").dag_tasks_size(), 0);
  // The server stopped searching: shutting it down waits for running handlers, and does not
  // wait for a whole search.
  started = Clock::now();
  Stop();
  const double stop_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  EXPECT_LT(stop_seconds, search_seconds / 2)
      << "the search took " << search_seconds << " s when run whole";
}

}  // namespace
}  // namespace resched::server::testing
