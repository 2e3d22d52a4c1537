#include "bridge/reconcile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace resched::bridge {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

constexpr Time kSecond = kMicrosPerSecond;
constexpr Time kNow = 1'800'000'000 * kSecond;  // a Unix instant, as on a WALL cluster

SyncOptions Options() {
  SyncOptions options;
  options.name_prefix = "resched-c";
  options.hold_source = "slurm";
  options.users = "alice";
  return options;
}

PlannedWork Job(std::string id, Time start, Time end, int processors, bool running = false) {
  PlannedWork work;
  work.kind = PlannedKind::kJob;
  work.id = std::move(id);
  work.start = start;
  work.end = end;
  work.processors = processors;
  work.running = running;
  return work;
}

PlannedWork Task(std::string dag, std::string task, Time start, Time end, int processors,
                 bool running = false) {
  PlannedWork work = Job(std::move(dag), start, end, processors, running);
  work.kind = PlannedKind::kDagTask;
  work.task = std::move(task);
  return work;
}

PlannedWork Hold(std::string id, std::string reason, Time start, Time end, int processors) {
  PlannedWork work = Job(std::move(id), start, end, processors);
  work.kind = PlannedKind::kHold;
  work.reason = std::move(reason);
  return work;
}

BatchReservation Reservation(std::string name, Time start, Time end, int cores) {
  return BatchReservation{std::move(name), start, end, cores, "alice", ""};
}

BatchJob BatchJobIn(std::string id, BatchJobState state, Time start, Time end, int cpus,
                    std::string reservation) {
  BatchJob job;
  job.id = std::move(id);
  job.state = state;
  job.start = start;
  job.end = end;
  job.cpus = cpus;
  job.reservation = std::move(reservation);
  return job;
}

struct World {
  ReschedView resched{kNow, 16, {}};
  BatchSnapshot batch{kNow, 16, {}, {}, {}};
  SyncMemory memory;

  SyncPlan Round() const { return Reconcile(resched, batch, Options(), memory); }
};

TEST(ReconcileTest, QueuedJobBecomesReservationInsideItsWholeSeconds) {
  World w;
  w.resched.work.push_back(Job("j1", kNow + 10 * kSecond + 300, kNow + 70 * kSecond + 900, 4));
  const SyncPlan plan = w.Round();
  ASSERT_THAT(plan.batch_changes, SizeIs(1));
  const ReservationChange& change = plan.batch_changes[0];
  EXPECT_EQ(change.kind, ReservationChange::Kind::kCreate);
  EXPECT_EQ(change.reservation.name, "resched-c-j1");
  EXPECT_EQ(change.reservation.start, kNow + 11 * kSecond);  // the next whole second
  EXPECT_EQ(change.reservation.end, kNow + 70 * kSecond);    // the last whole one
  EXPECT_EQ(change.reservation.cores, 4);
  EXPECT_EQ(change.reservation.users, "alice");
  EXPECT_THAT(plan.holds_to_add, IsEmpty());
  EXPECT_THAT(plan.reports, IsEmpty());
}

TEST(ReconcileTest, ATenantsWorkIsReservedForItsAccount) {
  World w;
  w.resched.work.push_back(Job("j1", kNow + 10 * kSecond, kNow + 70 * kSecond, 4));
  w.resched.work.back().owner = "climate";
  w.resched.work.push_back(Task("d2", "t", kNow + 10 * kSecond, kNow + 70 * kSecond, 4));
  w.resched.work.back().owner = "astro";  // not mapped: the default users
  SyncOptions options = Options();
  options.tenant_accounts["climate"] = "clim01";
  SyncPlan plan = Reconcile(w.resched, w.batch, options, w.memory);
  ASSERT_THAT(plan.batch_changes, SizeIs(2));
  EXPECT_EQ(plan.batch_changes[0].reservation.name, "resched-c-d2-t");
  EXPECT_EQ(plan.batch_changes[0].reservation.users, "alice");
  EXPECT_EQ(plan.batch_changes[1].reservation.accounts, "clim01");
  EXPECT_EQ(plan.batch_changes[1].reservation.users, "");

  // Mapped later: the reservation is made again for the account.
  w.batch.reservations.push_back(
      Reservation("resched-c-j1", kNow + 10 * kSecond, kNow + 70 * kSecond, 4));
  w.batch.reservations.push_back(
      Reservation("resched-c-d2-t", kNow + 10 * kSecond, kNow + 70 * kSecond, 4));
  plan = Reconcile(w.resched, w.batch, options, w.memory);
  ASSERT_THAT(plan.batch_changes, SizeIs(1));
  EXPECT_EQ(plan.batch_changes[0].kind, ReservationChange::Kind::kUpdate);
  EXPECT_EQ(plan.batch_changes[0].reservation.accounts, "clim01");
}

TEST(ReconcileTest, RunningWorkStartsNowAndBeyondTheHorizonWaits) {
  World w;
  w.resched.work.push_back(Job("j1", kNow - 5 * kSecond, kNow + 60 * kSecond, 2, true));
  w.resched.work.push_back(Job("j2", kNow + 25 * 3600 * kSecond, kNow + 26 * 3600 * kSecond, 2));
  const SyncPlan plan = w.Round();
  ASSERT_THAT(plan.batch_changes, SizeIs(1));
  EXPECT_EQ(plan.batch_changes[0].reservation.name, "resched-c-j1");
  EXPECT_EQ(plan.batch_changes[0].reservation.start, kNow);
}

TEST(ReconcileTest, ReservationInStepIsLeftAloneAndAMovedOneIsRemadeWithItsWaitingJobs) {
  World w;
  w.resched.work.push_back(Job("j1", kNow + 10 * kSecond, kNow + 70 * kSecond, 4));
  w.batch.reservations.push_back(
      Reservation("resched-c-j1", kNow + 10 * kSecond, kNow + 70 * kSecond, 4));
  EXPECT_THAT(w.Round().batch_changes, IsEmpty());

  w.resched.work[0].start += 30 * kSecond;
  w.resched.work[0].end += 30 * kSecond;
  w.batch.jobs.push_back(BatchJobIn("7", BatchJobState::kPending, 0, 0, 4, "resched-c-j1"));
  const SyncPlan plan = w.Round();
  ASSERT_THAT(plan.batch_changes, SizeIs(1));
  EXPECT_EQ(plan.batch_changes[0].kind, ReservationChange::Kind::kUpdate);
  EXPECT_FALSE(plan.batch_changes[0].keep_start);
  EXPECT_EQ(plan.batch_changes[0].reservation.start, kNow + 40 * kSecond);
  EXPECT_THAT(plan.batch_changes[0].waiting_jobs, ElementsAre("7"));
}

TEST(ReconcileTest, ReservationRunningAJobIsNeverChangedNorDeleted) {
  World w;
  w.batch.reservations.push_back(
      Reservation("resched-c-j1", kNow - 10 * kSecond, kNow + 50 * kSecond, 4));
  w.batch.jobs.push_back(BatchJobIn("7", BatchJobState::kRunning, kNow - 9 * kSecond,
                                    kNow + 51 * kSecond, 4, "resched-c-j1"));
  // resched's job ended (its planned end passed, say) while the batch job runs on: no deletion,
  // and the batch job is load from then on.
  const SyncPlan plan = w.Round();
  EXPECT_THAT(plan.batch_changes, IsEmpty());
  ASSERT_THAT(plan.holds_to_add, SizeIs(1));
  EXPECT_EQ(plan.holds_to_add[0].reason, "slurm: job 7");
  EXPECT_EQ(plan.holds_to_add[0].processors, 4);
}

TEST(ReconcileTest, ReservationWhoseWorkEndedIsDeletedUnlessItIsOver) {
  World w;
  w.batch.reservations.push_back(
      Reservation("resched-c-j1", kNow + 10 * kSecond, kNow + 70 * kSecond, 4));
  w.batch.reservations.push_back(
      Reservation("resched-c-j2", kNow - 70 * kSecond, kNow - 10 * kSecond, 4));
  w.batch.reservations.push_back(Reservation("maint", kNow - 70 * kSecond, kNow - 10 * kSecond, 4));
  const SyncPlan plan = w.Round();
  ASSERT_THAT(plan.batch_changes, SizeIs(1));
  EXPECT_EQ(plan.batch_changes[0].kind, ReservationChange::Kind::kDelete);
  EXPECT_EQ(plan.batch_changes[0].reservation.name, "resched-c-j1");
  EXPECT_THAT(plan.holds_to_add, IsEmpty());  // the ended maintenance is no load
}

TEST(ReconcileTest, JobWaitingForAReservationThatIsGoneForGoodIsLetGo) {
  World w;
  w.batch.jobs.push_back(BatchJobIn("7", BatchJobState::kPending, 0, 0, 4, "resched-c-j9"));
  const SyncPlan plan = w.Round();
  ASSERT_THAT(plan.batch_changes, SizeIs(1));
  EXPECT_EQ(plan.batch_changes[0].kind, ReservationChange::Kind::kDelete);
  EXPECT_EQ(plan.batch_changes[0].reservation.name, "resched-c-j9");
}

TEST(ReconcileTest, DagTasksAndHoldsAreMirroredButTheBridgesOwnHoldsAreNot) {
  World w;
  w.resched.work.push_back(Task("d3", "prepare", kNow + 10 * kSecond, kNow + 20 * kSecond, 2));
  w.resched.work.push_back(Hold("r4", "maintenance", kNow + 30 * kSecond, kNow + 40 * kSecond, 8));
  w.resched.work.push_back(
      Hold("r5", "slurm: reservation maint", kNow + 50 * kSecond, kNow + 60 * kSecond, 16));
  w.batch.reservations.push_back(
      Reservation("maint", kNow + 50 * kSecond, kNow + 60 * kSecond, 16));
  const SyncPlan plan = w.Round();
  std::vector<std::string> names;
  for (const auto& change : plan.batch_changes) names.push_back(change.reservation.name);
  EXPECT_THAT(names, ElementsAre("resched-c-d3-prepare", "resched-c-r4"));
  EXPECT_THAT(plan.holds_to_add, IsEmpty());
  EXPECT_THAT(plan.holds_to_remove, IsEmpty());
}

TEST(ReconcileTest, TaskNamesAreKeptReadableAndMadeUniqueWhenCharactersAreDropped) {
  const SyncOptions options = Options();
  EXPECT_EQ(MirrorName(options, Task("d1", "align_2.bam", 0, 1, 1)), "resched-c-d1-align_2.bam");
  const std::string a = MirrorName(options, Task("d1", "split/a b", 0, 1, 1));
  const std::string b = MirrorName(options, Task("d1", "split/a:b", 0, 1, 1));
  EXPECT_EQ(a, "resched-c-d1-split_a_b-f39cdddd");  // as docs/slurm.md says
  EXPECT_NE(a, b);
  EXPECT_EQ(a, MirrorName(options, Task("d1", "split/a b", 0, 1, 1)));  // stable
  const std::string long_name(300, 'x');
  EXPECT_LT(MirrorName(options, Task("d1", long_name, 0, 1, 1)).size(), 70u);
}

TEST(ReconcileTest, BatchLoadBecomesOneHoldPerThing) {
  World w;
  w.batch.reservations.push_back(
      Reservation("maint", kNow + 60 * kSecond, kNow + 120 * kSecond, 32));
  // Running outside any reservation, with and without a time limit.
  w.batch.jobs.push_back(
      BatchJobIn("10", BatchJobState::kRunning, kNow - 10 * kSecond, kNow + 50 * kSecond, 2, ""));
  w.batch.jobs.push_back(BatchJobIn("11", BatchJobState::kRunning, kNow - 10 * kSecond, 0, 1, ""));
  // Pending with and without a start estimate; one inside the maintenance reservation.
  w.batch.jobs.push_back(
      BatchJobIn("12", BatchJobState::kPending, kNow + 200 * kSecond, kNow + 260 * kSecond, 3, ""));
  w.batch.jobs.push_back(BatchJobIn("13", BatchJobState::kPending, 0, 0, 3, ""));
  w.batch.jobs.push_back(
      BatchJobIn("14", BatchJobState::kRunning, kNow, kNow + 9 * kSecond, 3, "maint"));
  w.batch.jobs.push_back(
      BatchJobIn("15", BatchJobState::kCompleted, kNow - 9 * kSecond, kNow - kSecond, 3, ""));
  w.batch.nodes.push_back({"n1", 8, 3, true});
  w.batch.nodes.push_back({"n2", 8, 8, true});  // drained, fully busy: nothing free to hold
  w.batch.nodes.push_back({"n3", 8, 0, false});
  const SyncPlan plan = w.Round();
  std::map<std::string, HoldSpec> holds;
  for (const HoldSpec& hold : plan.holds_to_add) holds[hold.reason] = hold;
  ASSERT_THAT(holds, SizeIs(5));
  EXPECT_EQ(holds["slurm: reservation maint"].processors, 16);  // at most the capacity
  EXPECT_EQ(holds["slurm: job 10"].end, kNow + 50 * kSecond);
  EXPECT_EQ(holds["slurm: job 11"].end, kNow + Options().open_hold_length);
  EXPECT_EQ(holds["slurm: job 12"].start, kNow + 200 * kSecond);
  EXPECT_EQ(holds["slurm: node n1 unavailable"].processors, 5);
  EXPECT_EQ(holds["slurm: node n1 unavailable"].start, kNow);
}

TEST(ReconcileTest, HoldsInStepStayAndMovedOrDuplicatedOnesAreReplaced) {
  World w;
  w.batch.jobs.push_back(
      BatchJobIn("12", BatchJobState::kPending, kNow + 200 * kSecond, kNow + 260 * kSecond, 3, ""));
  w.batch.nodes.push_back({"n1", 8, 0, true});
  // The pending job's estimate moved by less than the tolerance; the node's hold has more than
  // half its length left; a duplicate (a restart between two writes) and a stale hold.
  w.resched.work.push_back(
      Hold("r1", "slurm: job 12", kNow + 230 * kSecond, kNow + 290 * kSecond, 3));
  w.resched.work.push_back(Hold("r2", "slurm: node n1 unavailable", kNow - 3600 * kSecond,
                                kNow + 4 * 24 * 3600 * kSecond, 8));
  w.resched.work.push_back(Hold("r3", "slurm: node n1 unavailable", kNow - 3600 * kSecond,
                                kNow + 4 * 24 * 3600 * kSecond, 8));
  w.resched.work.push_back(Hold("r4", "slurm: job 99", kNow, kNow + 60 * kSecond, 1));
  SyncPlan plan = w.Round();
  EXPECT_THAT(plan.holds_to_remove, UnorderedElementsAre("r3", "r4"));
  EXPECT_THAT(plan.holds_to_add, IsEmpty());

  // Past the tolerance, and the node's hold running out: both replaced.
  w.resched.work.resize(2);
  w.resched.work[0].start = kNow + 300 * kSecond;
  w.resched.work[1].end = kNow + 3 * 24 * 3600 * kSecond;
  plan = w.Round();
  EXPECT_THAT(plan.holds_to_remove, UnorderedElementsAre("r1", "r2"));
  EXPECT_THAT(plan.holds_to_add, SizeIs(2));
}

TEST(ReconcileTest, BatchJobsReportTheStartAndEndOfTheWorkOfTheirReservation) {
  World w;
  w.resched.work.push_back(Job("j1", kNow - 20 * kSecond, kNow + 40 * kSecond, 4, true));
  w.resched.work.push_back(Task("d2", "b", kNow - 20 * kSecond, kNow + 40 * kSecond, 2, true));
  w.resched.work.push_back(Task("d2", "c", kNow - 20 * kSecond, kNow + 40 * kSecond, 2));
  w.batch.jobs.push_back(BatchJobIn("5", BatchJobState::kCompleted, kNow - 19 * kSecond,
                                    kNow - 2 * kSecond, 4, "resched-c-j1"));
  w.batch.jobs.push_back(BatchJobIn("9", BatchJobState::kPending, 0, 0, 4, "resched-c-j1"));
  w.batch.jobs.push_back(BatchJobIn("6", BatchJobState::kFailed, kNow - 19 * kSecond,
                                    kNow - kSecond, 2, "resched-c-d2-b"));
  w.batch.jobs.push_back(
      BatchJobIn("8", BatchJobState::kRunning, kNow - 19 * kSecond, 0, 2, "resched-c-d2-c"));
  const SyncPlan plan = w.Round();
  ASSERT_THAT(plan.reports, SizeIs(4));
  EXPECT_EQ(plan.reports[0].id, "d2");
  EXPECT_EQ(plan.reports[0].task, "b");
  EXPECT_EQ(plan.reports[0].event, WorkEvent::kFailed);  // its start was reported already
  EXPECT_EQ(plan.reports[0].at, kNow - kSecond);
  EXPECT_EQ(plan.reports[1].task, "c");
  EXPECT_EQ(plan.reports[1].event, WorkEvent::kStarted);
  EXPECT_EQ(plan.reports[2].id, "j1");
  EXPECT_EQ(plan.reports[2].event, WorkEvent::kStarted);
  EXPECT_EQ(plan.reports[2].batch_job, "5");  // the first job in it, not the later one
  EXPECT_EQ(plan.reports[3].event, WorkEvent::kFinished);

  w.memory.reported_starts.insert("5");
  EXPECT_THAT(w.Round().reports, SizeIs(3));
}

// Applies a round's plan to both sides as a batch system and resched that accept everything.
void Apply(const SyncPlan& plan, World& w) {
  for (const std::string& id : plan.holds_to_remove) {
    std::erase_if(w.resched.work,
                  [&](const PlannedWork& p) { return p.kind == PlannedKind::kHold && p.id == id; });
  }
  int next_hold = 1000;
  for (const HoldSpec& hold : plan.holds_to_add) {
    w.resched.work.push_back(Hold(absl::StrCat("r", next_hold++), hold.reason,
                                  std::max(hold.start, w.resched.now), hold.end, hold.processors));
  }
  for (const ReservationChange& change : plan.batch_changes) {
    std::erase_if(w.batch.reservations,
                  [&](const BatchReservation& r) { return r.name == change.reservation.name; });
    if (change.kind != ReservationChange::Kind::kDelete) {
      w.batch.reservations.push_back(change.reservation);
    }
  }
}

// Whatever the two sides hold, one round's changes bring them in step: the next round, on the
// sides as changed, changes nothing.
TEST(ReconcileTest, OneRoundBringsAnyStateInStep) {
  std::mt19937 random(20261130);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  int rounds_that_changed = 0;
  for (int trial = 0; trial < 500; ++trial) {
    World w;
    const int work = uniform(0, 8);
    for (int i = 0; i < work; ++i) {
      const Time start = kNow + uniform(-100, 100'000) * kSecond / 10;
      const Time end = start + uniform(1, 100'000) * kSecond / 10;
      switch (uniform(0, 3)) {
        case 0:
          w.resched.work.push_back(Job(absl::StrCat("j", i), start, end, uniform(1, 16)));
          break;
        case 1:
          w.resched.work.push_back(Task("d1", absl::StrCat("t", i), start, end, uniform(1, 16)));
          break;
        case 2:
          w.resched.work.push_back(Hold(absl::StrCat("r", i), "other", start, end, uniform(1, 16)));
          break;
        default:
          w.resched.work.push_back(Hold(absl::StrCat("r", i),
                                        absl::StrCat("slurm: job ", uniform(1, 4)), start, end,
                                        uniform(1, 16)));
      }
    }
    const int reservations = uniform(0, 5);
    for (int i = 0; i < reservations; ++i) {
      const Time start = kNow + uniform(-100, 10'000) * kSecond;
      const std::string name =
          uniform(0, 1) == 0 ? absl::StrCat("resched-c-j", uniform(0, 8)) : absl::StrCat("m", i);
      w.batch.reservations.push_back(
          Reservation(name, start, start + uniform(1, 1000) * kSecond, uniform(1, 40)));
    }
    const int jobs = uniform(0, 5);
    for (int i = 0; i < jobs; ++i) {
      const Time start = uniform(0, 1) == 0 ? 0 : kNow + uniform(-100, 1000) * kSecond;
      w.batch.jobs.push_back(BatchJobIn(absl::StrCat(i + 1), BatchJobState::kPending, start,
                                        uniform(0, 1) == 0 ? 0 : start + uniform(1, 500) * kSecond,
                                        uniform(1, 16), ""));
    }
    const int nodes = uniform(0, 3);
    for (int i = 0; i < nodes; ++i) {
      w.batch.nodes.push_back({absl::StrCat("n", i), 8, uniform(0, 8), uniform(0, 1) == 1});
    }
    const SyncPlan first = w.Round();
    rounds_that_changed += !first.batch_changes.empty() || !first.holds_to_add.empty() ||
                           !first.holds_to_remove.empty();
    Apply(first, w);
    const SyncPlan again = w.Round();
    EXPECT_THAT(again.batch_changes, IsEmpty()) << "trial " << trial;
    EXPECT_THAT(again.holds_to_add, IsEmpty()) << "trial " << trial;
    EXPECT_THAT(again.holds_to_remove, IsEmpty()) << "trial " << trial;
  }
  EXPECT_GT(rounds_that_changed, 400);  // the states drawn were mostly out of step
}

}  // namespace
}  // namespace resched::bridge
