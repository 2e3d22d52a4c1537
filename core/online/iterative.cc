// Iterative and Improved Iterative — Saule, Bozdağ, Çatalyürek, "Optimizing the stretch of
// independent tasks on a cluster", §5.4, after Sabin, Lang, Sadayappan (JSSPP 2006). Every
// queued job is given one processor and the queue is scheduled by conservative backfilling in
// FCFS order (the order §5.4 assumes). Then, repeatedly, the job that gains most from one more
// processor gets it and the queue is scheduled again; if the average flow of the new schedule
// is better the processor is kept, otherwise the allocation rolls back and that job is never
// offered another processor. The search ends when no job can be offered one. The improved
// variant offers a job at x processors the x + k (k >= 1) that maximizes (p_x - p_{x+k}) / k,
// which skips the steps of a non-convex speedup function.
//
// Reading and deviations:
// - "One processor" and "one more processor" are the smallest and the next allowed width of the
//   runtime model (tables, powers of two and rigid jobs allow only some widths).
// - The gain that ranks jobs is the reduction per added processor, (p_x - p_y) / (y - x): Sabin
//   et al.'s "most reduction in processing time" when widths are consecutive, and the quantity
//   the improved rule maximizes, so both variants agree on convex speedup functions, as §5.4
//   says. Ties go to the earlier submission; among equal ratios the improved rule takes the
//   smallest k. A job is offered its next width even when the gain is not positive, as in the
//   paper: that is how steps end the original search early.
// - "Better" is strictly smaller total flow (C - r) over the queued jobs, compared exactly.
// - When the search runs: Sabin et al. decide at every scheduling event, so the policy
//   re-plans the whole queue from one processor each at submissions, at freed capacity and at
//   every event (DecidesAtEvents). Planned allocations are estimates, never guarantees.
// - Cost: each candidate changes one job, so only the jobs after it in FCFS order are
//   re-placed (on a copy of the timeline), and a candidate is dropped as soon as its partial
//   flow reaches the current total (flows are non-negative). The number of candidates is the
//   paper's: at most one rejection per job plus one acceptance per width step, sum over jobs of
//   their width counts.
#include "core/online/iterative.h"

#include <algorithm>
#include <memory>
#include <queue>
#include <tuple>

#include "core/online/policies.h"
#include "core/online/policy.h"

namespace resched {
namespace {

struct Item {
  const Job* job = nullptr;
  std::vector<int> widths;
  std::vector<Duration> times;
  int width = 0;  // index into widths
  std::optional<Allocation> allocation;
  ReservationId booking = -1;
  Duration flow = 0;
};

// An offer of width index `to` to job `item`, ranked by gain = (p_x - p_y) / (y - x).
struct Offer {
  int item = 0;
  int to = 0;
  Duration saved = 0;  // p_x - p_y, may be <= 0
  int added = 1;       // y - x > 0
};

// True when a ranks before b: larger gain, then earlier job.
bool Before(const Offer& a, const Offer& b) {
  const FlowSum lhs = static_cast<FlowSum>(a.saved) * b.added;
  const FlowSum rhs = static_cast<FlowSum>(b.saved) * a.added;
  if (lhs != rhs) return lhs > rhs;
  return a.item < b.item;
}

std::optional<Offer> NextOffer(const std::vector<Item>& items, int i, IterativeRule rule) {
  const Item& item = items[i];
  const int x = item.width;
  const int last = static_cast<int>(item.widths.size()) - 1;
  if (x >= last) return std::nullopt;
  auto offer = [&](int y) {
    return Offer{i, y, item.times[x] - item.times[y], item.widths[y] - item.widths[x]};
  };
  Offer best = offer(x + 1);
  if (rule == IterativeRule::kBestGainPerProcessor) {
    for (int y = x + 2; y <= last; ++y) {
      const Offer o = offer(y);
      // Strictly larger ratio only: equal ratios keep the smaller k.
      if (static_cast<FlowSum>(o.saved) * best.added > static_cast<FlowSum>(best.saved) * o.added) {
        best = o;
      }
    }
  }
  return best;
}

class Search {
 public:
  Search(const Timeline& base, const std::vector<const Job*>& jobs, Time now)
      : timeline_(base.Copy()), now_(now) {
    for (const Job* job : jobs) {
      Item item;
      item.job = job;
      item.widths = job->model.Widths(base.capacity());
      for (int k : item.widths) item.times.push_back(job->model.TimeOn(k));
      items_.push_back(std::move(item));
    }
  }

  // Conservative backfilling in FCFS order with every job on its smallest width.
  void ScheduleAll() {
    for (Item& item : items_) {
      if (item.widths.empty()) continue;
      if (auto a = Fit(timeline_, item, item.width)) Book(item, *a);
    }
  }

  // Schedules again with job i on width index `to`; keeps the result only if the total flow
  // gets smaller.
  bool TryWidth(int i, int to) {
    const int n = static_cast<int>(items_.size());
    // On a copy, so that a rejection costs nothing to undo.
    Timeline trial = timeline_.Copy();
    FlowSum old_suffix = 0;
    for (int j = i; j < n; ++j) {
      old_suffix += items_[j].flow;
      if (items_[j].allocation) trial.ReleaseHeld(items_[j].booking);
    }
    const FlowSum prefix = total_ - old_suffix;
    std::vector<std::pair<Allocation, ReservationId>> placed;
    FlowSum suffix = 0;
    for (int j = i; j < n; ++j) {
      Item& item = items_[j];
      if (item.widths.empty()) continue;
      const auto a = Fit(trial, item, j == i ? to : item.width);
      if (!a) return false;
      placed.emplace_back(*a, *trial.Add(a->start, a->end, a->k));
      suffix += a->end - item.job->release;
      if (prefix + suffix >= total_) return false;
    }
    timeline_ = std::move(trial);
    items_[i].width = to;
    size_t next = 0;
    for (int j = i; j < n; ++j) {
      Item& item = items_[j];
      if (item.widths.empty()) continue;
      item.allocation = placed[next].first;
      item.booking = placed[next].second;
      item.flow = item.allocation->end - item.job->release;
      ++next;
    }
    total_ = prefix + suffix;
    return true;
  }

  std::vector<Item>& items() { return items_; }
  FlowSum total() const { return total_; }

 private:
  std::optional<Allocation> Fit(const Timeline& timeline, const Item& item, int width) const {
    const int k = item.widths[width];
    const Duration d = item.times[width];
    const auto start = timeline.EarliestStart(std::max(now_, item.job->release), d, k);
    if (!start) return std::nullopt;
    return Allocation{k, *start, *start + d};
  }

  void Book(Item& item, const Allocation& a) {
    item.allocation = a;
    item.booking = *timeline_.Add(a.start, a.end, a.k);
    item.flow = a.end - item.job->release;
    total_ += item.flow;
  }

  Timeline timeline_;
  Time now_;
  std::vector<Item> items_;
  FlowSum total_ = 0;
};

class Iterative final : public OnlinePolicy {
 public:
  explicit Iterative(IterativeRule rule) : rule_(rule) {}
  std::unique_ptr<OnlinePolicy> Copy() const override { return std::make_unique<Iterative>(rule_); }

  void PlaceNew(PlanState& state, JobRecord&) override { Decide(state); }
  void Reoptimize(PlanState& state, Time) override { Decide(state); }
  void Rebuild(PlanState& state) override { Decide(state); }
  bool DecidesAtEvents() const override { return true; }

 private:
  // What a decision depends on: the clock, the queue and the timeline from now on. A plan's
  // own bookings are part of it, so an unchanged view means the same decision again (a submit
  // or a cancel is followed by the event check of the same instant).
  struct View {
    Time now = kTimeMin;
    std::vector<std::tuple<const JobRecord*, bool, int, Time, Time>> queue;
    std::vector<std::tuple<Time, Time, int>> steps;
    bool operator==(const View&) const = default;
  };

  static View ViewOf(PlanState& state) {
    View view;
    view.now = state.now();
    for (const JobRecord* job : state.queue()) {
      const Allocation& a = job->allocation;
      view.queue.emplace_back(job, job->placed, a.k, a.start, a.end);
    }
    state.timeline().ForEachStep(state.now(), kTimeMax, [&](const TimelineStep& s) {
      view.steps.emplace_back(s.start, s.end, s.free);
    });
    return view;
  }

  void Decide(PlanState& state) {
    View before = ViewOf(state);
    if (before == last_) return;
    std::vector<const Job*> jobs;
    for (JobRecord* job : state.queue()) {
      state.Unplace(*job);
      jobs.push_back(&job->job);
    }
    const IterativePlan plan = PlanIterative(state.timeline(), jobs, state.now(), rule_);
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (plan.allocations[i]) state.Place(*state.queue()[i], *plan.allocations[i], false);
    }
    last_ = ViewOf(state);
  }

  IterativeRule rule_;
  View last_;
};

}  // namespace

IterativePlan PlanIterative(const Timeline& base, const std::vector<const Job*>& jobs, Time now,
                            IterativeRule rule) {
  Search search(base, jobs, now);
  search.ScheduleAll();
  IterativePlan plan;
  plan.initial_flow = search.total();
  auto& items = search.items();
  auto worse = [](const Offer& a, const Offer& b) { return Before(b, a); };
  std::priority_queue<Offer, std::vector<Offer>, decltype(worse)> offers(worse);
  for (int i = 0; i < static_cast<int>(items.size()); ++i) {
    if (!items[i].allocation) continue;  // never fits: nothing to improve
    if (auto o = NextOffer(items, i, rule)) offers.push(*o);
  }
  while (!offers.empty()) {
    const Offer offer = offers.top();
    offers.pop();
    ++plan.steps;
    if (search.TryWidth(offer.item, offer.to)) {
      ++plan.accepted;
      if (auto o = NextOffer(items, offer.item, rule)) offers.push(*o);
    }  // else: rolled back, and this job is never offered a processor again
  }
  plan.flow = search.total();
  for (const Item& item : items) plan.allocations.push_back(item.allocation);
  return plan;
}

std::unique_ptr<OnlinePolicy> MakeIterativePolicy() {
  return std::make_unique<Iterative>(IterativeRule::kNextWidth);
}

std::unique_ptr<OnlinePolicy> MakeIterativeImprovedPolicy() {
  return std::make_unique<Iterative>(IterativeRule::kBestGainPerProcessor);
}

}  // namespace resched
