// Replan through the real gRPC API: a dry run changes nothing; a committed plan moves jobs at
// once and watchers see them in one run of events; a worse plan is refused unless forced;
// running jobs and reservations stay; the planner honours the call's deadline; and SubmitJob
// answers while a long Replan plans, or while an AdvanceClock plans its periodic Replan. Every
// schedule goes through the validator.
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

using std::chrono::steady_clock;

class ReplanTest : public ServerTest {
 protected:
  grpc::Status Replan(const std::string& cluster, const std::string& algorithm,
                      pb::ReplanObjective objective, bool dry_run, pb::ReplanResponse* response,
                      bool force = false, int shuffles = -1,
                      std::chrono::milliseconds deadline = std::chrono::milliseconds(0)) {
    pb::ReplanRequest request;
    request.set_cluster(cluster);
    request.mutable_algorithm()->set_name(algorithm);
    if (shuffles >= 0) (*request.mutable_algorithm()->mutable_params())["shuffles"] = shuffles;
    request.set_objective(objective);
    request.set_dry_run(dry_run);
    request.set_force(force);
    grpc::ClientContext context;
    if (deadline.count() > 0) context.set_deadline(std::chrono::system_clock::now() + deadline);
    return stub_->Replan(&context, request, response);
  }

  // Amdahl jobs of 1 to 8 minutes sequential, alpha 0.1.
  void SubmitAmdahl(const std::string& cluster, int count, int seed) {
    for (int i = 0; i < count; ++i) {
      pb::JobSpec spec;
      spec.mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(60 * (1 + (i * seed) % 8));
      spec.mutable_model()->mutable_amdahl()->set_alpha(0.1);
      spec.set_weight(1 + (i * 7 + seed) % 10);
      pb::SubmitJobResponse response;
      ASSERT_OK(Submit(cluster, spec, &response));
    }
  }

  void CreateSlowPeriodicReplan(const std::string& name);

  // Runs `slow_call` while submitting 20 one-processor jobs to `cluster` once it has started:
  // how many were answered before it returned, its status and how long it took.
  struct Overlap {
    int answered_during = 0;
    grpc::Status status;
    double seconds = 0;
  };
  Overlap SubmitDuring(const std::string& cluster, const std::function<grpc::Status()>& slow_call) {
    std::atomic<bool> done{false};
    const auto started = steady_clock::now();
    std::future<grpc::Status> call = std::async(std::launch::async, [&] {
      grpc::Status s = slow_call();
      done = true;
      return s;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Overlap overlap;
    for (int i = 0; i < 20; ++i) {
      pb::SubmitJobResponse r;
      EXPECT_OK(Submit(cluster, Rigid(1, 60), &r));
      if (!done) ++overlap.answered_during;
    }
    overlap.status = call.get();
    overlap.seconds = std::chrono::duration<double>(steady_clock::now() - started).count();
    return overlap;
  }

  // Each job's allocation as text, without the display-only processor ids.
  static std::map<std::string, std::string> Allocations(const pb::Schedule& schedule) {
    std::map<std::string, std::string> out;
    for (const pb::Job& job : schedule.jobs()) out[job.id()] = Text(job.allocation());
    return out;
  }
  static std::string Text(pb::Allocation a) {
    a.clear_processor_ids();
    return a.ShortDebugString();
  }
};

TEST_F(ReplanTest, ADryRunShowsFiguresBoundsAndMovesAndChangesNothing) {
  // FCFS on rigid jobs in a bad order: wide and narrow alternate, so each waits for the last.
  CreateSim("c", 8, "fcfs");
  for (int i = 0; i < 6; ++i) {
    pb::SubmitJobResponse r;
    ASSERT_OK(Submit("c", Rigid(i % 2 == 0 ? 6 : 3, 600), &r));
  }
  const auto before = Allocations(Schedule("c"));
  pb::ReplanResponse response;
  ASSERT_OK(Replan("c", "mrt", pb::BICRITERIA, /*dry_run=*/true, &response));
  EXPECT_FALSE(response.applied());
  EXPECT_EQ(response.outcome(), "dry run: nothing was changed");
  EXPECT_EQ(response.objective(), pb::BICRITERIA);
  EXPECT_EQ(response.before().jobs(), 5);  // the first runs already
  EXPECT_EQ(response.after().jobs(), 5);
  ASSERT_TRUE(response.has_makespan_lower_bound());
  ASSERT_TRUE(response.has_weighted_completion_lower_bound());
  EXPECT_LE(response.makespan_lower_bound().seconds(), response.after().makespan().seconds());
  EXPECT_LE(response.weighted_completion_lower_bound(), response.after().weighted_completion());
  EXPECT_LT(response.after().makespan().seconds(), response.before().makespan().seconds());
  EXPECT_EQ(response.moves_size(), response.moved_jobs_size());
  EXPECT_GT(response.moves_size(), 0);
  EXPECT_EQ(response.attempts(), 1);
  EXPECT_EQ(Allocations(Schedule("c")), before);
}

TEST_F(ReplanTest, ACommittedPlanMovesTheJobsAtOnceAndWatchersSeeThemTogether) {
  CreateSim("c", 8, "fcfs");
  for (int i = 0; i < 6; ++i) {
    pb::SubmitJobResponse r;
    ASSERT_OK(Submit("c", Rigid(i % 2 == 0 ? 6 : 3, 600), &r));
  }
  auto stream = Watch("c");
  pb::ScheduleEvent first;
  ASSERT_TRUE(stream->reader->Read(&first));  // the snapshot
  pb::ReplanResponse response;
  ASSERT_OK(Replan("c", "mrt", pb::MAKESPAN, /*dry_run=*/false, &response));
  ASSERT_TRUE(response.applied()) << response.outcome();
  EXPECT_EQ(response.outcome(), "applied");
  const pb::Schedule after = Schedule("c");
  ExpectValid(after);
  const auto now = Allocations(after);
  for (const pb::JobMove& move : response.moves()) {
    EXPECT_EQ(now.at(move.job_id()), Text(move.after())) << move.job_id();
  }
  // One JOB_CHANGED per moved job, in consecutive sequence numbers.
  std::set<std::string> seen;
  std::int64_t previous = first.sequence();
  for (int i = 0; i < response.moves_size(); ++i) {
    pb::ScheduleEvent event;
    ASSERT_TRUE(stream->reader->Read(&event));
    EXPECT_EQ(event.kind(), pb::ScheduleEvent::JOB_CHANGED);
    EXPECT_EQ(event.sequence(), previous + 1);
    previous = event.sequence();
    seen.insert(event.job().id());
  }
  EXPECT_EQ(static_cast<int>(seen.size()), response.moves_size());
  stream->context.TryCancel();
  (void)Drain(*stream);

  // Replanned jobs keep their place: a later submission goes around them.
  pb::SubmitJobResponse later;
  ASSERT_OK(Submit("c", Rigid(8, 60), &later));
  const auto with_later = Allocations(Schedule("c"));
  for (const pb::JobMove& move : response.moves()) {
    EXPECT_EQ(with_later.at(move.job_id()), Text(move.after())) << move.job_id();
  }
}

TEST_F(ReplanTest, AWorsePlanIsRefusedUnlessForced) {
  // Four perfectly parallel jobs: FCFS gives each the whole machine, one after the other
  // (makespan 4 x 100 s after the hold); seq-lptf runs each on one processor (800 s).
  CreateSim("c", 8, "fcfs");
  pb::AddReservationRequest hold;  // keeps them queued, so that Replan has work
  hold.set_cluster("c");
  hold.set_processors(8);
  hold.mutable_start()->set_seconds(0);
  hold.mutable_end()->set_seconds(60);
  pb::Reservation held;
  grpc::ClientContext hold_context;
  ASSERT_OK(stub_->AddReservation(&hold_context, hold, &held));
  for (int i = 0; i < 4; ++i) {
    pb::JobSpec spec;
    spec.mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(800);
    pb::SubmitJobResponse r;
    ASSERT_OK(Submit("c", spec, &r));
  }
  const auto before = Allocations(Schedule("c"));
  pb::ReplanResponse refused;
  ASSERT_OK(Replan("c", "seq-lptf", pb::MAKESPAN, /*dry_run=*/false, &refused));
  EXPECT_FALSE(refused.applied());
  EXPECT_NE(refused.outcome().find("not applied: the plan is worse on the objective (makespan"),
            std::string::npos)
      << refused.outcome();
  EXPECT_GT(refused.after().makespan().seconds(), refused.before().makespan().seconds());
  EXPECT_EQ(Allocations(Schedule("c")), before);

  pb::ReplanResponse forced;
  ASSERT_OK(Replan("c", "seq-lptf", pb::MAKESPAN, /*dry_run=*/false, &forced, /*force=*/true));
  EXPECT_TRUE(forced.applied());
  EXPECT_NE(forced.outcome().find("forced"), std::string::npos);
  const pb::Schedule after = Schedule("c");
  ExpectValid(after);
  EXPECT_NE(Allocations(after), before);
}

TEST_F(ReplanTest, RunningJobsReservationsAndDagsStayWhereTheyAre) {
  CreateSim("c", 16, "conservative");
  pb::AddReservationRequest hold;
  hold.set_cluster("c");
  hold.set_processors(4);
  hold.mutable_start()->set_seconds(1200);
  hold.mutable_end()->set_seconds(2400);
  pb::Reservation held;
  grpc::ClientContext hold_context;
  ASSERT_OK(stub_->AddReservation(&hold_context, hold, &held));
  pb::ReserveDAGRequest dag;
  dag.set_cluster("c");
  dag.mutable_release()->set_seconds(3000);
  pb::DagTask* task = dag.mutable_dag()->add_tasks();
  task->set_name("t");
  *task->mutable_model() = Rigid(2, 600).model();
  pb::ReserveDAGResponse reserved;
  grpc::ClientContext dag_context;
  ASSERT_OK(stub_->ReserveDAG(&dag_context, dag, &reserved));
  SubmitAmdahl("c", 30, 3);
  const pb::Schedule before = Schedule("c");
  for (const std::string algorithm :
       {"mrt", "bicriteria", "gang", "seq-lptf", "list-mrt", "list-wlptf", "list-saf"}) {
    SCOPED_TRACE(algorithm);
    pb::ReplanResponse response;
    ASSERT_OK(Replan("c", algorithm, pb::REPLAN_OBJECTIVE_UNSPECIFIED, false, &response, true));
    EXPECT_TRUE(response.applied());
    EXPECT_EQ(response.objective(), algorithm == "bicriteria" ? pb::BICRITERIA : pb::MAKESPAN);
    const pb::Schedule after = Schedule("c");
    ExpectValid(after);
    for (const pb::Job& job : before.jobs()) {
      if (job.state() != pb::RUNNING) continue;
      for (const pb::Job& now : after.jobs()) {
        if (now.id() == job.id()) {
          EXPECT_EQ(now.allocation().DebugString(), job.allocation().DebugString());
        }
      }
    }
    ASSERT_EQ(after.reservations_size(), 1);
    EXPECT_EQ(after.reservations(0).start().seconds(), 1200);
    ASSERT_EQ(after.dag_tasks_size(), 1);
    EXPECT_EQ(Text(after.dag_tasks(0).allocation()), Text(reserved.placements(0).allocation()));
  }
}

TEST_F(ReplanTest, BadRequestsNameTheField) {
  CreateSim("c", 4, "fcfs");
  pb::ReplanResponse response;
  grpc::Status s = Replan("c", "fcfs", pb::MAKESPAN, true, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("algorithm.name must be a planner"), std::string::npos)
      << s.error_message();
  s = Replan("c", "mrt", static_cast<pb::ReplanObjective>(9), true, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("objective must be"), std::string::npos) << s.error_message();
  s = Replan("nowhere", "mrt", pb::MAKESPAN, true, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  // An empty queue: figures of no jobs, nothing to move.
  ASSERT_OK(Replan("c", "mrt", pb::MAKESPAN, false, &response));
  EXPECT_EQ(response.before().jobs(), 0);
  EXPECT_EQ(response.moves_size(), 0);
}

TEST_F(ReplanTest, AWallClusterReplansItselfOnTheServersTimer) {
  pb::CreateClusterRequest create;
  create.mutable_spec()->set_name("w");
  create.mutable_spec()->set_processors(8);
  create.mutable_spec()->mutable_policy()->set_name("fcfs");
  create.mutable_spec()->mutable_replan_every()->set_seconds(1);
  create.mutable_spec()->mutable_replan_algorithm()->set_name("mrt");
  pb::Cluster cluster;
  grpc::ClientContext create_context;
  ASSERT_OK(stub_->CreateCluster(&create_context, create, &cluster));
  EXPECT_EQ(cluster.spec().replan_every().seconds(), 1);
  EXPECT_EQ(cluster.spec().replan_objective(), pb::MAKESPAN);
  // FCFS in a bad order: 6 and 3 processors alternating, an hour each; MRT packs them better.
  for (int i = 0; i < 6; ++i) {
    pb::SubmitJobResponse r;
    ASSERT_OK(Submit("w", Rigid(i % 2 == 0 ? 6 : 3, 3600), &r));
  }
  const auto before = Allocations(Schedule("w"));
  bool replanned = false;
  for (int i = 0; i < 100 && !replanned; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    replanned = Allocations(Schedule("w")) != before;
  }
  EXPECT_TRUE(replanned) << "no periodic Replan within 10 s";
  ExpectValid(Schedule("w"));

  create.mutable_spec()->set_name("too-often");
  create.mutable_spec()->mutable_replan_every()->set_nanos(500'000'000);
  create.mutable_spec()->mutable_replan_every()->set_seconds(0);
  grpc::ClientContext refused_context;
  const grpc::Status refused = stub_->CreateCluster(&refused_context, create, &cluster);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.error_message().find("cluster.replan_every must be 0 (never) or at least 1s"),
            std::string::npos)
      << refused.error_message();
}

TEST_F(ReplanTest, SuperlinearJobsAreReplannedByEveryPlanner) {
  // Four times faster on 4 processors than on 2, behind a hold of the whole machine.
  CreateSim("c", 4, "fcfs");
  pb::AddReservationRequest hold;
  hold.set_cluster("c");
  hold.set_processors(4);
  hold.mutable_start()->set_seconds(0);
  hold.mutable_end()->set_seconds(1);
  pb::Reservation held;
  grpc::ClientContext hold_context;
  ASSERT_OK(stub_->AddReservation(&hold_context, hold, &held));
  pb::JobSpec spec;
  pb::TableModel* table = spec.mutable_model()->mutable_table();
  pb::TableModel::Entry* two = table->add_entries();
  two->set_k(2);
  two->mutable_time()->set_seconds(4);
  pb::TableModel::Entry* four = table->add_entries();
  four->set_k(4);
  four->mutable_time()->set_seconds(1);
  for (int i = 0; i < 8; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("c", spec, &submitted));
  }
  for (const std::string algorithm : {"mrt", "bicriteria", "list-mrt", "list-wlptf", "list-saf"}) {
    SCOPED_TRACE(algorithm);
    pb::ReplanResponse response;
    ASSERT_OK(Replan("c", algorithm, pb::REPLAN_OBJECTIVE_UNSPECIFIED, true, &response));
    EXPECT_FALSE(response.applied());
    ASSERT_OK(Replan("c", algorithm, pb::REPLAN_OBJECTIVE_UNSPECIFIED, false, &response, true));
    EXPECT_TRUE(response.applied());
    ExpectValid(Schedule("c"));
  }
}

TEST_F(ReplanTest, AWallClusterReplansJobsPackedAgainstALaterReservation) {
  pb::CreateClusterRequest create;
  create.mutable_spec()->set_name("w");
  create.mutable_spec()->set_processors(4);
  create.mutable_spec()->mutable_policy()->set_name("fcfs");
  pb::Cluster cluster;
  grpc::ClientContext create_context;
  ASSERT_OK(stub_->CreateCluster(&create_context, create, &cluster));
  // Held whole over [t0, t0 + 5 s) and [t0 + 20 s, t0 + 40 s); three jobs of the whole machine
  // for 5 s fill the gap exactly, and any plan must keep them there.
  const std::int64_t t0 = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count() +
                          2;
  for (const auto& [from, to] : {std::pair{0, 5}, std::pair{20, 40}}) {
    pb::AddReservationRequest hold;
    hold.set_cluster("w");
    hold.set_processors(4);
    hold.mutable_start()->set_seconds(t0 + from);
    hold.mutable_end()->set_seconds(t0 + to);
    pb::Reservation held;
    grpc::ClientContext hold_context;
    ASSERT_OK(stub_->AddReservation(&hold_context, hold, &held));
  }
  for (int i = 0; i < 3; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("w", Rigid(4, 5), &submitted));
  }
  const auto before = Allocations(Schedule("w"));
  // LTF finds the same packing and applies it; MRT's shelves put jobs after the second hold,
  // a worse plan, refused in one attempt.
  for (const std::string algorithm : {"ltf", "list-saf", "mrt"}) {
    SCOPED_TRACE(algorithm);
    pb::ReplanResponse response;
    ASSERT_OK(Replan("w", algorithm, pb::MAKESPAN, false, &response));
    EXPECT_EQ(response.applied(), algorithm != "mrt") << response.outcome();
    EXPECT_EQ(response.attempts(), 1);
    EXPECT_EQ(Allocations(Schedule("w")), before);
    ExpectValid(Schedule("w"));
  }
}

// Enough queued jobs that bicriteria with this many shuffles (a list schedule of the whole
// queue each) plans for seconds.
constexpr int kLongQueue = 1500;
constexpr int kManyShuffles = 12'000;

TEST_F(ReplanTest, ThePlannerStopsAtTheCallsDeadlineAndNothingIsApplied) {
  CreateSim("c", 64, "fcfs");
  SubmitAmdahl("c", kLongQueue, 5);
  const auto before = Allocations(Schedule("c"));
  pb::ReplanResponse response;
  const auto started = steady_clock::now();
  const grpc::Status s = Replan("c", "bicriteria", pb::BICRITERIA, false, &response, false,
                                kManyShuffles, std::chrono::milliseconds(300));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << s.error_message();
  EXPECT_EQ(Allocations(Schedule("c")), before);
  // The server stopped planning: the next call is served at once, not after the whole plan.
  pb::SubmitJobResponse next;
  ASSERT_OK(Submit("c", Rigid(1, 60), &next));
  EXPECT_LT(steady_clock::now() - started, std::chrono::seconds(60));
}

TEST_F(ReplanTest, SubmitJobAnswersWhileALongReplanPlans) {
  CreateSim("c", 64, "fcfs");
  SubmitAmdahl("c", kLongQueue, 5);
  pb::ReplanResponse response;
  const Overlap overlap = SubmitDuring("c", [&] {
    return Replan("c", "bicriteria", pb::BICRITERIA, false, &response, true, kManyShuffles);
  });
  ASSERT_OK(overlap.status);
  EXPECT_GE(overlap.seconds, 2.0) << "the Replan must be long for this test to mean anything";
  EXPECT_EQ(overlap.answered_during, 20)
      << "submissions waited for the Replan (it took " << overlap.seconds << " s)";
  // The plan was made before those 20 jobs: the commit placed them with the policy after it.
  EXPECT_TRUE(response.applied()) << response.outcome();
  EXPECT_EQ(response.before().jobs(), kLongQueue - 1 + 20);
  ExpectValid(Schedule("c"));
}

// A SIMULATED cluster that replans itself with bicriteria every minute, with a long queue: the
// periodic Replan the next AdvanceClock meets plans for seconds.
void ReplanTest::CreateSlowPeriodicReplan(const std::string& name) {
  pb::CreateClusterRequest create;
  create.mutable_spec()->set_name(name);
  create.mutable_spec()->set_processors(64);
  create.mutable_spec()->set_clock(pb::SIMULATED);
  create.mutable_spec()->mutable_policy()->set_name("fcfs");
  create.mutable_spec()->mutable_replan_every()->set_seconds(60);
  create.mutable_spec()->mutable_replan_algorithm()->set_name("bicriteria");
  (*create.mutable_spec()->mutable_replan_algorithm()->mutable_params())["shuffles"] =
      kManyShuffles;
  create.mutable_spec()->set_replan_objective(pb::BICRITERIA);
  pb::Cluster cluster;
  grpc::ClientContext context;
  ASSERT_OK(stub_->CreateCluster(&context, create, &cluster));
  SubmitAmdahl(name, kLongQueue, 5);
}

TEST_F(ReplanTest, SubmitJobAnswersWhileAnAdvanceClockPlansItsPeriodicReplan) {
  CreateSlowPeriodicReplan("c");
  const auto before = Allocations(Schedule("c"));
  pb::AdvanceClockResponse advanced;
  const Overlap overlap = SubmitDuring("c", [&] { return AdvanceBy("c", 61, &advanced); });
  ASSERT_OK(overlap.status);
  EXPECT_GE(overlap.seconds, 2.0)
      << "the periodic Replan must be long for this test to mean anything";
  EXPECT_EQ(overlap.answered_during, 20)
      << "submissions waited for the AdvanceClock (it took " << overlap.seconds << " s)";
  EXPECT_EQ(advanced.now().seconds(), 61);
  // The submissions made the first plan stale; the advance planned again and replanned the queue.
  const pb::Schedule after = Schedule("c");
  ExpectValid(after);
  EXPECT_EQ(after.jobs_size(), kLongQueue + 20);
  int moved = 0;
  for (const auto& [id, allocation] : Allocations(after)) {
    const auto it = before.find(id);
    moved += it != before.end() && it->second != allocation ? 1 : 0;
  }
  EXPECT_GT(moved, 0) << "the periodic Replan changed nothing";
}

TEST_F(ReplanTest, AnAdvanceClockPastItsDeadlineWhilePlanningChangesNothing) {
  CreateSlowPeriodicReplan("c");
  const pb::Schedule before = Schedule("c");
  pb::AdvanceClockRequest request;
  request.set_cluster("c");
  request.mutable_by()->set_seconds(61);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
  pb::AdvanceClockResponse response;
  const grpc::Status s = stub_->AdvanceClock(&context, request, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << s.error_message();
  const pb::Schedule after = Schedule("c");
  EXPECT_EQ(after.now().seconds(), before.now().seconds());
  EXPECT_EQ(Allocations(after), Allocations(before));
  // The planner stopped: the next call is served at once.
  pb::SubmitJobResponse next;
  ASSERT_OK(Submit("c", Rigid(1, 60), &next));
}

TEST_F(ReplanTest, APlannerWhoseClusterIsDeletedStops) {
  CreateSim("c", 64, "fcfs");
  SubmitAmdahl("c", kLongQueue, 5);
  pb::ReplanResponse response;
  std::future<grpc::Status> replan = std::async(std::launch::async, [&] {
    return Replan("c", "bicriteria", pb::BICRITERIA, false, &response, true, kManyShuffles);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  pb::DeleteClusterRequest remove;
  remove.set_name("c");
  remove.set_force(true);
  pb::DeleteClusterResponse removed;
  grpc::ClientContext remove_context;
  ASSERT_OK(stub_->DeleteCluster(&remove_context, remove, &removed));
  const auto deleted = steady_clock::now();
  const grpc::Status s = replan.get();
  const double after = std::chrono::duration<double>(steady_clock::now() - deleted).count();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
  EXPECT_NE(s.error_message().find("cluster 'c' was deleted"), std::string::npos)
      << s.error_message();
  // A shuffle is a list schedule of 1,500 jobs: a few milliseconds, not the whole plan's seconds.
  EXPECT_LT(after, 1.0) << "the planner went on for " << after << " s after the deletion";
}

}  // namespace
}  // namespace resched::server::testing
