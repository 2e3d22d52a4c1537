// FCFS — Saule, Bozdağ, Çatalyürek, "Optimizing the stretch of independent tasks on a cluster",
// §3.1: tasks start in the order they arrive. Deviation for moldable jobs (the paper's tasks are
// sequential): each job takes the width with the earliest completion among starts no earlier
// than the previous job's start (ties: fewer processors), so start order equals submission
// order. When capacity is freed, each queued job in order may move earlier, never later, and
// never before its predecessor's start.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>

#include "core/online/moldable_fit.h"
#include "core/online/policies.h"
#include "core/online/policy.h"

namespace resched {
namespace {

class Fcfs final : public OnlinePolicy {
 public:
  std::unique_ptr<OnlinePolicy> Copy() const override { return std::make_unique<Fcfs>(); }
  void PlaceNew(PlanState& state, JobRecord& job) override {
    if (const auto placement = PlacementOfNew(state, job, kTimeMin)) {
      state.Place(job, placement->allocation, placement->guaranteed);
    }
  }
  bool PlacesNewJobAlone() const override { return true; }
  std::optional<NewPlacement> PlacementOfNew(PlanState& state, const JobRecord& job,
                                             Time from) override {
    const Time not_before = std::max(
        {state.now(), job.job.release, state.last_start(), LatestQueuedStart(state, job), from});
    const auto fit = EarliestCompletion(state.timeline(), job.job.model, not_before);
    // Validated jobs always fit eventually: every hold ends and some width is <= P.
    if (!fit) return std::nullopt;
    return NewPlacement{*fit, /*guaranteed=*/true};
  }

  void Reoptimize(PlanState& state, Time freed_from) override {
    Time previous_start = state.last_start();
    bool predecessor_moved = false;
    for (JobRecord* job : state.queue()) {
      // Ending by `freed_from` and with its predecessors in place, a job cannot move earlier.
      if (job->allocation.end <= freed_from && !predecessor_moved) {
        previous_start = job->allocation.start;
        continue;
      }
      const Time old_start = job->allocation.start;
      state.Unplace(*job);
      Place(state, *job, std::max({state.now(), job->job.release, previous_start}), old_start);
      previous_start = job->allocation.start;
      predecessor_moved |= previous_start != old_start;
    }
  }

  void Rebuild(PlanState& state) override {
    Time previous_start = state.last_start();
    for (JobRecord* job : state.queue()) {
      Place(state, *job, std::max({state.now(), job->job.release, previous_start}), kTimeMax);
      if (job->placed) previous_start = std::max(previous_start, job->allocation.start);
    }
  }

 private:
  // Queued jobs start in queue order (each no earlier than its predecessor), so the latest start
  // among the other placed ones is that of the last placed one: a new job, at the back, finds it
  // at once instead of scanning the queue.
  static Time LatestQueuedStart(PlanState& state, const JobRecord& job) {
    const auto& queue = state.queue();
    for (std::size_t i = queue.size(); i-- > 0;) {
      if (queue[i] != &job && queue[i]->placed) return queue[i]->allocation.start;
    }
    return kTimeMin;
  }

  static void Place(PlanState& state, JobRecord& job, Time not_before, Time start_limit) {
    const auto fit = EarliestCompletion(state.timeline(), job.job.model, not_before, start_limit);
    // Validated jobs always fit eventually: every hold ends and some width is <= P.
    if (fit) state.Place(job, *fit, /*guaranteed=*/true);
  }
};

}  // namespace

std::unique_ptr<OnlinePolicy> MakeFcfsPolicy() { return std::make_unique<Fcfs>(); }

}  // namespace resched
