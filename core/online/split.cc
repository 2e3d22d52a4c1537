// Split(rho) — Saule, Bozdağ, Çatalyürek, "Optimizing the stretch of independent tasks on a
// cluster", §3.3.2, Algorithm 1: the machines form rho independent groups, each run by its own
// instance of an online policy ALGO, and a task of processing time p goes to group j + 1 with
// p_min * Delta^(j/rho) <= p <= p_min * Delta^((j+1)/rho), Delta = p_max / p_min. "split" uses
// FCFS as ALGO, the instance of Theorem 3.6's corollary; the code takes any policy.
//
// Resource augmentation lives in the analysis, not in the algorithm: Theorem 3.6 compares Split
// on rho*m machines with the optimum on m machines (Theorem 3.4 rules out faster machines as a
// way around the Delta factor). So on a real cluster of P processors, Split(rho) is exactly
// Algorithm 1 with m = P/rho: the cluster is cut into rho groups, and the guarantee is relative
// to an optimum on P/rho processors. Groups are equal, not sized by the work of their class, so
// a class with more than its share of the load overloads its group.
//
// Deviations, each forced by the setting:
// - rho is an integer (a number of groups): the parameter is rounded down, and lowered to P when
//   P < rho. Groups get floor(P/rho) processors, the first P mod rho one more.
// - p_min and p_max are parameters (seconds); a task outside [p_min, p_max] goes to the first
//   or the last group. p is the sequential time p(1) (stretch's denominator, §5).
// - The paper's tasks are sequential. A moldable job uses only widths its group can hold; a job
//   none of whose widths fits its group runs on the whole cluster, planned by a further ALGO
//   instance, with the groups' jobs counting as occupied processors.
// - Groups are parts of a count-based timeline shared with external holds (partition.h): a hold
//   belongs to no group and, where processors run short, costs the group that books last.
// - Thresholds are compared in floating point on microseconds; a time on a boundary goes to
//   the higher group.
// - On a cluster of processor groups of different speeds, each group is cut into rho groups of
//   its own (plus its whole group), as a cluster of its own would be, and p is the job's time on
//   that group's processors. A new job goes to the group whose Split ends it earliest, ties to
//   the slower group (partitioned_policy.h).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/online/partitioned_policy.h"
#include "core/online/policies.h"

namespace resched {
namespace {

class Split final : public PartitionedPolicy {
 public:
  Split(InnerPolicyFactory make_inner, int rho, double p_min_s, double p_max_s,
        bool keep_part_timelines)
      : PartitionedPolicy(std::move(make_inner), keep_part_timelines),
        rho_(std::max(1, rho)),
        p_min_s_(p_min_s),
        p_max_s_(p_max_s) {}
  std::unique_ptr<OnlinePolicy> Copy() const override { return std::make_unique<Split>(*this); }

  void PlaceNew(PlanState& state, JobRecord& job) override {
    if (!groups().empty()) {
      if (!PlaceOnKeptTimelines(state, job, groups(), groups_slowest_first())) {
        PlaceInEarliestGroup(state, job, groups(), groups_slowest_first());
      }
      return;
    }
    // With a policy that places a new job alone (FCFS, as in "split"), on the part's kept
    // timeline (part_views.h) when the cluster has room for its answer; else the part in full.
    if (PrepareForNewJob(state)) {
      const int part = PartOf(job);
      if (auto placement = partition().PlacementOn(state, part, job, inner(part))) {
        partition().CommitNew(state, part, job, *placement);
        return;
      }
    }
    Prepare(state);
    const int part = PartOf(job);
    RunPart(state, part, [&](PlanState& sub) { inner(part).PlaceNew(sub, job); });
  }

 private:
  // rho groups, then the whole cluster (group) for jobs no group can hold; the class thresholds
  // depend on the number of groups, first known here.
  std::vector<int> PartCapacities(int group, int capacity) override {
    const int groups = std::min(rho_, capacity);
    std::vector<int> capacities;
    capacities.reserve(groups + 1);
    for (int g = 0; g < groups; ++g) {
      capacities.push_back(capacity / groups + (g < capacity % groups ? 1 : 0));
    }
    capacities.push_back(capacity);
    if (static_cast<int>(thresholds_.size()) <= group) thresholds_.resize(group + 1);
    std::vector<double>& thresholds = thresholds_[group];
    thresholds.clear();
    const double delta = p_max_s_ / p_min_s_;
    // Group j + 1 starts at p_min * Delta^(j/rho), j >= 1; Delta <= 1 leaves one class.
    for (int g = 1; g < groups && delta > 1; ++g) {
      thresholds.push_back(p_min_s_ * kMicrosPerSecond *
                           std::pow(delta, static_cast<double>(g) / groups));
    }
    return capacities;
  }

  int PartOf(const JobRecord& job) const override {
    const int group = GroupOf(job);
    const std::vector<double>& thresholds = thresholds_[group];
    const double p = static_cast<double>(job.job.model.SequentialTime());
    const int part = FirstPart(group) +
                     static_cast<int>(std::upper_bound(thresholds.begin(), thresholds.end(), p) -
                                      thresholds.begin());
    const auto widths = job.job.model.Widths(partition().capacity(part));
    return widths.empty() ? FirstPart(group + 1) - 1 : part;
  }

  int rho_;
  double p_min_s_;
  double p_max_s_;
  std::vector<std::vector<double>> thresholds_;  // per group, microseconds, ascending
};

}  // namespace

std::unique_ptr<OnlinePolicy> MakeSplitPolicy(const SplitOptions& options,
                                              InnerPolicyFactory make_inner,
                                              bool keep_part_timelines) {
  return std::make_unique<Split>(std::move(make_inner), options.rho, options.p_min_s,
                                 options.p_max_s, keep_part_timelines);
}

}  // namespace resched
