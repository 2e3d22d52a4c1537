// DBOS(rho) and MoldableEDF — Saule, Bozdağ, Çatalyürek, "Optimizing the stretch of independent
// tasks on a cluster", §6, Algorithm 2. MoldableEDF(S): deadlines D_i = r_i + p_{i,1}·S; tasks in
// non-decreasing deadline order; each takes the smallest number of processors j that lets it
// finish by D_i without moving any task scheduled before it, and starts as soon as possible on j
// processors; the schedule is infeasible if some task cannot meet its deadline. DBOS: the DASEDF
// binary search with MoldableEDF as the deadline scheduler gives a plan of maximum stretch S;
// MoldableEDF(rho·S) is then computed and kept if feasible (rho, the online factor, registry
// parameter "rho" >= 1, default 1.5; the paper uses 1 and 1.5). The search (bounds, precision
// "epsilon", acceptance) is described in stretch_search.h.
//
// Deviations:
// - Rerun over every queued job at every event (submission, release, completion, freed capacity),
//   as DASEDF is (§3.2); running jobs and external holds are the initial allocation (line 12).
// - "j from 1 to m" runs over the job's allowed widths in ascending order.
// - With rho = 1 the relaxation is skipped (the paper's "online factor deactivated"): MoldableEDF
//   is not run again on the S just found.
// - Acceptance of S, as for DASEDF: the counting test (with each job's least work over its
//   widths) only rejects; a candidate is accepted when MoldableEDF meets every deadline. Within
//   the search, a task that misses its deadline is still planned (at its soonest end over its 1st,
//   2nd, 4th, ... widths and the last) so that a rejected candidate's plan can lower the upper
//   bound.
// - Queued jobs are a plan, not a promise (guaranteed only when they start now): any of them may
//   move at the next event.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "core/online/policies.h"
#include "core/online/stretch_search.h"

namespace resched {
namespace {

// The smallest width that completes by `deadline` on `timeline`, started as soon as possible.
std::optional<Allocation> SmallestWidthByDeadline(const Timeline& timeline, const StretchJob& job,
                                                  Time deadline) {
  for (std::size_t w = 0; w < job.widths.size(); ++w) {
    const int k = job.widths[w];
    const Duration d = job.times[w];
    if (job.earliest + d > deadline) continue;
    // Bounded by [earliest, deadline]; the earliest start is then found before it.
    if (!timeline.LatestStart(job.earliest, deadline, d, k)) continue;
    const auto start = timeline.EarliestStart(job.earliest, d, k);
    if (start) return Allocation{k, *start, *start + d};
  }
  return std::nullopt;
}

// Where a job that cannot meet its deadline ends soonest, among the 1st, 2nd, 4th, 8th, ... of its
// widths and the last (ties: fewer processors). Trying them all costs a search per width for each
// miss in each rejected candidate, and this plan only serves as an upper bound.
std::optional<Allocation> SoonestEnd(const Timeline& timeline, const StretchJob& job) {
  std::optional<Allocation> best;
  const std::size_t n = job.widths.size();
  for (std::size_t w = 0; w < n; w = w + 1 < n && 2 * w + 1 >= n ? n - 1 : 2 * w + 1) {
    const Duration d = job.times[w];
    if (!best || job.earliest + d < best->end) {
      const auto start = EarliestFullRun(timeline, job.earliest, d, job.widths[w]);
      if (start && (!best || *start + d < best->end)) {
        best = Allocation{job.widths[w], *start, *start + d};
      }
    }
    if (w == n - 1) break;
  }
  return best;
}

class Dbos final : public StretchPolicy {
 public:
  Dbos(double rho, double epsilon)
      : StretchPolicy(/*all_widths=*/true), rho_(rho), epsilon_(epsilon) {}
  std::unique_ptr<OnlinePolicy> Copy() const override {
    return std::make_unique<Dbos>(rho_, epsilon_);
  }

 protected:
  std::vector<Allocation> Plan(const StretchInstance& instance) override {
    StretchSearchResult best = SearchStretch(instance, &MoldableEdfSchedule, epsilon_);
    if (rho_ > 1 && !instance.jobs().empty()) {
      std::vector<Allocation> relaxed;
      if (ScheduleForStretch(instance, &MoldableEdfSchedule, rho_ * best.stretch, relaxed)) {
        return relaxed;
      }
    }
    return std::move(best.plan);
  }

 private:
  double rho_;
  double epsilon_;
};

}  // namespace

bool MoldableEdfSchedule(const StretchInstance& instance, const std::vector<Due>& order,
                         double give_up_above, std::vector<Allocation>& plan) {
  plan.assign(instance.jobs().size(), Allocation{});
  Timeline timeline = instance.base_timeline().Copy();
  bool met = true;
  for (const Due& due : order) {
    const StretchJob& job = instance.jobs()[due.job];
    if (job.widths.empty()) continue;
    auto fit = SmallestWidthByDeadline(timeline, job, due.deadline);
    if (!fit) {
      fit = SoonestEnd(timeline, job);
      if (!fit && !job.must_place) continue;  // never fits: unplanned
      met = false;
      if (!fit || instance.Stretch(due.job, *fit) > give_up_above) return false;
    }
    plan[due.job] = *fit;
    // `fit` was found free on this timeline: Add cannot fail.
    (void)timeline.Add(fit->start, fit->end, fit->k);
  }
  return met;
}

std::unique_ptr<OnlinePolicy> MakeDbosPolicy(const DbosOptions& options) {
  return std::make_unique<Dbos>(options.rho, options.epsilon);
}

}  // namespace resched
