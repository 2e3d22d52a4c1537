// A durable service (--data-dir) through the real gRPC API: a restart comes back to exactly the
// acknowledged state under random mixed load on every kind of policy, and a watcher resumes after
// it with exactly the events it missed; a full disk refuses
// changes, keeps reads, applies nothing half and recovers; a journal that does not replay stops
// the start naming the record.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/plan/cluster_plan_image.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "prometheus/text_serializer.h"
#include "server/base/log.h"
#include "server/base/mutex.h"
#include "tests/server/server_fixture.h"
#include "tests/server/store/full_disk_vfs.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"

namespace resched::server::testing {
namespace {

namespace health = ::grpc::health::v1;

constexpr int kHourInSeconds = 3600;

pb::Dag Chain(int tasks, int hours) {
  pb::Dag dag;
  for (int i = 0; i < tasks; ++i) {
    pb::DagTask* t = dag.add_tasks();
    t->set_name(absl::StrCat("t", i));
    t->mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(hours * kHourInSeconds);
    t->mutable_model()->mutable_amdahl()->set_alpha(0.2);
    if (i > 0) {
      pb::DagEdge* e = dag.add_edges();
      e->set_from(absl::StrCat("t", i - 1));
      e->set_to(absl::StrCat("t", i));
    }
  }
  return dag;
}

// A cluster of two groups of different speeds among the policies' clusters.
constexpr char kTwoSpeedCluster[] = "speeds";
// And one whose policy cuts each group into parts of its own.
constexpr char kTwoSpeedSplitCluster[] = "speeds-split";
bool OnTwoSpeeds(const std::string& cluster) {
  return cluster == kTwoSpeedCluster || cluster == kTwoSpeedSplitCluster;
}

class DurabilityTest : public ServerTest {
 protected:
  DurabilityTest() { data_dir_ = temp_.path(); }

  void Restart() {
    Stop();
    Start();
  }

  // Everything a client can read about a cluster, as text: the schedule with finished jobs,
  // every retained job, the DAG reservations, and the clock and counts.
  std::string Dump(const std::string& cluster, bool with_clock = true, bool with_policy = true) {
    std::string out;
    pb::Schedule schedule = Schedule(cluster);
    ExpectValid(schedule);
    // The rows items are drawn on are made afresh after a restart (docs/web.md).
    for (pb::Job& job : *schedule.mutable_jobs()) job.mutable_allocation()->clear_processor_ids();
    for (pb::Reservation& hold : *schedule.mutable_reservations()) hold.clear_processor_ids();
    for (pb::DagTaskSlot& task : *schedule.mutable_dag_tasks()) {
      task.mutable_allocation()->clear_processor_ids();
    }
    if (!with_clock) {
      schedule.clear_now();
      // The free profile starts at the present.
      if (schedule.free_profile_size() > 0) schedule.mutable_free_profile(0)->clear_start();
    }
    out += schedule.DebugString();
    pb::ListJobsRequest jobs;
    jobs.set_cluster(cluster);
    pb::ListJobsResponse listed;
    grpc::ClientContext c1;
    EXPECT_OK(stub_->ListJobs(&c1, jobs, &listed));
    out += listed.DebugString();
    pb::ListDagReservationsRequest dags;
    dags.set_cluster(cluster);
    pb::ListDagReservationsResponse dag_list;
    grpc::ClientContext c2;
    EXPECT_OK(stub_->ListDagReservations(&c2, dags, &dag_list));
    out += dag_list.DebugString();
    pb::GetClusterRequest get;
    get.set_name(cluster);
    pb::Cluster described;
    grpc::ClientContext c3;
    EXPECT_OK(stub_->GetCluster(&c3, get, &described));
    if (!with_clock) described.clear_now();
    if (!with_policy) described.mutable_spec()->clear_policy();
    out += described.DebugString();
    auto plan = app_->CopyPlan(cluster);
    EXPECT_OK(plan);
    if (plan.ok()) {
      EXPECT_OK(ValidateSchedule((*plan)->ToValidate()));
    }
    return out;
  }

  // The sequence number of the SCHEDULE a new watcher starts with.
  std::int64_t WatchSequence(const std::string& cluster) {
    auto stream = Watch(cluster);
    pb::ScheduleEvent first;
    EXPECT_TRUE(stream->reader->Read(&first));
    stream->context.TryCancel();
    (void)Drain(*stream);
    return first.sequence();
  }

  void RestartKeepsTheAcknowledgedState(bool snapshots);

  // A one-processor job submitted as soon as the journal commits again (a probe every 200 ms).
  grpc::Status SubmitOnceWritable(const std::string& cluster, pb::SubmitJobResponse* response) {
    grpc::Status submitted;
    for (int i = 0; i < 100; ++i) {
      submitted = Submit(cluster, Rigid(1, 60), response);
      if (submitted.ok()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return submitted;
  }

  // One random change on `cluster`; request ids on some, so that retries can be checked.
  void RandomChange(const std::string& cluster, std::mt19937& rng, int step,
                    std::map<std::string, pb::SubmitJobResponse>& answered) {
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    int kind = pick(12);
    grpc::ClientContext context;
    if (kind < 5) {
      pb::JobSpec spec;
      if (pick(2) == 0) {
        spec = Rigid(1 + pick(8), 600 * (1 + pick(12)));
      } else {
        spec.mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(1800 * (1 + pick(8)));
        spec.mutable_model()->mutable_amdahl()->set_alpha(0.05 * pick(5));
      }
      pb::SubmitJobResponse response;
      const std::string id = pick(2) == 0 ? absl::StrCat(cluster, "-", step) : "";
      ASSERT_OK(Submit(cluster, spec, &response, id));
      if (!id.empty()) answered[id] = response;
    } else if (kind == 5) {
      pb::AdvanceClockResponse response;
      ASSERT_OK(AdvanceBy(cluster, 60 * (1 + pick(60)), &response));
    } else if (kind == 6) {
      pb::CancelJobRequest request;
      request.set_cluster(cluster);
      request.set_id(absl::StrCat("j", 1 + pick(step + 1)));
      pb::Job job;
      (void)stub_->CancelJob(&context, request, &job);  // the job may be unknown or ended
    } else if (kind == 7) {
      pb::AddReservationRequest request;
      request.set_cluster(cluster);
      request.set_processors(1 + pick(4));
      pb::Cluster now;
      grpc::ClientContext get;
      pb::GetClusterRequest g;
      g.set_name(cluster);
      ASSERT_OK(stub_->GetCluster(&get, g, &now));
      const std::int64_t start = now.now().seconds() + 600 * pick(20);
      request.mutable_start()->set_seconds(start);
      request.mutable_end()->set_seconds(start + 600 * (1 + pick(6)));
      request.set_displace_queued(pick(2) == 0);
      if (OnTwoSpeeds(cluster) && pick(2) == 0) request.set_group(pick(2));
      pb::Reservation r;
      (void)stub_->AddReservation(&context, request, &r);  // may not fit
    } else if (kind == 8) {
      pb::ReserveDAGRequest request;
      request.set_cluster(cluster);
      *request.mutable_dag() = Chain(2 + pick(3), 1 + pick(2));
      request.set_request_id(absl::StrCat(cluster, "-dag-", step));
      // On two speeds the mapping planners too: their tasks land in either group.
      if (OnTwoSpeeds(cluster) && pick(2) == 0) {
        request.mutable_algorithm()->set_name(pick(2) == 0 ? "heft" : "barbosa");
      }
      pb::ReserveDAGResponse response;
      ASSERT_OK(stub_->ReserveDAG(&context, request, &response));
    } else if (kind == 11) {
      // What an engine reports of a DAG's task: an end frees its processors, a failure its
      // dependants too. Most reports are refused (the task not started yet, already ended).
      static constexpr pb::JobEventKind kKinds[] = {pb::STARTED, pb::FINISHED_EVENT,
                                                    pb::FAILED_EVENT};
      pb::ReportDagTaskEventRequest request;
      request.set_cluster(cluster);
      request.set_id(absl::StrCat("d", 1 + pick(3)));
      request.set_task(absl::StrCat("t", pick(4)));
      request.set_kind(kKinds[pick(3)]);
      pb::DagReservation dag;
      (void)stub_->ReportDagTaskEvent(&context, request, &dag);
    } else if (kind == 10) {
      // Journaled as the plan it committed; a refused (worse) plan changes nothing.
      static const char* const kPlanners[] = {"mrt", "bicriteria", "list-saf", "gang"};
      pb::ReplanRequest request;
      request.set_cluster(cluster);
      request.mutable_algorithm()->set_name(kPlanners[pick(4)]);
      request.set_force(pick(2) == 0);
      request.set_request_id(absl::StrCat(cluster, "-replan-", step));
      pb::ReplanResponse response;
      ASSERT_OK(stub_->Replan(&context, request, &response));
    } else {
      pb::ReportJobEventRequest request;
      request.set_cluster(cluster);
      request.set_id(absl::StrCat("j", 1 + pick(step + 1)));
      request.set_kind(pb::FINISHED_EVENT);
      pb::Job job;
      (void)stub_->ReportJobEvent(&context, request, &job);  // only RUNNING jobs finish
    }
  }

  const resched::testing::TempDir temp_{"resched-durable"};
};

// Random mixed load on every kind of policy, a deletion, then restarts: each comes back to the
// acknowledged state. With `snapshots`, clusters write snapshots along the way, and the load
// goes on after the first restarts so that a restored cluster journals, snapshots and restarts
// again.
void DurabilityTest::RestartKeepsTheAcknowledgedState(bool snapshots) {
  std::vector<std::string> policies = {"fcfs",  "easy", "conservative",       "dasedf",
                                       "split", "dbos", "reserve-aux-dasedf", "iterative"};
  for (const auto& policy : policies) CreateSim(policy, 16, policy);
  // And two groups of different speeds, whose jobs and holds keep their groups.
  CreateSimOn(kTwoSpeedCluster, {{"slow", 16, 1.0}, {"fast", 8, 2.0}}, "conservative");
  policies.push_back(kTwoSpeedCluster);
  CreateSimOn(kTwoSpeedSplitCluster, {{"slow", 16, 1.0}, {"fast", 8, 2.0}}, "split");
  policies.push_back(kTwoSpeedSplitCluster);
  // One more that replans itself as AdvanceClock passes every half hour: a replay must replan
  // the same way.
  pb::CreateClusterRequest periodic;
  periodic.mutable_spec()->set_name("periodic");
  periodic.mutable_spec()->set_processors(16);
  periodic.mutable_spec()->set_clock(pb::SIMULATED);
  periodic.mutable_spec()->mutable_policy()->set_name("fcfs");
  periodic.mutable_spec()->mutable_replan_every()->set_seconds(1800);
  periodic.mutable_spec()->mutable_replan_algorithm()->set_name("bicriteria");
  pb::Cluster created;
  grpc::ClientContext periodic_context;
  ASSERT_OK(stub_->CreateCluster(&periodic_context, periodic, &created));
  policies.insert(policies.begin(), "periodic");
  std::mt19937 rng(20261125);
  std::map<std::string, pb::SubmitJobResponse> answered;
  int changes = 0;
  for (int step = 0; step < 60; ++step) {
    for (const auto& policy : policies) {
      ASSERT_NO_FATAL_FAILURE(RandomChange(policy, rng, step, answered));
      ++changes;
    }
  }
  pb::DeleteClusterRequest deleted;
  deleted.set_name("iterative");
  deleted.set_force(true);
  pb::DeleteClusterResponse gone;
  grpc::ClientContext delete_context;
  ASSERT_OK(stub_->DeleteCluster(&delete_context, deleted, &gone));
  std::erase(policies, std::string("iterative"));

  auto check_restarts = [&](int restarts) {
    std::map<std::string, std::string> before;
    std::map<std::string, std::int64_t> sequences;
    for (const auto& policy : policies) {
      before[policy] = Dump(policy);
      sequences[policy] = WatchSequence(policy);
    }
    // Replaying must not write: a second restart would then read its own additions.
    for (int restart = 0; restart < restarts; ++restart) {
      Restart();
      for (const auto& [cluster, dump] : before) {
        EXPECT_EQ(Dump(cluster), dump) << cluster << " after restart " << restart;
        EXPECT_EQ(WatchSequence(cluster), sequences[cluster]) << cluster;
      }
    }
  };
  if (snapshots) {
    EXPECT_GE(app_->FlushSnapshots(), static_cast<std::int64_t>(policies.size()));
    std::int64_t kept = 0;
    ASSERT_OK(app_->journal()->Scan([&](const StoredRecord&) {
      ++kept;
      return absl::OkStatus();
    }));
    EXPECT_LT(kept, changes / 2) << "compaction keeps the records after each snapshot only";
  }
  check_restarts(2);
  if (snapshots) {
    for (int step = 60; step < 100; ++step) {
      for (const auto& policy : policies) {
        ASSERT_NO_FATAL_FAILURE(RandomChange(policy, rng, step, answered));
      }
    }
    app_->FlushSnapshots();
    check_restarts(1);
  }
  pb::GetClusterRequest get_deleted;
  get_deleted.set_name("iterative");
  pb::Cluster ignored;
  grpc::ClientContext get_context;
  EXPECT_EQ(stub_->GetCluster(&get_context, get_deleted, &ignored).error_code(),
            grpc::StatusCode::NOT_FOUND);  // deleted stays deleted

  // A retry after the restart replays the first answer instead of submitting again.
  ASSERT_FALSE(answered.empty());
  for (const auto& [request_id, first] : answered) {
    pb::SubmitJobResponse again;
    const std::string cluster = first.job().cluster();
    if (cluster == "iterative") continue;
    const grpc::Status retried = Submit(cluster, Rigid(1, 60), &again, request_id);
    EXPECT_EQ(retried.error_code(), grpc::StatusCode::ALREADY_EXISTS) << request_id;
  }
  // New ids continue after the last one acknowledged.
  for (const auto& cluster : policies) {
    pb::ListJobsRequest request;
    request.set_cluster(cluster);
    pb::ListJobsResponse jobs;
    grpc::ClientContext context;
    ASSERT_OK(stub_->ListJobs(&context, request, &jobs));
    pb::SubmitJobResponse next;
    ASSERT_OK(Submit(cluster, Rigid(1, 60), &next));
    const std::string last = jobs.jobs(jobs.jobs_size() - 1).id();
    EXPECT_GT(std::stoi(next.job().id().substr(1)), std::stoi(last.substr(1))) << cluster;
  }
}

TEST_F(DurabilityTest, ARestartComesBackToTheAcknowledgedStateOnEveryPolicy) {
  RestartKeepsTheAcknowledgedState(/*snapshots=*/false);
}

// Snapshots every 20 records: start-up loads them and replays the rest.
class SnapshotTest : public DurabilityTest {
 protected:
  SnapshotTest() { limits_.snapshot_every_records = 20; }
};

TEST_F(SnapshotTest, ARestartFromSnapshotsComesBackToTheAcknowledgedState) {
  RestartKeepsTheAcknowledgedState(/*snapshots=*/true);
}

TEST_F(DurabilityTest, AWatcherResumesAfterARestartWithExactlyTheEventsItMissed) {
  CreateSim("resume", 8, "conservative");
  auto live = Watch("resume");
  pb::ScheduleEvent event;
  ASSERT_TRUE(live->reader->Read(&event));
  // The sequence after each change: where a resume starts at a change.
  std::vector<std::int64_t> after_change = {event.sequence()};
  for (int i = 0; i < 30; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("resume", Rigid(1 + i % 8, 600 + 60 * i), &submitted));
    after_change.push_back(WatchSequence("resume"));
  }
  const std::int64_t last = after_change.back();
  std::map<std::int64_t, pb::Job> sent;  // what the live stream carried, by sequence
  while (sent.empty() || sent.rbegin()->first < last) {
    ASSERT_TRUE(live->reader->Read(&event));
    ASSERT_EQ(event.kind(), pb::ScheduleEvent::JOB_CHANGED);
    ASSERT_TRUE(sent.empty() || event.sequence() == sent.rbegin()->first + 1);
    sent[event.sequence()] = event.job();
  }
  live->context.TryCancel();
  (void)Drain(*live);

  Restart();
  for (const std::int64_t after : after_change) {
    if (after == 0) continue;  // after_sequence 0 asks for a fresh start
    // Each job as the events after `after` leave it: the same whatever the order within a change.
    std::map<std::string, std::string> resumed_jobs;
    std::map<std::string, std::string> live_jobs;
    for (auto it = sent.upper_bound(after); it != sent.end(); ++it) {
      // The rows a job is drawn on are not journaled: events a restart rebuilt carry none.
      pb::Job job = it->second;
      job.mutable_allocation()->clear_processor_ids();
      live_jobs[job.id()] = job.DebugString();
    }
    auto resumed = Watch("resume", after);
    for (std::int64_t expected = after + 1; expected <= last; ++expected) {
      ASSERT_TRUE(resumed->reader->Read(&event));
      ASSERT_EQ(event.kind(), pb::ScheduleEvent::JOB_CHANGED) << "resuming after " << after;
      ASSERT_EQ(event.sequence(), expected);
      resumed_jobs[event.job().id()] = event.job().DebugString();
    }
    EXPECT_EQ(resumed_jobs, live_jobs) << "resuming after " << after;
    resumed->context.TryCancel();
    (void)Drain(*resumed);
  }
  // Caught up: nothing until the next change, then its events.
  auto caught_up = Watch("resume", last);
  pb::SubmitJobResponse next;
  ASSERT_OK(Submit("resume", Rigid(2, 60), &next));
  ASSERT_TRUE(caught_up->reader->Read(&event));
  EXPECT_EQ(event.kind(), pb::ScheduleEvent::JOB_CHANGED);
  EXPECT_EQ(event.sequence(), last + 1);
  caught_up->context.TryCancel();
  (void)Drain(*caught_up);
  // A watcher ahead of the cluster (it saw a change that was never saved) starts over.
  auto ahead = Watch("resume", last + 100);
  ASSERT_TRUE(ahead->reader->Read(&event));
  EXPECT_EQ(event.kind(), pb::ScheduleEvent::SCHEDULE);
  EXPECT_EQ(event.sequence(), WatchSequence("resume"));
  ahead->context.TryCancel();
  (void)Drain(*ahead);
  // A negative resume point is refused by name.
  auto negative = Watch("resume", -1);
  const grpc::Status refused = Drain(*negative);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), ::testing::HasSubstr("after_sequence"));
}

TEST_F(DurabilityTest, AWallClusterKeepsItsJobsAcrossARestart) {
  pb::CreateClusterRequest request;
  request.mutable_spec()->set_name("wall");
  request.mutable_spec()->set_processors(8);
  request.mutable_spec()->set_clock(pb::WALL);
  request.mutable_spec()->mutable_policy()->set_name("conservative");
  pb::Cluster cluster;
  grpc::ClientContext context;
  ASSERT_OK(stub_->CreateCluster(&context, request, &cluster));
  for (int i = 0; i < 5; ++i) {
    pb::JobSpec spec = Rigid(4, 10 * kHourInSeconds);
    // Released a day from now: nothing starts while the test runs, so the two dumps compare.
    spec.mutable_release()->set_seconds(cluster.now().seconds() + 24 * kHourInSeconds);
    pb::SubmitJobResponse response;
    ASSERT_OK(Submit("wall", spec, &response));
  }
  const std::string before = Dump("wall", /*with_clock=*/false);
  Restart();
  EXPECT_EQ(Dump("wall", /*with_clock=*/false), before);
}

// The service's metrics in Prometheus' text format.
std::string MetricsTextOf(Application& app) {
  std::vector<prometheus::MetricFamily> families;
  for (const auto& collectable : app.MetricsCollectables()) {
    std::vector<prometheus::MetricFamily> collected = collectable->Collect();
    families.insert(families.end(), collected.begin(), collected.end());
  }
  return prometheus::TextSerializer().Serialize(families);
}

// The standard gRPC health check's answer for the whole server.
health::HealthCheckResponse::ServingStatus HealthOf(const std::string& target) {
  auto stub =
      health::Health::NewStub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  health::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, health::HealthCheckRequest(), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response.status();
}

TEST_F(DurabilityTest, AFullDiskRefusesChangesKeepsReadsAndRecovers) {
  grpc::HealthCheckServiceInterface* health_service = server_->GetHealthCheckService();
  app_->SetHealthListener(
      [health_service](bool serving) { health_service->SetServingStatus(serving); });
  EXPECT_EQ(HealthOf(target_), health::HealthCheckResponse::SERVING);
  CreateSim("sim", 16, "conservative");
  pb::SubmitJobResponse first;
  ASSERT_OK(Submit("sim", Rigid(2, 3600), &first));
  const std::string before = Dump("sim");

  // The record of a large DAG needs new pages, which the capped database cannot have: the DAG
  // is applied in memory, then its commit fails.
  ASSERT_OK(app_->journal()->SetSizeLimitForTest(1));
  pb::ReserveDAGRequest big;
  big.set_cluster("sim");
  *big.mutable_dag() = Chain(300, 1);
  pb::ReserveDAGResponse booked;
  grpc::ClientContext c1;
  const grpc::Status refused = stub_->ReserveDAG(&c1, big, &booked);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE) << refused.error_message();
  EXPECT_NE(refused.error_message().find(data_dir_), std::string::npos) << refused.error_message();
  // While the fault lasts, changes are refused before they are applied, and reads answer the
  // state that is durable: the DAG is gone.
  pb::SubmitJobResponse during;
  const grpc::Status refused_submit = Submit("sim", Rigid(1, 60), &during);
  EXPECT_EQ(refused_submit.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(refused_submit.error_message().find(data_dir_), std::string::npos);
  EXPECT_EQ(Dump("sim"), before);
  // The health check says the server cannot take work, and a metric says why.
  EXPECT_EQ(HealthOf(target_), health::HealthCheckResponse::NOT_SERVING);
  EXPECT_THAT(MetricsTextOf(*app_), ::testing::HasSubstr("resched_journal_writable 0"));
  EXPECT_THAT(MetricsTextOf(*app_), ::testing::HasSubstr("resched_journal_failed_commits_total 1"));
  // A flood of refused changes writes a line a second, not one per call; the next line counts
  // the ones left out.
  std::vector<std::string> lines;
  Mutex lines_mu;
  SetLogSinkForTest([&](const std::string& line) {
    MutexLock lock(&lines_mu);
    lines.push_back(line);
  });
  // Each either refused before it is applied or, once a probe committed, applied and failed
  // at its commit: the disk stays full.
  auto refused_dag = [&] {
    grpc::ClientContext context;
    pb::ReserveDAGResponse response;
    EXPECT_EQ(stub_->ReserveDAG(&context, big, &response).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  };
  const absl::Time flood_started = absl::Now();
  for (int i = 0; i < 100; ++i) refused_dag();
  absl::SleepFor(absl::Seconds(1.1));
  refused_dag();
  const double flood_seconds = absl::ToDoubleSeconds(absl::Now() - flood_started);
  SetLogSinkForTest(nullptr);
  {
    MutexLock lock(&lines_mu);
    const auto failed = std::count_if(lines.begin(), lines.end(), [](const std::string& line) {
      return line.find("ReserveDAG failed") != std::string::npos;
    });
    EXPECT_GE(failed, 1);
    EXPECT_LE(failed, static_cast<long>(flood_seconds) + 2) << flood_seconds << " s";
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
      return line.find(
                 "calls refused while the journal cannot commit or their cluster moves not "
                 "logged") != std::string::npos;
    }));
  }

  ASSERT_OK(app_->journal()->SetSizeLimitForTest(0));
  pb::SubmitJobResponse after;
  ASSERT_OK(SubmitOnceWritable("sim", &after));
  EXPECT_EQ(after.job().id(), "j2");  // the refused submission took no id
  EXPECT_EQ(HealthOf(target_), health::HealthCheckResponse::SERVING);
  EXPECT_THAT(MetricsTextOf(*app_), ::testing::HasSubstr("resched_journal_writable 1"));
  app_->SetHealthListener(nullptr);
  const std::string recovered = Dump("sim");
  Restart();
  EXPECT_EQ(Dump("sim"), recovered);
}

// A restart on a disk too full to write: the server starts, serves the durable state, refuses
// changes with UNAVAILABLE, says NOT_SERVING and why; once the disk has room it takes changes.
TEST_F(DurabilityTest, AFullDiskAtStartServesReadsAndRefusesChangesUntilItHasRoom) {
  CreateSim("sim", 16, "conservative");
  pb::SubmitJobResponse first;
  ASSERT_OK(Submit("sim", Rigid(2, 3600), &first));
  const std::string before = Dump("sim");
  Stop();
  testing::FullDiskVfs vfs;
  vfs.SetFull(true);
  std::vector<std::string> lines;
  Mutex lines_mu;
  SetLogSinkForTest([&](const std::string& line) {
    MutexLock lock(&lines_mu);
    lines.push_back(line);
  });
  Start();
  SetLogSinkForTest(nullptr);
  {
    MutexLock lock(&lines_mu);
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
      return line.find("started read-only") != std::string::npos;
    }));
  }
  EXPECT_EQ(Dump("sim"), before);
  EXPECT_THAT(MetricsTextOf(*app_), ::testing::HasSubstr("resched_journal_writable 0"));
  pb::SubmitJobResponse refused;
  const grpc::Status during = Submit("sim", Rigid(1, 60), &refused);
  EXPECT_EQ(during.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(during.error_message().find(data_dir_), std::string::npos) << during.error_message();
  vfs.SetFull(false);
  pb::SubmitJobResponse after;
  ASSERT_OK(SubmitOnceWritable("sim", &after));
  EXPECT_EQ(after.job().id(), "j2");
  EXPECT_THAT(MetricsTextOf(*app_), ::testing::HasSubstr("resched_journal_writable 1"));
  const std::string with_second = Dump("sim");
  Restart();
  EXPECT_EQ(Dump("sim"), with_second);
  Stop();  // before the VFS goes
}

// Rewrites every record of the stopped server's journal with `edit`, keeping their order.
void RewriteJournal(const std::string& dir, const std::function<void(pb::JournalRecord&)>& edit) {
  auto journal = Journal::Open(dir);
  ASSERT_OK(journal);
  std::vector<StoredRecord> records;
  ASSERT_OK((*journal)->Scan([&](const StoredRecord& r) {
    records.push_back(r);
    return absl::OkStatus();
  }));
  std::int64_t snapshots = 0;
  ASSERT_OK((*journal)->ScanSnapshots([&](const StoredRecord&) {
    ++snapshots;
    return absl::OkStatus();
  }));
  ASSERT_EQ(snapshots, 0) << "a snapshot would keep the plan as it was";
  std::set<std::string> clusters;
  for (const StoredRecord& r : records) clusters.insert(r.cluster);
  for (const std::string& cluster : clusters) {
    ASSERT_OK((*journal)->DropClusterBefore(cluster, records.back().lsn + 1));
  }
  std::int64_t lsn = 0;
  for (const StoredRecord& r : records) {
    pb::JournalRecord record;
    ASSERT_TRUE(record.ParseFromString(r.payload));
    edit(record);
    lsn = (*journal)->Append(r.cluster, record.SerializeAsString());
  }
  ASSERT_OK((*journal)->WaitDurable(lsn));
}

// The journal records what each change did: a server whose policies would place every job
// differently still comes back to exactly the acknowledged state, and runs its own policy only
// for what comes after.
TEST_F(DurabilityTest, AReplayUnderPoliciesThatPlaceDifferentlyGivesTheAcknowledgedState) {
  const std::map<std::string, std::string> swapped = {{"fcfs", "conservative"},
                                                      {"easy", "fcfs"},
                                                      {"conservative", "fcfs"},
                                                      {"dasedf", "conservative"},
                                                      {"dbos", "easy"}};
  for (const auto& [policy, other] : swapped) CreateSim(policy, 16, policy);
  std::mt19937 rng(20261129);
  std::map<std::string, pb::SubmitJobResponse> answered;
  for (int step = 0; step < 60; ++step) {
    for (const auto& [policy, other] : swapped) {
      ASSERT_NO_FATAL_FAILURE(RandomChange(policy, rng, step, answered));
    }
  }
  std::map<std::string, std::string> before;
  for (const auto& [policy, other] : swapped) {
    before[policy] = Dump(policy, /*with_clock=*/true, /*with_policy=*/false);
  }
  Stop();
  ASSERT_NO_FATAL_FAILURE(RewriteJournal(data_dir_, [&](pb::JournalRecord& record) {
    if (!record.has_create_cluster()) return;
    pb::ClusterSpec* spec = record.mutable_create_cluster()->mutable_spec();
    if (auto it = swapped.find(spec->name()); it != swapped.end()) {
      spec->mutable_policy()->set_name(it->second);
    }
  }));
  Start();
  int placed_differently = 0;
  for (const auto& [policy, other] : swapped) {
    EXPECT_EQ(Dump(policy, /*with_clock=*/true, /*with_policy=*/false), before[policy]) << policy;
    // The cluster now runs the other policy, which would have placed its jobs differently: the
    // same jobs submitted to a copy under each policy end up elsewhere.
    auto plan = app_->CopyPlan(policy);
    ASSERT_OK(plan);
    EXPECT_EQ((*plan)->spec().policy, other);
    ClusterPlanImage image = (*plan)->Image();
    image.spec.policy = policy;
    image.policy = {};
    auto original = ClusterPlan::FromImage(image);
    ASSERT_OK(original);
    for (int i = 0; i < 20; ++i) {
      Job job;
      job.model = RuntimeModel(RigidModel{1 + i % 9, (1 + i % 5) * 1'800'000'000LL});
      auto a = (*plan)->Submit(job);
      auto b = (*original)->Submit(job);
      ASSERT_OK(a);
      ASSERT_OK(b);
      if ((*a)->allocation != (*b)->allocation) ++placed_differently;
    }
  }
  EXPECT_GT(placed_differently, 0);
}

// A data directory of the request format, which servers wrote before records said what each
// change did: read by re-planning through this server's policies, to the state a live run of the
// same requests gives.
TEST_F(DurabilityTest, RecordsOfTheRequestFormatAreReplayedByReplanning) {
  CreateSim("live", 16, "conservative");
  Stop();
  std::vector<pb::SubmitJobRequest> submitted;
  {
    auto journal = Journal::Open(data_dir_);
    ASSERT_OK(journal);
    std::int64_t lsn = 0;
    pb::JournalRecord create;
    create.mutable_now()->set_seconds(0);
    pb::ClusterSpec* spec = create.mutable_create_cluster()->mutable_spec();
    spec->set_name("old");
    spec->set_processors(16);
    spec->set_clock(pb::SIMULATED);
    spec->mutable_policy()->set_name("conservative");
    lsn = (*journal)->Append("old", create.SerializeAsString());
    for (int i = 0; i < 12; ++i) {
      pb::JournalRecord record;
      record.mutable_now()->set_seconds(0);
      pb::SubmitJobRequest* request = record.mutable_submit_job();
      request->set_cluster("old");
      *request->mutable_job() = Rigid(1 + i % 7, 600 * (1 + i % 4));
      submitted.push_back(*request);
      lsn = (*journal)->Append("old", record.SerializeAsString());
    }
    pb::JournalRecord advance;
    advance.mutable_now()->set_seconds(0);
    advance.mutable_advance_clock()->set_cluster("old");
    advance.mutable_advance_clock()->mutable_by()->set_seconds(1200);
    lsn = (*journal)->Append("old", advance.SerializeAsString());
    ASSERT_OK((*journal)->WaitDurable(lsn));
  }
  Start();
  for (pb::SubmitJobRequest request : submitted) {
    pb::SubmitJobResponse response;
    ASSERT_OK(Submit("live", request.job(), &response));
  }
  pb::AdvanceClockResponse advanced;
  ASSERT_OK(AdvanceBy("live", 1200, &advanced));
  auto strip = [](std::string dump, const std::string& name) {
    return absl::StrReplaceAll(dump, {{absl::StrCat("\"", name, "\""), "\"cluster\""}});
  };
  const std::string replayed = strip(Dump("old"), "old");
  EXPECT_EQ(replayed, strip(Dump("live"), "live"));
  // Records written from now on say what each change did, and replay as such.
  pb::SubmitJobResponse after;
  ASSERT_OK(Submit("old", Rigid(3, 600), &after));
  const std::string with_one_more = Dump("old");
  Restart();
  EXPECT_EQ(Dump("old"), with_one_more);
}

TEST_F(DurabilityTest, ARecordThatDoesNotReplayStopsTheStartNamingIt) {
  CreateSim("sim", 16, "fcfs");
  Stop();
  std::int64_t lsn = 0;
  {
    auto journal = Journal::Open(data_dir_);
    ASSERT_OK(journal);
    pb::JournalRecord record;
    record.mutable_submit_job()->set_cluster("nowhere");
    record.mutable_now()->set_seconds(0);
    lsn = (*journal)->Append("nowhere", record.SerializeAsString());
    ASSERT_OK((*journal)->WaitDurable(lsn));
  }
  Application app(limits_);
  absl::StatusOr<bool> opened = app.OpenDataDir(data_dir_);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(opened.status().message().find(absl::StrCat("LSN ", lsn)), std::string::npos)
      << opened.status();
  EXPECT_NE(opened.status().message().find(data_dir_ + "/journal.db"), std::string::npos)
      << opened.status();
}

}  // namespace
}  // namespace resched::server::testing
