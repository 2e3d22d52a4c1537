// Randomized runs of every built policy: submissions, cancels, early finishes, reservations and
// clock moves, with the schedule validated after every step and the policies' promises checked.
// The plan's running sums (per-owner usage, utilization) are compared with a scan of its jobs.
// Each policy runs on one pool of processors and on two groups of different speeds.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "core/registry/registry.h"
#include "tests/core/online/plan_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kS;

const char* const kOwners[] = {"", "alice", "bob"};

Job RandomJob(std::mt19937_64& rng, Time now) {
  Job job;
  job.owner = kOwners[rng() % 3];
  job.release = now + static_cast<Time>(rng() % 3 == 0 ? rng() % (50 * kS) : 0);
  switch (rng() % 4) {
    case 0:
      job.model = RuntimeModel(RigidModel{1 + static_cast<int>(rng() % 8),
                                          (1 + static_cast<Duration>(rng() % 60)) * kS});
      break;
    case 1:
      job.model = RuntimeModel(
          AmdahlModel{(1 + static_cast<Duration>(rng() % 200)) * kS, (rng() % 100) / 100.0, 1, 0});
      break;
    case 2:
      job.model = RuntimeModel(DowneyModel{(1 + static_cast<Duration>(rng() % 200)) * kS,
                                           1.0 + rng() % 16, (rng() % 300) / 100.0, 1, 0});
      break;
    default:
      job.model = RuntimeModel(
          CeilModel{1 + static_cast<int>(rng() % 8), (1 + static_cast<Duration>(rng() % 30)) * kS});
  }
  return job;
}

// Two groups: the random jobs (widths up to 8) all fit the slow one, the narrow ones both.
const std::vector<ProcessorGroup> kTwoSpeeds = {{"slow", 8, 1.0}, {"fast", 4, 2.5}};

// On groups, every job runs inside one group at that group's speed (the validator checks the
// groups' capacities and the scaled run times).
void ExpectJobsInGroups(const ClusterPlan& plan) {
  const auto& groups = plan.spec().groups;
  for (const JobRecord* job : plan.Jobs()) {
    ASSERT_GE(job->group, 0) << job->job.id;
    ASSERT_LT(job->group, static_cast<int>(groups.size())) << job->job.id;
    EXPECT_EQ(job->job.model.speed(), groups[job->group].speed) << job->job.id;
  }
}

void RunRandom(const std::string& policy, std::uint64_t seed,
               const std::vector<ProcessorGroup>& groups = {{"", 8, 1.0}}) {
  SCOPED_TRACE(policy + " seed " + std::to_string(seed) + " on " + std::to_string(groups.size()) +
               " group(s)");
  std::mt19937_64 rng(seed);
  auto plan = testing::MakePlanOn(policy, groups);
  const bool grouped = !plan->spec().homogeneous();
  std::map<JobId, Time> first_promised_end;  // guaranteed completions never get later
  std::vector<std::string> holds;
  for (int step = 0; step < 400; ++step) {
    const auto op = rng() % 10;
    SCOPED_TRACE("step " + std::to_string(step) + " op " + std::to_string(op));
    if (op < 5) {
      auto placed = plan->Submit(RandomJob(rng, plan->now()));
      ASSERT_OK(placed);
    } else if (op == 5 && !plan->Jobs().empty()) {
      const auto jobs = plan->Jobs();
      (void)plan->Cancel(jobs[rng() % jobs.size()]->job.id);
    } else if (op == 6) {
      for (const JobRecord* job : plan->Jobs()) {
        if (job->state == JobState::kRunning && rng() % 2 == 0) {
          ASSERT_OK(plan->ReportEnded(job->job.id, plan->now(), rng() % 5 == 0));
          break;
        }
      }
    } else if (op == 7) {
      const Time start = plan->now() + static_cast<Time>(rng() % (100 * kS));
      // On groups, a hold names one of them or none.
      const int group = grouped ? static_cast<int>(rng() % (groups.size() + 1)) - 1 : -1;
      auto held = plan->AddReservation(1 + static_cast<int>(rng() % 4), start,
                                       start + (1 + static_cast<Time>(rng() % 50)) * kS, "random",
                                       rng() % 2 == 0, group);
      if (held.ok()) holds.push_back((*held)->id);
      if (held.ok()) first_promised_end.clear();  // displacing holds may move guarantees
    } else if (op == 8 && !holds.empty()) {
      (void)plan->RemoveReservation(holds.back());
      holds.pop_back();
    } else {
      ASSERT_OK(plan->AdvanceTo(plan->now() + static_cast<Time>(rng() % (40 * kS))));
    }
    ASSERT_OK(ValidateSchedule(plan->ToValidate()));
    testing::ExpectSumsMatchAScan(*plan, kOwners);
    if (grouped) ExpectJobsInGroups(*plan);
    // Nothing queued is planned in the past, and every guarantee is kept.
    for (const JobRecord* job : plan->Jobs()) {
      if (job->state == JobState::kQueued) {
        EXPECT_TRUE(job->placed);
        EXPECT_GT(job->allocation.start, plan->now());
      }
      if (job->state == JobState::kQueued && job->guaranteed) {
        auto [it, inserted] = first_promised_end.emplace(job->job.id, job->allocation.end);
        EXPECT_LE(job->allocation.end, it->second) << job->job.id << " was promised earlier";
      }
    }
  }
  // FCFS: start times follow submission order (in each group, on groups).
  if (policy == "fcfs") {
    std::map<int, Time> previous;  // by group (-1: one pool)
    for (const JobRecord* job : plan->Jobs()) {
      if (job->allocation.k == 0 || job->state == JobState::kCancelled) continue;
      auto [it, first] = previous.emplace(job->group, job->allocation.start);
      EXPECT_GE(job->allocation.start, it->second) << job->job.id;
      it->second = job->allocation.start;
    }
  }
}

TEST(RandomPlanTest, EveryBuiltPolicyKeepsAValidSchedule) {
  for (const auto& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kPolicy) continue;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) RunRandom(info.name, seed);
  }
}

// Split and the reservation scheme included: their parts are then cut inside each group.
TEST(RandomPlanTest, EveryBuiltPolicyKeepsAValidScheduleOnTwoSpeeds) {
  for (const auto& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kPolicy) continue;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) RunRandom(info.name, seed, kTwoSpeeds);
  }
}

TEST(RandomPlanTest, SameInputSameSchedule) {
  auto run = [] {
    std::mt19937_64 rng(7);
    auto plan = testing::MakePlan("conservative", 8);
    for (int i = 0; i < 200; ++i) (void)plan->Submit(RandomJob(rng, plan->now()));
    std::vector<std::tuple<int, Time, Time>> out;
    for (const JobRecord* job : plan->Jobs()) {
      out.emplace_back(job->allocation.k, job->allocation.start, job->allocation.end);
    }
    return out;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace resched
