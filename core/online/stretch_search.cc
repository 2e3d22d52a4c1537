#include "core/online/stretch_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/container/flat_hash_set.h"

namespace resched {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Bisection halves log(hi/lo): 64 rounds reach any epsilon the registry allows.
constexpr int kMaxRounds = 64;

bool SameAllocation(const Allocation& a, const Allocation& b) {
  return a.k == b.k && a.start == b.start && a.end == b.end;
}

bool SameSteps(const std::vector<TimelineStep>& a, const std::vector<TimelineStep>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const TimelineStep& x, const TimelineStep& y) {
                      return x.start == y.start && x.end == y.end && x.free == y.free;
                    });
}

}  // namespace

std::optional<Time> EarliestFullRun(const Timeline& timeline, Time t0, Duration d, int k) {
  const auto start = timeline.EarliestStart(t0, d, k);
  if (start && *start > kTimeMax - d) return std::nullopt;
  return start;
}

// ---- Job shapes.

const JobShape& JobShapeCache::Get(const JobRecord& job, int capacity) {
  std::unique_ptr<JobShape>& slot = shapes_[job.sequence];
  if (slot != nullptr && slot->record == &job) return *slot;
  slot = std::make_unique<JobShape>();
  JobShape& shape = *slot;
  shape.record = &job;
  shape.widths = job.job.model.Widths(capacity);
  if (!all_widths_ && shape.widths.size() > 1) shape.widths = {shape.widths.front()};
  shape.min_time = std::numeric_limits<Duration>::max();
  shape.min_work = std::numeric_limits<std::int64_t>::max();
  for (int k : shape.widths) {
    const Duration t = job.job.model.TimeOn(k);
    shape.times.push_back(t);
    shape.min_time = std::min(shape.min_time, t);
    shape.min_work = std::min(shape.min_work, Work{k} * t);
  }
  if (shape.widths.empty()) {
    shape.min_time = 0;
    shape.min_work = 0;
  }
  shape.p1 = job.job.model.SequentialTime();
  if (shape.p1 <= 0 && !shape.widths.empty()) shape.p1 = shape.times[0] * shape.widths[0];
  shape.p1 = std::max<Duration>(shape.p1, 1);
  return shape;
}

void JobShapeCache::Retain(const std::vector<JobRecord*>& queue) {
  if (shapes_.size() <= 2 * queue.size() + 256) return;
  absl::flat_hash_set<std::int64_t> queued;
  for (const JobRecord* job : queue) queued.insert(job->sequence);
  absl::erase_if(shapes_, [&](const auto& entry) { return !queued.contains(entry.first); });
}

// ---- The instance.

std::vector<TimelineStep> BaseSteps(const Timeline& timeline, Time now,
                                    const std::vector<JobRecord*>& queue) {
  std::vector<TimelineStep> booked;
  timeline.ForEachStep(now, kTimeMax, [&](const TimelineStep& s) { booked.push_back(s); });
  std::vector<std::pair<Time, int>> returned;  // the queued bookings, given back
  for (const JobRecord* job : queue) {
    if (!job->placed || job->allocation.end <= now) continue;
    returned.emplace_back(std::max(job->allocation.start, now), job->allocation.k);
    returned.emplace_back(job->allocation.end, -job->allocation.k);
  }
  if (returned.empty()) return booked;
  std::sort(returned.begin(), returned.end());
  std::vector<TimelineStep> base;
  std::size_t i = 0, j = 0;
  int added = 0;
  for (Time t = now;;) {
    while (j < returned.size() && returned[j].first <= t) added += returned[j++].second;
    while (i + 1 < booked.size() && booked[i + 1].start <= t) ++i;
    const int free = booked[i].free + added;
    if (base.empty() || base.back().free != free) {
      if (!base.empty()) base.back().end = t;
      base.push_back(TimelineStep{t, kTimeMax, free});
    }
    Time next = i + 1 < booked.size() ? booked[i + 1].start : kTimeMax;
    if (j < returned.size()) next = std::min(next, returned[j].first);
    if (next >= kTimeMax) break;
    t = next;
  }
  return base;
}

StretchInstance MakeStretchInstance(Time now, int capacity, std::vector<TimelineStep> base,
                                    const std::vector<JobRecord*>& queue, JobShapeCache& shapes) {
  std::vector<StretchJob> jobs;
  jobs.reserve(queue.size());
  for (const JobRecord* record : queue) {
    const JobShape& shape = shapes.Get(*record, capacity);
    StretchJob job;
    job.record = record;
    job.release = record->job.release;
    job.earliest = std::max(now, record->job.release);
    job.sequence = record->sequence;
    job.p1 = shape.p1;
    job.widths = shape.widths;
    job.times = shape.times;
    job.min_time = shape.min_time;
    job.min_work = shape.min_work;
    jobs.push_back(job);
  }
  return StretchInstance(now, capacity, std::move(base), std::move(jobs));
}

StretchInstance MakeStretchInstance(const Timeline& timeline, Time now,
                                    const std::vector<JobRecord*>& queue, JobShapeCache& shapes) {
  return MakeStretchInstance(now, timeline.capacity(), BaseSteps(timeline, now, queue), queue,
                             shapes);
}

StretchInstance::StretchInstance(Time now, int capacity, std::vector<TimelineStep> base,
                                 std::vector<StretchJob> jobs)
    : now_(now), capacity_(capacity), base_(std::move(base)), jobs_(std::move(jobs)) {
  if (base_.empty()) base_.push_back(TimelineStep{now, kTimeMax, capacity});
  // Most free processors seen so far, step by step: the first instant k are free at all.
  std::vector<int> most(base_.size());
  for (std::size_t i = 0; i < base_.size(); ++i) {
    most[i] = std::max(base_[i].free, i > 0 ? most[i - 1] : base_[i].free);
    if (i > 0 && base_[i].free < base_[i - 1].free) non_decreasing_ = false;
  }
  for (StretchJob& job : jobs_) {
    job.must_place = !job.widths.empty() && job.widths.front() <= base_.back().free;
    if (!job.must_place) continue;
    const auto it = std::lower_bound(most.begin(), most.end(), job.widths.front());
    if (it == most.end()) continue;
    const Time start = std::max(job.earliest, base_[it - most.begin()].start);
    lower_bound_ = std::max(lower_bound_, static_cast<double>(start + job.min_time - job.release) /
                                              static_cast<double>(job.p1));
  }
}

const Timeline& StretchInstance::base_timeline() const {
  if (base_timeline_ == nullptr) {
    base_timeline_ = std::make_unique<Timeline>(capacity_);
    for (const TimelineStep& s : base_) {
      // A step is a non-empty window, and k = capacity - free >= 1: ForceAdd cannot fail.
      if (s.free < capacity_) (void)base_timeline_->ForceAdd(s.start, s.end, capacity_ - s.free);
    }
  }
  return *base_timeline_;
}

Time StretchInstance::Deadline(const StretchJob& job, double s) const {
  // The relative nudge keeps a stretch measured on a plan, times p1, from flooring one microsecond
  // short of the completion it was measured on.
  const double slack = s * static_cast<double>(job.p1) * (1 + 1e-12);
  if (!(slack < static_cast<double>(kTimeMax - job.release))) return kTimeMax;
  return job.release + static_cast<Time>(std::floor(slack));
}

void StretchInstance::DeadlineOrder(double s, std::vector<Due>& order) const {
  order.resize(jobs_.size());
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    order[i] = Due{Deadline(jobs_[i], s), jobs_[i].sequence, static_cast<int>(i)};
  }
  std::sort(order.begin(), order.end(), [](const Due& a, const Due& b) {
    return a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence;
  });
}

// Free processor-time of the base over [now, until); `until` must not decrease between calls
// sharing `step` and `area_before` (the area of the steps before base_[step]).
Work StretchInstance::FreeArea(std::size_t& step, Work& area_before, Time until) const {
  while (step + 1 < base_.size() && base_[step].end <= until) {
    area_before += Work{base_[step].end - base_[step].start} * std::max(0, base_[step].free);
    ++step;
  }
  const Time from = base_[step].start;
  if (until <= from) return area_before;
  return area_before + Work{until - from} * std::max(0, base_[step].free);
}

bool StretchInstance::PassesCountingTest(const std::vector<Due>& order) const {
  Work due = 0;
  std::size_t step = 0;
  Work area_before = 0;
  for (const Due& d : order) {
    if (!jobs_[d.job].must_place) continue;
    due += jobs_[d.job].min_work;
    if (due > FreeArea(step, area_before, d.deadline)) return false;
  }
  return true;
}

double StretchInstance::MaxStretch(const std::vector<Allocation>& plan) const {
  double worst = 0;
  for (std::size_t i = 0; i < jobs_.size() && i < plan.size(); ++i) {
    if (plan[i].k > 0) worst = std::max(worst, Stretch(static_cast<int>(i), plan[i]));
  }
  return worst;
}

// ---- The search.

bool ScheduleForStretch(const StretchInstance& instance, DeadlineScheduler scheduler, double s,
                        std::vector<Allocation>& plan, double give_up_above) {
  std::vector<Due> order;
  instance.DeadlineOrder(s, order);
  return scheduler(instance, order, give_up_above < 0 ? s : give_up_above, plan);
}

StretchSearchResult SearchStretch(const StretchInstance& instance, DeadlineScheduler scheduler,
                                  double epsilon) {
  StretchSearchResult result;
  if (instance.jobs().empty()) return result;
  double lo = instance.LowerBound();
  double hi = kInfinity;  // the maximum stretch of result.plan
  std::vector<Due> order;
  std::vector<Allocation> plan;
  // Plans past a miss while the plan can still beat the best in hand: the plan of a rejected S is
  // usually close to it, which narrows the search from above as well.
  auto build = [&] {
    ++result.plans_built;
    const bool met = scheduler(instance, order, hi, plan);
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (plan[i].k == 0 && instance.jobs()[i].must_place) return false;  // gave up
    }
    const double stretch = instance.MaxStretch(plan);
    if (stretch < hi) {
      hi = stretch;
      result.plan.swap(plan);
    }
    return met;
  };
  auto accept = [&](double s) {
    instance.DeadlineOrder(s, order);
    if (!instance.PassesCountingTest(order)) {
      ++result.counting_rejections;
      return false;
    }
    return build();
  };
  if (!accept(lo) && hi == kInfinity) {  // no complete plan yet: submission order
    instance.DeadlineOrder(kInfinity, order);
    build();
  }
  for (int round = 0; round < kMaxRounds && hi > lo * (1 + epsilon); ++round) {
    double mid = lo > 0 ? std::sqrt(lo * hi) : lo + (hi - lo) / 2;
    if (!(mid > lo && mid < hi)) mid = lo + (hi - lo) / 2;
    if (!(mid > lo && mid < hi)) break;  // no double left between them
    if (!accept(mid)) lo = mid;
  }
  result.stretch = hi;
  result.rejected = lo;
  return result;
}

// ---- The policy frame.

void StretchPolicy::Replan(PlanState& state) {
  std::vector<JobRecord*>& queue = state.queue();
  const Time now = state.now();
  shapes_.Retain(queue);
  std::vector<TimelineStep> base = BaseSteps(state.timeline(), now, queue);
  bool unchanged =
      now == memo_now_ && queue.size() == memo_queue_.size() && SameSteps(base, memo_base_);
  for (std::size_t i = 0; unchanged && i < queue.size(); ++i) {
    unchanged = queue[i] == memo_queue_[i].first && queue[i]->placed &&
                SameAllocation(queue[i]->allocation, memo_queue_[i].second);
  }
  if (unchanged) return;

  const StretchInstance instance =
      MakeStretchInstance(now, state.timeline().capacity(), std::move(base), queue, shapes_);
  std::vector<Allocation> plan = Plan(instance);
  plan.resize(queue.size());  // a plan left incomplete leaves the rest unplanned
  // Take out every job that moves before booking any: the new plan fits the base as a whole, not
  // necessarily next to the old bookings.
  std::vector<std::size_t> moving;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    JobRecord& job = *queue[i];
    if (job.placed && SameAllocation(job.allocation, plan[i])) {
      job.guaranteed = plan[i].start <= now;
      continue;
    }
    state.Unplace(job);
    moving.push_back(i);
  }
  for (std::size_t i : moving) {
    if (plan[i].k > 0) state.Place(*queue[i], plan[i], /*guaranteed=*/plan[i].start <= now);
  }
  memo_now_ = now;
  memo_queue_.clear();
  for (const JobRecord* job : queue) memo_queue_.emplace_back(job, job->allocation);
  memo_base_ = instance.base();
}

}  // namespace resched
