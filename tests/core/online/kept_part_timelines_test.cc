// The parts' kept timelines (part_views.h) change no decision. A cluster of two speeds whose
// groups' policy places new jobs on each group's kept timeline, and Split clusters (one pool,
// and two speeds with Split in each group) doing the same in their parts, are each driven in
// lockstep with one whose policy rebuilds the part's timeline at each submission (the reference),
// through random submissions, cancels, early ends, holds of a group and of any group, displacing
// holds, clock moves, Replans, dry runs on copies and restarts from images. After every step both
// must hold the same jobs at the same allocations in the same groups and remember the same
// bookings, and every schedule goes through the validator.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/online/partitioned_policy.h"
#include "core/online/policies.h"
#include "core/plan/cluster_plan.h"
#include "core/plan/cluster_plan_image.h"
#include "core/plan/replan.h"
#include "core/registry/registry.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/core/online/random_ops.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kS;

const std::vector<ProcessorGroup> kKeptGroups = {{"slow", 8, 1.0}, {"fast", 4, 2.0}};

// "split": Split(3) over [1 s, 60 s] with FCFS in each part, on one pool of 12 processors;
// "split@speeds": the same inside each group of kKeptGroups; any other policy: that policy in
// each group of kKeptGroups.
std::unique_ptr<ClusterPlan> KeptPlan(const std::string& policy, bool keep_part_timelines) {
  if (policy == "split" || policy == "split@speeds") {
    const bool on_speeds = policy == "split@speeds";
    const ClusterSpec spec{"test",
                           on_speeds ? kKeptGroups : std::vector<ProcessorGroup>{{"", 12, 1.0}},
                           ClockKind::kSimulated,
                           "split",
                           {}};
    const AlgorithmParams params = testing::PolicyTestParams("split");
    auto split = MakeSplitPolicy(
        {.rho = 3, .p_min_s = 1, .p_max_s = 60},
        [] { return testing::OkValue(MakePolicy("fcfs", {})); }, keep_part_timelines);
    if (on_speeds) {
      EXPECT_TRUE(split->RunInGroups(kKeptGroups));
    }
    return testing::OkValue(ClusterPlan::CreateWithPolicy(spec, params, 0, std::move(split)));
  }
  const ClusterSpec spec{"test", kKeptGroups, ClockKind::kSimulated, policy, {}};
  auto grouped = MakeGroupedPolicy(
      kKeptGroups, [policy] { return testing::OkValue(MakePolicy(policy, {})); },
      keep_part_timelines);
  return testing::OkValue(ClusterPlan::CreateWithPolicy(spec, {}, 0, std::move(grouped)));
}

// What both plans must agree on: every job's state, group and allocation, and what the
// partition remembers (the part of each booking, the latest start of each part).
struct KeptOutcome {
  std::vector<std::tuple<JobId, int, int, int, Time, Time>> jobs;
  // The job of each booking the partition remembers (reservation ids differ between the
  // plans: the reference books a group's queue anew at each submission), its part and start.
  std::vector<std::tuple<JobId, int, Time>> part_bookings;
  std::vector<Time> part_last_start;
};

KeptOutcome KeptOutcomeOf(const ClusterPlan& plan) {
  KeptOutcome out;
  std::map<ReservationId, JobId> job_of;
  for (const JobRecord* job : plan.Jobs()) {
    out.jobs.emplace_back(job->job.id, static_cast<int>(job->state), job->group, job->allocation.k,
                          job->allocation.start, job->allocation.end);
    if (job->placed) job_of[job->reservation] = job->job.id;
  }
  const PolicyImage image = plan.policy().Image();
  if (const PolicyImage::Table* bookings = image.Find(Partition::kBookingsTable)) {
    for (const PolicyImage::Row& b : *bookings) {  // booking, part, start
      const auto it = job_of.find(b.values[0]);
      out.part_bookings.emplace_back(it == job_of.end() ? "no job" : it->second,
                                     static_cast<int>(b.values[1]), b.values[2]);
    }
  }
  std::sort(out.part_bookings.begin(), out.part_bookings.end());
  if (const PolicyImage::Table* last_start = image.Find(Partition::kLastStartTable)) {
    for (const PolicyImage::Row& row : *last_start) out.part_last_start.push_back(row.values[1]);
  }
  return out;
}

void ExpectSameOutcome(const ClusterPlan& kept, const ClusterPlan& reference) {
  const KeptOutcome a = KeptOutcomeOf(kept);
  const KeptOutcome b = KeptOutcomeOf(reference);
  EXPECT_EQ(a.jobs, b.jobs);
  EXPECT_EQ(a.part_bookings, b.part_bookings);
  EXPECT_EQ(a.part_last_start, b.part_last_start);
}

std::unique_ptr<ClusterPlan> Restarted(const ClusterPlan& plan) {
  return testing::OkValue(ClusterPlan::FromImage(plan.Image()));
}

// One seeded run of `steps` operations on the kept plan and the reference in lockstep.
void RunKeptAgainstReference(const std::string& policy, std::uint64_t seed, int steps) {
  SCOPED_TRACE(absl::StrCat(policy, " seed ", seed));
  std::unique_ptr<ClusterPlan> kept = KeptPlan(policy, true);
  std::unique_ptr<ClusterPlan> reference = KeptPlan(policy, false);
  auto planner = testing::OkValue(MakeOfflinePlanner("mrt", {}));
  std::mt19937_64 rng(seed);
  std::vector<std::string> holds;
  auto both = [&](const auto& op) {
    op(*kept);
    op(*reference);
  };
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE(absl::StrCat("step ", step));
    const auto op = rng() % 20;
    if (op < 9) {
      const Job job = testing::RandomJob(rng, kept->now(), 8, 60);
      both([&](ClusterPlan& plan) { ASSERT_OK(plan.Submit(job)); });
    } else if (op == 9) {
      const auto jobs = kept->Jobs();
      const JobId id = jobs.empty() ? "" : jobs[rng() % jobs.size()]->job.id;
      both([&](ClusterPlan& plan) { (void)plan.Cancel(id); });
    } else if (op == 10) {
      JobId id;
      for (const JobRecord* job : kept->Jobs()) {
        if (job->state == JobState::kRunning && rng() % 2 == 0) id = job->job.id;
      }
      if (!id.empty()) {
        both([&](ClusterPlan& plan) { ASSERT_OK(plan.ReportEnded(id, plan.now(), false)); });
      }
    } else if (op <= 12) {
      // A hold of one group, or (one time in three) of any group, which the kept timelines
      // cannot follow: the groups' policy then rebuilds as the reference does.
      const bool one_pool = kept->spec().homogeneous();
      const int group = one_pool || rng() % 3 == 0 ? -1 : static_cast<int>(rng() % 2);
      const Time start = kept->now() + static_cast<Time>(rng() % (100 * kS));
      const Time end = start + (1 + static_cast<Time>(rng() % 50)) * kS;
      const int k = 1 + static_cast<int>(rng() % 3);
      const bool displace = rng() % 3 == 0;
      std::string id;
      std::vector<bool> accepted;
      both([&](ClusterPlan& plan) {
        auto held = plan.AddReservation(k, start, end, "random", displace, group);
        accepted.push_back(held.ok());
        if (held.ok()) id = (*held)->id;
      });
      EXPECT_EQ(accepted[0], accepted[1]);
      if (!id.empty()) holds.push_back(id);
    } else if (op == 13 && !holds.empty()) {
      const std::string id = holds[rng() % holds.size()];
      both([&](ClusterPlan& plan) { (void)plan.RemoveReservation(id); });
      holds.erase(std::find(holds.begin(), holds.end(), id));
    } else if (op == 14 && rng() % 3 == 0) {
      // A Replan: its jobs leave the groups' queues until they start.
      both([&](ClusterPlan& plan) {
        const ReplanProposal proposal = testing::OkValue(
            ProposeReplan(plan, *planner, ReplanObjective::kBicriteria, {}, false));
        ASSERT_OK(plan.ApplyReplan(proposal.planned));
      });
    } else if (op == 15) {
      // A dry run: a copy places as the plan would, and the plan does not change.
      const Job job = testing::RandomJob(rng, kept->now(), 8, 60);
      std::vector<std::tuple<int, int, Time, Time>> placed;
      both([&](ClusterPlan& plan) {
        auto copy = plan.Copy();
        const JobRecord* job_record = testing::OkValue(copy->Submit(job));
        placed.emplace_back(job_record->group, job_record->allocation.k,
                            job_record->allocation.start, job_record->allocation.end);
      });
      EXPECT_EQ(placed[0], placed[1]);
    } else if (op == 16) {
      // A restart of the kept plan (a restarted reference would keep timelines too): they are
      // rebuilt from the bookings.
      kept = Restarted(*kept);
    } else {
      const Time t = kept->now() + static_cast<Time>(rng() % (40 * kS));
      both([&](ClusterPlan& plan) { ASSERT_OK(plan.AdvanceTo(t)); });
    }
    ASSERT_OK(ValidateSchedule(kept->ToValidate()));
    ASSERT_OK(ValidateSchedule(reference->ToValidate()));
    ExpectSameOutcome(*kept, *reference);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(KeptPartTimelines, DecideAsRebuildingEveryPartsTimelineDoes) {
  for (const std::string policy : {"conservative", "fcfs", "easy", "split", "split@speeds"}) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      RunKeptAgainstReference(policy, seed, 300);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// A deep backlog with the clock moving: jobs end and start between submissions, and every
// submission reads the groups' timelines as kept from the record of those changes.
TEST(KeptPartTimelines, FollowJobsStartingAndEndingUnderADeepBacklog) {
  for (const std::string policy : {"conservative", "fcfs", "split", "split@speeds"}) {
    SCOPED_TRACE(policy);
    std::unique_ptr<ClusterPlan> kept = KeptPlan(policy, true);
    std::unique_ptr<ClusterPlan> reference = KeptPlan(policy, false);
    std::mt19937_64 rng(7);
    for (int i = 0; i < 400; ++i) {
      const Job job = testing::RandomJob(rng, kept->now(), 8, 600);
      ASSERT_OK(kept->Submit(job));
      ASSERT_OK(reference->Submit(job));
      if (i % 4 == 3) {
        const Time t = kept->now() + 20 * kS;
        ASSERT_OK(kept->AdvanceTo(t));
        ASSERT_OK(reference->AdvanceTo(t));
      }
    }
    EXPECT_GT(kept->queued_count(), 100);
    ASSERT_OK(ValidateSchedule(kept->ToValidate()));
    ExpectSameOutcome(*kept, *reference);
  }
}

}  // namespace
}  // namespace resched
