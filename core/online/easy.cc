// EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001), the "aggressive" backfilling that
// Saule et al. §5.1 contrast with conservative backfilling. At every event, in submission
// order: jobs start while they fit now; the first job that does not becomes the head and gets
// a reservation at its earliest completion; any later job that fits now without touching the
// head's reservation starts now (backfills). Jobs not started and not at the head are planned
// FCFS-like behind the head as estimates (guaranteed = false): only the head's reservation is
// a promise. Moldable jobs take the earliest-completion width (ties: fewer processors); a job
// started now takes the earliest-completion width among those that fit now. Deviation: jobs
// whose release lies in the future have not arrived in the EASY sense; they are estimates and
// never become the head until released. The queue is walked in order of arrival (release, then
// submission), as EASY orders its queue: a job submitted earlier that arrives later must not
// take the head from a job already promised its reservation.
#include <algorithm>
#include <memory>
#include <vector>

#include "core/online/moldable_fit.h"
#include "core/online/policies.h"
#include "core/online/policy.h"

namespace resched {
namespace {

class Easy final : public OnlinePolicy {
 public:
  std::unique_ptr<OnlinePolicy> Clone() const override { return std::make_unique<Easy>(); }
  void PlaceNew(PlanState& state, JobRecord&) override { Decide(state); }
  void Reoptimize(PlanState& state, Time) override { Decide(state); }
  void Rebuild(PlanState& state) override { Decide(state); }
  bool DecidesAtEvents() const override { return true; }

 private:
  static void Decide(PlanState& state) {
    for (JobRecord* job : state.queue()) state.Unplace(*job);
    const Time now = state.now();
    std::vector<JobRecord*> by_arrival = state.queue();
    std::stable_sort(
        by_arrival.begin(), by_arrival.end(),
        [](const JobRecord* a, const JobRecord* b) { return a->job.release < b->job.release; });
    JobRecord* head = nullptr;
    std::vector<JobRecord*> waiting;
    for (JobRecord* job : by_arrival) {
      const bool arrived = job->job.release <= now;
      if (arrived) {
        if (auto fit = StartingAt(state.timeline(), job->job.model, now)) {
          state.Place(*job, *fit, /*guaranteed=*/true);
          continue;
        }
      }
      if (arrived && head == nullptr) {
        head = job;
        if (auto fit = EarliestCompletion(state.timeline(), job->job.model, now)) {
          state.Place(*job, *fit, /*guaranteed=*/true);
        }
        continue;
      }
      waiting.push_back(job);
    }
    // Estimates for the rest, in order, behind the head.
    Time previous_start = head != nullptr ? head->allocation.start : now;
    for (JobRecord* job : waiting) {
      const Time not_before = std::max({now, job->job.release, previous_start});
      if (auto fit = EarliestCompletion(state.timeline(), job->job.model, not_before)) {
        state.Place(*job, *fit, /*guaranteed=*/false);
        previous_start = fit->start;
      }
    }
  }
};

}  // namespace

std::unique_ptr<OnlinePolicy> MakeEasyPolicy() { return std::make_unique<Easy>(); }

}  // namespace resched
