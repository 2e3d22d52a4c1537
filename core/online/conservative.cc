// Conservative backfilling — Saule et al. §5.1 (after Mu'alem & Feitelson 2001): every job is
// given, on arrival, the first hole that can accommodate it, and keeps that guarantee; holes
// are filled by later jobs only where no earlier reservation moves. Moldable jobs take the width
// with the earliest completion (ties: fewer processors). When capacity is freed (cancel, early
// finish, removed reservation) the queue is compressed: each queued job in submission order is
// re-placed at its earliest-completion allocation that starts no later than before, so no
// guarantee is ever broken.
#include <algorithm>
#include <memory>
#include <optional>

#include "core/online/moldable_fit.h"
#include "core/online/policies.h"
#include "core/online/policy.h"

namespace resched {
namespace {

class Conservative final : public OnlinePolicy {
 public:
  std::unique_ptr<OnlinePolicy> Copy() const override { return std::make_unique<Conservative>(); }
  void PlaceNew(PlanState& state, JobRecord& job) override { Place(state, job, kTimeMax); }
  bool PlacesNewJobAlone() const override { return true; }
  std::optional<NewPlacement> PlacementOfNew(PlanState& state, const JobRecord& job,
                                             Time from) override {
    const auto fit = Fit(state, job, kTimeMax, from);
    if (!fit) return std::nullopt;
    return NewPlacement{*fit, /*guaranteed=*/true};
  }

  void Reoptimize(PlanState& state, Time freed_from) override {
    for (JobRecord* job : state.queue()) {
      // A job that ends by `freed_from` cannot end earlier: every earlier completion uses a
      // window that ends before the freed capacity.
      if (job->allocation.end <= freed_from) continue;
      const Allocation old = job->allocation;
      state.Unplace(*job);
      Place(state, *job, old.start);
    }
  }

  void Rebuild(PlanState& state) override {
    for (JobRecord* job : state.queue()) PlaceNew(state, *job);
  }

 private:
  static std::optional<Allocation> Fit(PlanState& state, const JobRecord& job, Time start_limit,
                                       Time from = kTimeMin) {
    const Time not_before = std::max({state.now(), job.job.release, from});
    return EarliestCompletion(state.timeline(), job.job.model, not_before, start_limit,
                              state.start_bounds());
  }
  static void Place(PlanState& state, JobRecord& job, Time start_limit) {
    if (const auto fit = Fit(state, job, start_limit)) state.Place(job, *fit, /*guaranteed=*/true);
  }
};

}  // namespace

std::unique_ptr<OnlinePolicy> MakeConservativePolicy() { return std::make_unique<Conservative>(); }

}  // namespace resched
