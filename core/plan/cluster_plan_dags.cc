// ClusterPlan's DAG reservations (ReserveDAG, QueryDeadline with commit, ReleaseDAG) and the
// historical q the CPAR planners need.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/online/plan_state.h"
#include "core/plan/cluster_plan.h"

namespace resched {
namespace {

std::optional<std::int64_t> ParseDagId(const std::string& id) {
  std::int64_t n = 0;
  if (id.size() < 2 || id[0] != 'd') return std::nullopt;
  for (std::size_t i = 1; i < id.size(); ++i) {
    if (id[i] < '0' || id[i] > '9' || n > (std::int64_t{1} << 50)) return std::nullopt;
    n = n * 10 + (id[i] - '0');
  }
  return n;
}

// Every task that depends on `task`, directly or not.
std::vector<int> Descendants(const DagReservation& dag, int task) {
  std::vector<std::vector<int>> children(dag.tasks.size());
  for (const Edge& e : dag.edges) children[e.from].push_back(e.to);
  std::vector<bool> seen(dag.tasks.size(), false);
  std::vector<int> out;
  std::vector<int> stack = {task};
  while (!stack.empty()) {
    const int t = stack.back();
    stack.pop_back();
    for (const int child : children[t]) {
      if (seen[child]) continue;
      seen[child] = true;
      out.push_back(child);
      stack.push_back(child);
    }
  }
  return out;
}

}  // namespace

std::string_view DagTaskStateName(DagTaskState state) {
  switch (state) {
    case DagTaskState::kReserved:
      return "RESERVED";
    case DagTaskState::kRunning:
      return "RUNNING";
    case DagTaskState::kFinished:
      return "FINISHED";
    case DagTaskState::kFailed:
      return "FAILED";
    case DagTaskState::kReleased:
      return "RELEASED";
  }
  return "UNKNOWN";
}

Allocation DagTaskBooking::Held() const {
  const Time end = std::min(allocation.end, released_at);
  return {allocation.k, allocation.start, std::max(allocation.start, end)};
}

absl::StatusOr<const DagReservation*> ClusterPlan::CommitDag(const Dag& dag, const DagPlan& plan,
                                                             std::string algorithm,
                                                             std::string label, Time release,
                                                             std::string owner) {
  const AccountOnReturn account(*this);
  const auto active = std::count_if(dags_.begin(), dags_.end(), [&](const auto& entry) {
    return entry.second.completion > now_;
  });
  if (active >= limits_.max_dag_reservations) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cluster '%s' holds %d DAG reservations, the limit; release some first",
                        spec_.name, limits_.max_dag_reservations));
  }
  if (plan.tasks.size() != dag.tasks.size()) {
    return absl::InternalError("a DAG plan must have one reservation per task");
  }
  if (absl::Status s = CheckTaskGroups(dag, plan); !s.ok()) return s;
  // On several speeds each task must also fit in its group, as the planner saw it.
  std::vector<Timeline> group_free = FreeByGroup();
  DagReservation record;
  record.algorithm = std::move(algorithm);
  record.label = std::move(label);
  record.owner = std::move(owner);
  record.release = release;
  record.edges = dag.edges;
  record.completion = plan.completion;
  record.cpu_hours = plan.cpu_hours;
  absl::Status failure;
  for (std::size_t i = 0; i < plan.tasks.size() && failure.ok(); ++i) {
    const TaskReservation& t = plan.tasks[i];
    if (t.start < now_) {
      failure = absl::FailedPreconditionError(
          absl::StrFormat("task '%s' would start at %s, before the cluster's now (%s)",
                          dag.tasks[i].name, FormatInstant(t.start), FormatInstant(now_)));
      break;
    }
    const bool fits_group =
        t.group < 0 || t.start >= t.end || group_free[t.group].MinFree(t.start, t.end) >= t.k;
    absl::StatusOr<ReservationId> booking =
        fits_group ? timeline_.Add(t.start, t.end, t.k)
                   : absl::ResourceExhaustedError("the task's group is full");
    if (!booking.ok()) {
      failure = absl::FailedPreconditionError(absl::StrFormat(
          "task '%s' no longer fits: %d processors%s over [%s, %s); nothing was reserved",
          dag.tasks[i].name, t.k,
          t.group < 0 ? ""
                      : absl::StrFormat(" of group %d ('%s')", t.group, spec_.groups[t.group].name),
          FormatInstant(t.start), FormatInstant(t.end)));
      break;
    }
    if (t.group >= 0 && t.start < t.end) {
      (void)group_free[t.group].ForceAdd(t.start, t.end, t.k);  // checked to fit just above
    }
    DagTaskBooking booked;
    booked.task = dag.tasks[i].name;
    booked.allocation = Allocation{t.k, t.start, t.end};
    booked.booking = *booking;
    booked.group = t.group;
    record.tasks.push_back(std::move(booked));
  }
  if (!failure.ok()) {
    for (const DagTaskBooking& b : record.tasks) timeline_.ReleaseHeld(b.booking);
    return failure;
  }
  for (const DagTaskBooking& b : record.tasks) {
    if (b.group >= 0) group_bookings_[b.booking] = b.group;
  }
  for (const DagTaskBooking& b : record.tasks) {
    next_dag_expiry_ = std::min(next_dag_expiry_, b.allocation.end);
  }
  const std::int64_t n = next_dag_++;
  record.id = absl::StrCat("d", n);
  return &(dags_[n] = std::move(record));
}

absl::Status ClusterPlan::ReleaseDag(const std::string& id) {
  const AccountOnReturn account(*this);
  const std::optional<std::int64_t> n = ParseDagId(id);
  auto it = n ? dags_.find(*n) : dags_.end();
  if (it == dags_.end()) {
    return absl::NotFoundError(absl::StrCat("DAG reservation '", id, "' not found"));
  }
  Time freed_from = kTimeMax;
  for (const DagTaskBooking& t : it->second.tasks) {
    if (t.booking < 0) continue;  // already ended
    timeline_.ReleaseHeld(t.booking);
    group_bookings_.erase(t.booking);
    freed_from = std::min(freed_from, t.allocation.start);
  }
  if (tracker_.on && it->first < tracker_.first_new_dag) tracker_.removed_dags.push_back(it->first);
  dags_.erase(it);
  if (freed_from == kTimeMax) return absl::OkStatus();  // it had completed: nothing was freed
  Reoptimize(std::max(now_, freed_from));
  ProcessInstant();
  return absl::OkStatus();
}

absl::StatusOr<const DagReservation*> ClusterPlan::ReportDagTask(const std::string& id,
                                                                 const std::string& task,
                                                                 DagTaskEvent event, Time t) {
  const AccountOnReturn account(*this);
  const std::optional<std::int64_t> n = ParseDagId(id);
  auto it = n ? dags_.find(*n) : dags_.end();
  if (it == dags_.end()) {
    return absl::NotFoundError(absl::StrCat("DAG reservation '", id, "' not found"));
  }
  DagReservation& dag = it->second;
  auto found = std::find_if(dag.tasks.begin(), dag.tasks.end(),
                            [&](const DagTaskBooking& b) { return b.task == task; });
  if (found == dag.tasks.end()) {
    return absl::NotFoundError(absl::StrCat("DAG reservation '", id, "' has no task '", task, "'"));
  }
  DagTaskBooking& booked = *found;
  if (booked.state != DagTaskState::kReserved && booked.state != DagTaskState::kRunning) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "task '%s' of %s is %s; only a RESERVED or RUNNING task can start, finish or fail", task,
        id, DagTaskStateName(booked.state)));
  }
  if (t > now_) {
    return absl::InvalidArgumentError(
        absl::StrFormat("time must not be after the cluster's now %s, got %s", FormatInstant(now_),
                        FormatInstant(t)));
  }
  if (event == DagTaskEvent::kStarted) {
    // Before its reserved start the task would take capacity promised to others.
    if (t < booked.allocation.start) {
      return absl::FailedPreconditionError(
          absl::StrFormat("task '%s' of %s is reserved from %s; a start reported at %s is refused",
                          task, id, FormatInstant(booked.allocation.start), FormatInstant(t)));
    }
    booked.state = DagTaskState::kRunning;
    booked.started = t;
    if (tracker_.on) tracker_.dags.push_back(*n);
    return &dag;
  }
  const Time earliest = booked.started.value_or(booked.allocation.start);
  if (t < earliest) {
    return absl::InvalidArgumentError(
        absl::StrFormat("time must be in [task start %s, cluster now %s], got %s",
                        FormatInstant(earliest), FormatInstant(now_), FormatInstant(t)));
  }
  Time freed_from = kTimeMax;
  auto give_back = [&](DagTaskBooking& b, Time from) {
    if (b.booking >= 0) {
      timeline_.ReleaseHeld(b.booking);
      group_bookings_.erase(b.booking);
      b.booking = -1;
      freed_from = std::min(freed_from, std::max(from, b.allocation.start));
    }
    if (from < b.allocation.end) b.released_at = from;
  };
  booked.state = event == DagTaskEvent::kFailed ? DagTaskState::kFailed : DagTaskState::kFinished;
  booked.ended = t;
  give_back(booked, t);
  if (event == DagTaskEvent::kFailed) {
    for (const int d : Descendants(dag, static_cast<int>(found - dag.tasks.begin()))) {
      DagTaskBooking& descendant = dag.tasks[d];
      if (descendant.state != DagTaskState::kReserved) continue;
      descendant.state = DagTaskState::kReleased;
      give_back(descendant, now_);
    }
  }
  if (tracker_.on) tracker_.dags.push_back(*n);
  if (freed_from != kTimeMax) {
    Reoptimize(std::max(now_, freed_from));
    ProcessInstant();
  }
  return &dag;
}

void ClusterPlan::ExpireDags() {
  if (now_ < next_dag_expiry_) return;  // nothing has ended since the last pass
  next_dag_expiry_ = kTimeMax;
  int completed = 0;
  for (auto& [n, d] : dags_) {
    for (DagTaskBooking& t : d.tasks) {
      if (t.booking < 0) continue;
      if (t.allocation.end <= now_) {
        timeline_.ReleaseHeld(t.booking);
        group_bookings_.erase(t.booking);
        t.booking = -1;
        if (tracker_.on) tracker_.dags.push_back(n);
      } else {
        next_dag_expiry_ = std::min(next_dag_expiry_, t.allocation.end);
      }
    }
    if (d.completion <= now_) ++completed;
  }
  for (auto it = dags_.begin(); it != dags_.end() && completed > limits_.max_retained_dags;) {
    if (it->second.completion <= now_) {
      if (tracker_.on && it->first < tracker_.first_new_dag) {
        tracker_.removed_dags.push_back(it->first);
      }
      it = dags_.erase(it);
      --completed;
    } else {
      ++it;
    }
  }
}

absl::Status ClusterPlan::CheckTaskGroups(const Dag& dag, const DagPlan& plan) const {
  const int groups = spec_.homogeneous() ? 0 : static_cast<int>(spec_.groups.size());
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const TaskReservation& t = plan.tasks[i];
    if (groups == 0 && t.group != -1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "placements[%d].group: task '%s' names group %d, but the processors of cluster '%s' "
          "all have one speed",
          i, dag.tasks[i].name, t.group, spec_.name));
    }
    if (groups > 0 && (t.group < 0 || t.group >= groups || t.k > spec_.groups[t.group].count)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "placements[%d].group: task '%s' must run in one of the %d processor groups of "
          "cluster '%s' that holds its %d processors; got group %d",
          i, dag.tasks[i].name, groups, spec_.name, t.k, t.group));
    }
  }
  return absl::OkStatus();
}

const DagReservation* ClusterPlan::FindDag(const std::string& id) const {
  const std::optional<std::int64_t> n = ParseDagId(id);
  auto it = n ? dags_.find(*n) : dags_.end();
  return it == dags_.end() ? nullptr : &it->second;
}

std::vector<const DagReservation*> ClusterPlan::Dags() const {
  std::vector<const DagReservation*> out;
  for (const auto& [n, d] : dags_) out.push_back(&d);
  return out;
}

int ClusterPlan::HistoricalAvailable(Duration window) const {
  const int p = capacity();
  Time from = std::max(created_, now_ - window);
  Time to = now_;
  if (from >= to) {  // no past yet: what is booked ahead is the best guess
    from = now_;
    to = now_ + window;
  }
  double used = 0;  // processor-microseconds inside [from, to)
  auto add = [&](Time start, Time end, int k) {
    const Time s = std::max(start, from);
    const Time e = std::min(end, to);
    if (s < e) used += static_cast<double>(k) * static_cast<double>(e - s);
  };
  for (const auto& [seq, job] : jobs_) {
    if (job->allocation.k > 0) add(job->allocation.start, job->allocation.end, job->allocation.k);
  }
  for (const auto& [n, r] : reservations_) add(r.start, r.end, r.k);
  for (const Allocation& h : past_holds_) add(h.start, h.end, h.k);
  for (const auto& [n, d] : dags_) {
    for (const DagTaskBooking& t : d.tasks) {
      const Allocation held = t.Held();  // what it used, not what it was planned to
      add(held.start, held.end, held.k);
    }
  }
  const double available = p - used / static_cast<double>(to - from);
  return std::clamp(static_cast<int>(std::lround(available)), 1, p);
}

}  // namespace resched
