// DASEDF — Saule, Bozdağ, Çatalyürek, "Optimizing the stretch of independent tasks on a cluster",
// §3.2: dual approximation on the target maximum stretch S. For a guess S each task i must
// complete by d_i = r_i + S·p_i; EDF schedules the tasks as soon as possible in non-decreasing
// deadline order; a binary search finds the smallest S that works; the schedule is recomputed at
// every release and completion over the tasks not yet started, the running tasks taken into
// account. The search (bounds, precision "epsilon", acceptance) is described in stretch_search.h.
//
// Deviations:
// - Acceptance of S: the Lemma 3.2 counting test assumes m idle machines; with running jobs,
//   external holds and future releases it only rejects fast, and S is accepted when the EDF plan
//   on the timeline meets every deadline, so the plan's maximum stretch is at most the S found.
// - "As soon as possible" is the earliest start on the timeline at or after max(now, r_i) with the
//   job's processors free for its whole run, which may fill a hole left before jobs placed earlier
//   in EDF order. When every queued job is sequential and released and the cluster only gains
//   processors from now on (no future hold), that is exactly list scheduling, computed with a
//   heap of processor availability times in O(n log n) without touching the timeline.
// - Jobs whose release lies in the future (the API allows it; the paper's tasks are unknown until
//   released) are planned from their release on.
// - DASEDF is defined for sequential tasks; a job whose model allows several widths runs at its
//   smallest allowed width (DBOS is the moldable algorithm). Stretch is still flow over p(1), the
//   sequential time (§5), so a rigid k-wide job counts with p(1) = k·t.
// - Queued jobs are a plan, not a promise (guaranteed only when they start now): any of them may
//   move at the next event.
#include <algorithm>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "core/online/policies.h"
#include "core/online/stretch_search.h"

namespace resched {
namespace {

// Every job sequential and released, and no processor lost from now on.
bool ListSchedulingIsExact(const StretchInstance& instance) {
  if (!instance.base_non_decreasing()) return false;
  for (const StretchJob& job : instance.jobs()) {
    if (job.widths.empty() || job.widths.front() != 1 || job.release > instance.now()) {
      return false;
    }
  }
  return true;
}

// Each job, in order, on the processor available first: a min-heap of (available from, count),
// seeded with the base's processors as they become free.
bool ListSchedule(const StretchInstance& instance, const std::vector<Due>& order,
                  double give_up_above, std::vector<Allocation>& plan) {
  using Free = std::pair<Time, int>;
  std::vector<Free> heap;
  int seen = 0;
  for (const TimelineStep& s : instance.base()) {
    const int free = std::max(0, s.free);
    if (free > seen) heap.emplace_back(s.start, free - seen);  // ascending: already a heap
    seen = std::max(seen, free);
  }
  const auto later = std::greater<Free>();
  bool met = true;
  for (const Due& due : order) {
    if (heap.empty()) continue;  // no processor is ever free: must_place is false
    const Time start = heap.front().first;
    const Duration d = instance.jobs()[due.job].times.front();
    if (start > kTimeMax - d) continue;  // cannot end by kTimeMax: unplanned
    const Time end = start + d;
    const Allocation a{1, start, end};
    if (end > due.deadline) {
      met = false;
      if (instance.Stretch(due.job, a) > give_up_above) return false;
    }
    plan[due.job] = a;
    if (--heap.front().second == 0) {
      std::pop_heap(heap.begin(), heap.end(), later);
      heap.pop_back();
    }
    heap.emplace_back(end, 1);
    std::push_heap(heap.begin(), heap.end(), later);
  }
  return met;
}

// Each job, in order, at its earliest fit on a copy of the base timeline.
bool TimelineSchedule(const StretchInstance& instance, const std::vector<Due>& order,
                      double give_up_above, std::vector<Allocation>& plan) {
  Timeline timeline = instance.base_timeline().Copy();
  bool met = true;
  for (const Due& due : order) {
    const StretchJob& job = instance.jobs()[due.job];
    if (job.widths.empty()) continue;
    const int k = job.widths.front();
    const Duration d = job.times.front();
    const auto start = EarliestFullRun(timeline, job.earliest, d, k);
    if (!start) {  // never fits: unplanned
      if (job.must_place) return false;
      continue;
    }
    const Allocation a{k, *start, *start + d};
    if (a.end > due.deadline) {
      met = false;
      if (instance.Stretch(due.job, a) > give_up_above) return false;
    }
    plan[due.job] = a;
    // `start` was found free for k over d on this timeline: Add cannot fail.
    (void)timeline.Add(*start, *start + d, k);
  }
  return met;
}

class Dasedf final : public StretchPolicy {
 public:
  explicit Dasedf(double epsilon) : StretchPolicy(/*all_widths=*/false), epsilon_(epsilon) {}
  std::unique_ptr<OnlinePolicy> Copy() const override { return std::make_unique<Dasedf>(epsilon_); }

 protected:
  std::vector<Allocation> Plan(const StretchInstance& instance) override {
    return SearchStretch(instance, &EdfSchedule, epsilon_).plan;
  }

 private:
  double epsilon_;
};

}  // namespace

bool EdfSchedule(const StretchInstance& instance, const std::vector<Due>& order,
                 double give_up_above, std::vector<Allocation>& plan) {
  plan.assign(instance.jobs().size(), Allocation{});
  return ListSchedulingIsExact(instance) ? ListSchedule(instance, order, give_up_above, plan)
                                         : TimelineSchedule(instance, order, give_up_above, plan);
}

std::unique_ptr<OnlinePolicy> MakeDasedfPolicy(const DasedfOptions& options) {
  return std::make_unique<Dasedf>(options.epsilon);
}

}  // namespace resched
