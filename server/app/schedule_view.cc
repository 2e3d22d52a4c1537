#include "server/app/schedule_view.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "proto/resched/convert.h"

namespace resched::server {

std::string JobRowKey(const std::string& job_id) { return absl::StrCat("j", job_id); }
std::string HoldRowKey(const std::string& reservation_id) {
  return absl::StrCat("r", reservation_id);
}
// Ids hold no NUL: it keeps "d1"+"x/y" apart from "d1/x"+"y".
std::string DagTaskRowKey(const std::string& dag_id, const std::string& task) {
  return absl::StrCat("t", dag_id, absl::string_view("\0", 1), task);
}

std::optional<RowItem> RowItemOf(const std::string& key) {
  if (key.empty()) return std::nullopt;
  const std::string rest = key.substr(1);
  switch (key[0]) {
    case 'j':
      return RowItem{RowItem::kJob, rest, ""};
    case 'r':
      return RowItem{RowItem::kHold, rest, ""};
    case 't': {
      const size_t nul = rest.find('\0');
      if (nul == std::string::npos) return std::nullopt;
      return RowItem{RowItem::kDagTask, rest.substr(0, nul), rest.substr(nul + 1)};
    }
    default:
      return std::nullopt;
  }
}

std::optional<ProcessorRows::Span> RowSpanOf(const JobRecord& job) {
  const Allocation& a = job.allocation;
  if (a.k == 0) return std::nullopt;  // a queued job cancelled: never placed
  return ProcessorRows::Span{a.start, a.end, a.k, job.group};
}

std::optional<ProcessorRows::Span> RowSpanOf(const ExternalReservation& hold) {
  return ProcessorRows::Span{hold.start, hold.end, hold.k, hold.group};
}

std::optional<ProcessorRows::Span> RowSpanOf(const DagTaskBooking& task) {
  // What the task holds: a task that ended early or was released gave the rest back.
  const Allocation a = task.Held();
  if (a.end <= a.start) return std::nullopt;
  return ProcessorRows::Span{a.start, a.end, a.k, task.group};
}

std::vector<int> RowGroupCounts(const ClusterPlan& plan) {
  if (plan.spec().homogeneous()) return {plan.capacity()};
  std::vector<int> counts;
  for (const ProcessorGroup& g : plan.spec().groups) counts.push_back(g.count);
  return counts;
}

std::vector<std::string> SyncRows(const ClusterPlan& plan, ProcessorRows& rows) {
  std::vector<ProcessorRows::Change> items;
  for (const JobRecord* job : plan.Jobs())
    items.emplace_back(JobRowKey(job->job.id), RowSpanOf(*job));
  for (const ExternalReservation* r : plan.Reservations()) {
    items.emplace_back(HoldRowKey(r->id), RowSpanOf(*r));
  }
  for (const DagReservation* d : plan.Dags()) {
    for (const DagTaskBooking& t : d->tasks) {
      items.emplace_back(DagTaskRowKey(d->id, t.task), RowSpanOf(t));
    }
  }
  absl::flat_hash_set<std::string> in_plan;
  in_plan.reserve(items.size());
  for (const auto& [key, span] : items) in_plan.insert(key);
  rows.RetainIf([&](const std::string& key) { return in_plan.contains(key); });
  return rows.Update(items);
}

::resched::v1::Schedule BuildSchedule(const ClusterPlan& plan, const ScheduleWindow& window,
                                      const ProcessorRows& rows) {
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

  for (const JobRecord* job : plan.Jobs()) {
    const auto& a = job->allocation;
    if (a.k == 0 || a.end <= from || a.start >= to) continue;
    const bool active = job->state == JobState::kQueued || job->state == JobState::kRunning;
    if (!active && !window.include_finished) continue;
    pb::Job* shown = out.add_jobs();
    *shown = ToProto(*job, cluster);
    for (int id : rows.Ids(JobRowKey(job->job.id)))
      shown->mutable_allocation()->add_processor_ids(id);
  }
  for (const DagReservation* d : plan.Dags()) {
    for (const DagTaskBooking& t : d->tasks) {
      // What the task holds: a task that ended early or was released gave the rest back.
      const Allocation a = t.Held();
      if (a.end <= a.start || a.end <= from || a.start >= to) continue;
      pb::DagTaskSlot* slot = out.add_dag_tasks();
      slot->set_dag_id(d->id);
      slot->set_task(t.task);
      slot->set_state(static_cast<pb::DagTaskState>(t.state));
      slot->set_owner(d->owner);
      if (t.group >= 0) slot->set_group(t.group);
      *slot->mutable_allocation() = ToProto(a);
      for (int id : rows.Ids(DagTaskRowKey(d->id, t.task))) {
        slot->mutable_allocation()->add_processor_ids(id);
      }
    }
  }
  for (const auto* r : plan.Reservations()) {
    if (r->end <= from || r->start >= to) continue;
    pb::Reservation* shown = out.add_reservations();
    *shown = ToProto(*r, cluster);
    for (int id : rows.Ids(HoldRowKey(r->id))) shown->add_processor_ids(id);
  }
  if (!plan.spec().homogeneous()) {
    for (const ProcessorGroup& g : plan.spec().groups) *out.add_groups() = ToProto(g);
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
