// SubmitWithinQuota and the DAG quota check against a simple reference, on random work: two
// plans in lockstep, one deciding through server/app/quota.h and one by trying each change on a
// copy and summing the tenant's processor-hours ahead over every retained job and DAG task. Both
// must accept and refuse the same changes and end with the same allocations, for policies that
// place a job alone and for ones that move queued jobs and choose their widths again, on one speed
// and on two.
#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dag/dag_planner.h"
#include "core/metrics/validate.h"
#include "server/app/quota.h"
#include "tests/core/online/random_ops.h"
#include "tests/testing/status.h"

namespace resched::server {
namespace {

using resched::testing::kS;

constexpr char kTenant[] = "tenant";
constexpr char kOther[] = "other";

// The tenant's processor-hours ahead, from every retained job and DAG task.
double HoursAheadByScan(const ClusterPlan& plan, const std::string& tenant) {
  double hours = 0;
  auto add = [&](const Allocation& a) {
    const Time from = std::max(a.start, plan.now());
    if (a.end > from) hours += a.k * static_cast<double>(a.end - from) / 3600e6;
  };
  for (const JobRecord* job : plan.Jobs()) {
    if (job->job.owner != tenant) continue;
    if (job->state == JobState::kQueued || job->state == JobState::kRunning) add(job->allocation);
  }
  for (const DagReservation* dag : plan.Dags()) {
    if (dag->owner != tenant) continue;
    for (const DagTaskBooking& task : dag->tasks) add(task.allocation);
  }
  return hours;
}

// The reference: the change tried on a copy; its own error, or RESOURCE_EXHAUSTED when the copy
// ends past the quota.
absl::Status WithinOnACopy(const ClusterPlan& plan,
                           const std::function<absl::Status(ClusterPlan&)>& change, double quota) {
  std::unique_ptr<ClusterPlan> copy = plan.Copy();
  if (absl::Status changed = change(*copy); !changed.ok()) return changed;
  if (HoursAheadByScan(*copy, kTenant) > quota) return absl::ResourceExhaustedError("past");
  return absl::OkStatus();
}

// Amdahl tasks of one to all processors, random edges forward.
Dag RandomDag(std::mt19937_64& rng, int capacity) {
  Dag dag;
  const int tasks = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < tasks; ++i) {
    const Duration t1 = (600 + static_cast<Duration>(rng() % 7200)) * kS;
    dag.tasks.push_back(
        {absl::StrCat("t", i), RuntimeModel(AmdahlModel{t1, (rng() % 100) / 100.0, 1, capacity})});
  }
  for (int from = 0; from < tasks; ++from) {
    for (int to = from + 1; to < tasks; ++to) {
      if (rng() % 3 == 0) dag.edges.push_back({from, to, 0});
    }
  }
  return dag;
}

void ExpectSameJobs(const ClusterPlan& fast, const ClusterPlan& reference) {
  const std::vector<const JobRecord*> a = fast.Jobs();
  const std::vector<const JobRecord*> b = reference.Jobs();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i]->job.id, b[i]->job.id);
    EXPECT_EQ(a[i]->state, b[i]->state) << a[i]->job.id;
    EXPECT_EQ(a[i]->allocation.k, b[i]->allocation.k) << a[i]->job.id;
    EXPECT_EQ(a[i]->allocation.start, b[i]->allocation.start) << a[i]->job.id;
    EXPECT_EQ(a[i]->allocation.end, b[i]->allocation.end) << a[i]->job.id;
  }
}

struct Tally {
  int accepted = 0;
  int refused = 0;
  int near = 0;  // within the quota on the job's least work, past it on its most
  int refused_though_least_fits = 0;  // what a check of the least work alone would accept
  int dags_accepted = 0;
  int dags_refused = 0;
};

// One seeded run of submissions (mostly the tenant's), DAG reservations, cancels and clock moves.
void RunLockstep(const std::string& policy, const std::vector<ProcessorGroup>& groups,
                 std::uint64_t seed, Tally& tally) {
  const AlgorithmParams params = resched::testing::PolicyTestParams(policy);
  std::unique_ptr<ClusterPlan> fast = resched::testing::MakePlanOn(policy, groups, params);
  std::unique_ptr<ClusterPlan> reference = resched::testing::MakePlanOn(policy, groups, params);
  // Not a whole number of processor-seconds, so no sum lands exactly on it.
  const double quota = 9.123457;
  auth::TenantLimit limit;
  limit.max_processor_hours_ahead = quota;
  // Jobs as wide as a group: on groups of different speeds a job runs inside one.
  int capacity = 0;
  for (const ProcessorGroup& group : groups) {
    capacity = groups.size() == 1 ? group.count : std::max(capacity, group.count);
  }
  std::mt19937_64 rng(seed);
  for (int step = 0; step < 120; ++step) {
    SCOPED_TRACE(absl::StrCat(policy, " seed ", seed, " step ", step));
    const auto op = rng() % 20;
    if (op < 11) {
      Job job = resched::testing::RandomJob(rng, fast->now(), capacity, 3 * 3600);
      job.owner = kTenant;
      const double before = HoursAheadByScan(*fast, kTenant);
      const ProcessorHoursRange range = HoursRangeOf(job.model, fast->spec());
      const bool least_fits = before + range.least <= quota;
      if (least_fits && before + range.most > quota) ++tally.near;
      const absl::StatusOr<const JobRecord*> placed = SubmitWithinQuota(*fast, job, limit);
      const absl::Status within = WithinOnACopy(
          *reference, [&](ClusterPlan& copy) { return copy.Submit(job).status(); }, quota);
      ASSERT_EQ(placed.status().code(), within.code()) << placed.status();
      if (within.ok()) {
        ++tally.accepted;
        ASSERT_OK(reference->Submit(job));
        EXPECT_LE(HoursAheadByScan(*fast, kTenant), quota);
      } else if (within.code() == absl::StatusCode::kResourceExhausted) {
        ++tally.refused;
        if (least_fits) ++tally.refused_though_least_fits;
      }
    } else if (op < 13) {
      Job job = resched::testing::RandomJob(rng, fast->now(), capacity, 3 * 3600);
      job.owner = kOther;
      ASSERT_OK(fast->Submit(job));
      ASSERT_OK(reference->Submit(job));
    } else if (op < 15) {
      const Dag dag = RandomDag(rng, capacity);
      const std::string planner = rng() % 2 == 0 ? "cpa" : "dl_bd_cpar";
      const DagPlan planned =
          resched::testing::OkValue(resched::testing::OkValue(MakeDagPlanner(planner, {}))
                                        ->Plan(resched::testing::DagInputOn(*fast, dag)));
      const Time now = fast->now();
      const bool accepted = CheckQuota(*fast, kTenant, limit, 0, planned.cpu_hours).ok();
      auto commit = [&](ClusterPlan& plan) {
        return plan.CommitDag(dag, planned, planner, "", now, kTenant).status();
      };
      ASSERT_EQ(accepted, WithinOnACopy(*reference, commit, quota).ok());
      if (accepted) {
        ++tally.dags_accepted;
        ASSERT_OK(commit(*fast));
        ASSERT_OK(commit(*reference));
      } else {
        ++tally.dags_refused;
      }
    } else if (op < 17) {
      std::vector<const JobRecord*> active;
      for (const JobRecord* job : fast->Jobs()) {
        if (!IsEnded(job->state)) active.push_back(job);
      }
      if (active.empty()) continue;
      const JobId id = active[rng() % active.size()]->job.id;
      ASSERT_OK(fast->Cancel(id));
      ASSERT_OK(reference->Cancel(id));
    } else {
      const Time to = fast->now() + static_cast<Time>(rng() % 3600) * kS;
      ASSERT_OK(fast->AdvanceTo(to));
      ASSERT_OK(reference->AdvanceTo(to));
    }
    ASSERT_NO_FATAL_FAILURE(ExpectSameJobs(*fast, *reference));
    ASSERT_OK(ValidateSchedule(fast->ToValidate()));
  }
}

TEST(QuotaPlan, SubmissionsAndDagsAreDecidedOnTheAllocationsChosenAsByAReference) {
  const std::vector<ProcessorGroup> one_speed = {{"", 8, 1.0}};
  const std::vector<ProcessorGroup> two_speeds = {{"slow", 6, 1.0}, {"fast", 3, 2.0}};
  struct Case {
    const char* policy;
    const std::vector<ProcessorGroup>* groups;
  };
  // conservative and fcfs place a new job alone; easy, dasedf and iterative move queued jobs,
  // and the last two choose their widths again.
  for (const Case& c : {Case{"conservative", &one_speed}, Case{"fcfs", &one_speed},
                        Case{"easy", &one_speed}, Case{"dasedf", &one_speed},
                        Case{"iterative", &one_speed}, Case{"conservative", &two_speeds}}) {
    Tally tally;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      RunLockstep(c.policy, *c.groups, seed, tally);
      if (::testing::Test::HasFatalFailure()) return;
    }
    SCOPED_TRACE(c.policy);
    EXPECT_GT(tally.accepted, 20);
    EXPECT_GT(tally.refused, 20);
    EXPECT_GT(tally.near, 20);
    // DASEDF gives each job the width of least work its deadline allows, so near the quota it
    // fits where the others, choosing the earliest completion, go wide and are refused.
    if (std::string(c.policy) != "dasedf") {
      EXPECT_GT(tally.refused_though_least_fits, 10);
    }
    EXPECT_GT(tally.dags_accepted, 0);
    EXPECT_GT(tally.dags_refused, 0);
  }
}

}  // namespace
}  // namespace resched::server
