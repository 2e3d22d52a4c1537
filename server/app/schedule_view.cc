#include "server/app/schedule_view.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "core/timeline/timeline.h"
#include "proto/resched/convert.h"

namespace resched::server {
namespace {

// Every interval of any group (group -1) becomes pieces in groups: the groups' own intervals
// stay where they are, and each other one, in start order, goes to the groups with room for it
// over its whole window (counted), the lowest index first. Sorted as the input.
std::vector<IdInterval> GiveAnyToGroups(const std::vector<IdInterval>& intervals,
                                        const std::vector<int>& group_counts) {
  std::vector<Timeline> used;
  used.reserve(group_counts.size());
  for (int count : group_counts) used.emplace_back(count);
  const int groups = static_cast<int>(group_counts.size());
  for (const IdInterval& interval : intervals) {
    if (interval.group >= 0 && interval.group < groups && interval.start < interval.end) {
      (void)used[interval.group].ForceAdd(interval.start, interval.end, interval.k);
    }
  }
  std::vector<IdInterval> out;
  out.reserve(intervals.size());
  for (const IdInterval& interval : intervals) {
    if ((interval.group >= 0 && interval.group < groups) || interval.start == interval.end) {
      out.push_back(interval);
      continue;
    }
    int left = interval.k;
    for (int g = 0; g < groups && left > 0; ++g) {
      const int room = std::min(left, used[g].MinFree(interval.start, interval.end));
      if (room <= 0) continue;
      (void)used[g].ForceAdd(interval.start, interval.end, room);
      out.push_back({interval.start, interval.end, room, interval.slot, g});
      left -= room;
    }
  }
  return out;
}

}  // namespace

// Interval colouring with counts, one pool of ids per group: at most a group's count of its
// processors is busy at any instant, so taking the lowest free ids of the group in start order
// (ends released first) always succeeds for intervals of positive length. On several groups an
// interval of any group (a hold naming none) is first given to groups by count, the lowest
// index with room over its whole window first, so that it never takes ids a group's own
// intervals need later; pieces of it that fit no group go unreported.
std::vector<std::vector<int>> AssignProcessorIds(std::vector<IdInterval> intervals,
                                                 const std::vector<int>& group_counts,
                                                 size_t slot_count) {
  std::sort(intervals.begin(), intervals.end(), [](const IdInterval& a, const IdInterval& b) {
    return a.start != b.start ? a.start < b.start : a.slot < b.slot;
  });
  if (group_counts.size() > 1) intervals = GiveAnyToGroups(intervals, group_counts);
  using Pool = std::priority_queue<int, std::vector<int>, std::greater<>>;
  std::vector<Pool> pools(group_counts.size());
  std::vector<int> first_id;  // of each group
  int next = 0;
  for (size_t g = 0; g < group_counts.size(); ++g) {
    first_id.push_back(next);
    for (int i = 0; i < group_counts[g]; ++i) pools[g].push(next++);
  }
  auto pool_of = [&](int id) {
    return static_cast<size_t>(std::upper_bound(first_id.begin(), first_id.end(), id) -
                               first_id.begin() - 1);
  };
  // The lowest free id of the interval's group (the only pool on one group); -1 when none.
  auto take = [&](int group) {
    Pool& from = pools[group >= 0 && group < static_cast<int>(pools.size()) ? group : 0];
    if (from.empty()) return -1;
    const int id = from.top();
    from.pop();
    return id;
  };
  using Busy = std::pair<Time, std::vector<int>>;
  auto later = [](const Busy& a, const Busy& b) { return a.first > b.first; };
  std::priority_queue<Busy, std::vector<Busy>, decltype(later)> busy(later);
  std::vector<std::vector<int>> ids(slot_count);
  for (const auto& interval : intervals) {
    if (interval.start == interval.end) {
      // No length (a job that ended at its start): it occupies no instant, so any ids of its
      // group do, and the ones in use at its start may be all there are.
      if (interval.slot >= 0) {
        const int group = std::max(interval.group, 0);
        const int base = group < static_cast<int>(first_id.size()) ? first_id[group] : 0;
        for (int id = 0; id < interval.k; ++id) ids[interval.slot].push_back(base + id);
      }
      continue;
    }
    while (!busy.empty() && busy.top().first <= interval.start) {
      for (int id : busy.top().second) pools[pool_of(id)].push(id);
      busy.pop();
    }
    std::vector<int> taken;
    for (int i = 0; i < interval.k; ++i) {
      const int id = take(interval.group);
      if (id < 0) break;
      taken.push_back(id);
    }
    if (interval.slot >= 0) {
      // A hold given to several groups comes in pieces, one per group.
      std::vector<int>& mine = ids[interval.slot];
      mine.insert(mine.end(), taken.begin(), taken.end());
      std::sort(mine.begin(), mine.end());
    }
    busy.push({interval.end, std::move(taken)});
  }
  return ids;
}

::resched::v1::Schedule BuildSchedule(const ClusterPlan& plan, const ScheduleWindow& window) {
  ::resched::v1::Schedule out;
  const std::string& cluster = plan.spec().name;
  const Time from = window.from.value_or(plan.now());
  Time last_end = plan.now();
  for (const JobRecord* job : plan.Jobs()) {
    if (job->allocation.k > 0 && job->state != JobState::kCancelled) {
      last_end = std::max(last_end, job->allocation.end);
    }
  }
  for (const auto* r : plan.Reservations()) last_end = std::max(last_end, r->end);
  for (const DagReservation* d : plan.Dags()) last_end = std::max(last_end, d->completion);
  const Time to = window.to.value_or(std::max(last_end, from + 1));

  std::vector<IdInterval> intervals;
  for (const JobRecord* job : plan.Jobs()) {
    const auto& a = job->allocation;
    if (a.k == 0 || a.end <= from || a.start >= to) continue;
    const bool active = job->state == JobState::kQueued || job->state == JobState::kRunning;
    if (!active && !window.include_finished) continue;
    intervals.push_back({a.start, a.end, a.k, out.jobs_size(), job->group});
    *out.add_jobs() = ToProto(*job, cluster);
  }
  // Slots: the jobs, then the DAG tasks, then the reservations.
  const int job_count = out.jobs_size();
  for (const DagReservation* d : plan.Dags()) {
    for (const DagTaskBooking& t : d->tasks) {
      // What the task holds: a task that ended early or was released gave the rest back.
      const Allocation a = t.Held();
      if (a.end <= a.start || a.end <= from || a.start >= to) continue;
      intervals.push_back({a.start, a.end, a.k, job_count + out.dag_tasks_size(), t.group});
      pb::DagTaskSlot* slot = out.add_dag_tasks();
      slot->set_dag_id(d->id);
      slot->set_task(t.task);
      slot->set_state(static_cast<pb::DagTaskState>(t.state));
      slot->set_owner(d->owner);
      if (t.group >= 0) slot->set_group(t.group);
      *slot->mutable_allocation() = ToProto(a);
    }
  }
  const int task_count = out.dag_tasks_size();
  for (const auto* r : plan.Reservations()) {
    if (r->end <= from || r->start >= to) continue;
    intervals.push_back(
        {r->start, r->end, r->k, job_count + task_count + out.reservations_size(), r->group});
    *out.add_reservations() = ToProto(*r, cluster);
  }
  std::vector<int> group_counts{plan.capacity()};
  if (!plan.spec().homogeneous()) {
    group_counts.clear();
    for (const ProcessorGroup& g : plan.spec().groups) {
      group_counts.push_back(g.count);
      *out.add_groups() = ToProto(g);
    }
  }
  const auto ids = AssignProcessorIds(std::move(intervals), group_counts,
                                      job_count + task_count + out.reservations_size());
  for (int i = 0; i < job_count; ++i) {
    for (int id : ids[i]) out.mutable_jobs(i)->mutable_allocation()->add_processor_ids(id);
  }
  for (int i = 0; i < task_count; ++i) {
    for (int id : ids[job_count + i]) {
      out.mutable_dag_tasks(i)->mutable_allocation()->add_processor_ids(id);
    }
  }
  for (int i = 0; i < out.reservations_size(); ++i) {
    for (int id : ids[job_count + task_count + i])
      out.mutable_reservations(i)->add_processor_ids(id);
  }
  plan.timeline().ForEachStep(std::max(from, plan.now()), to, [&](const TimelineStep& step) {
    auto* s = out.add_free_profile();
    *s->mutable_start() = ToTimestamp(step.start);
    *s->mutable_end() = ToTimestamp(step.end);
    s->set_free(step.free);
  });
  out.set_cluster(cluster);
  out.set_capacity(plan.capacity());
  *out.mutable_now() = ToTimestamp(plan.now());
  *out.mutable_from() = ToTimestamp(from);
  *out.mutable_to() = ToTimestamp(to);
  return out;
}

}  // namespace resched::server
