#include "proto/resched/to_proto.h"

#include <variant>

namespace resched {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

google::protobuf::Timestamp ToTimestamp(Time t) {
  google::protobuf::Timestamp ts;
  std::int64_t seconds = t / kMicrosPerSecond;
  std::int64_t micros = t % kMicrosPerSecond;
  if (micros < 0) {
    micros += kMicrosPerSecond;
    --seconds;
  }
  ts.set_seconds(seconds);
  ts.set_nanos(static_cast<int>(micros * 1000));
  return ts;
}

pb::ReplanObjective ToProto(ReplanObjective objective) {
  switch (objective) {
    case ReplanObjective::kMakespan:
      return pb::MAKESPAN;
    case ReplanObjective::kWeightedCompletion:
      return pb::WEIGHTED_COMPLETION;
    case ReplanObjective::kMaxStretch:
      return pb::MAX_STRETCH;
    case ReplanObjective::kBicriteria:
      return pb::BICRITERIA;
  }
  return pb::REPLAN_OBJECTIVE_UNSPECIFIED;
}

pb::ProcessorGroup ToProto(const ProcessorGroup& group) {
  pb::ProcessorGroup out;
  out.set_name(group.name);
  out.set_count(group.count);
  out.set_speed(group.speed);
  return out;
}

pb::ClusterSpec ToProto(const ClusterSpec& spec, const AlgorithmParams& params) {
  pb::ClusterSpec out;
  out.set_name(spec.name);
  if (spec.groups.size() == 1 && spec.groups[0].name.empty() && spec.groups[0].speed == 1.0) {
    out.set_processors(spec.groups[0].count);
  } else {
    for (const auto& g : spec.groups) *out.add_groups() = ToProto(g);
  }
  out.set_clock(spec.clock == ClockKind::kSimulated ? pb::SIMULATED : pb::WALL);
  out.mutable_policy()->set_name(spec.policy);
  for (const auto& [key, value] : params) (*out.mutable_policy()->mutable_params())[key] = value;
  if (spec.replan.every > 0) {
    *out.mutable_replan_every() = ToDurationProto(spec.replan.every);
    out.mutable_replan_algorithm()->set_name(spec.replan.algorithm);
    for (const auto& [key, value] : spec.replan.params) {
      (*out.mutable_replan_algorithm()->mutable_params())[key] = value;
    }
    out.set_replan_objective(ToProto(spec.replan.objective));
  }
  return out;
}

pb::JobSpec ToProto(const Job& job) {
  pb::JobSpec out;
  out.set_name(job.name);
  out.set_owner(job.owner);
  *out.mutable_release() = ToTimestamp(job.release);
  out.set_weight(job.weight);
  *out.mutable_model() = ToProto(job.model);
  if (job.deadline) *out.mutable_deadline() = ToTimestamp(*job.deadline);
  return out;
}

pb::JobState ToProto(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return pb::QUEUED;
    case JobState::kRunning:
      return pb::RUNNING;
    case JobState::kFinished:
      return pb::FINISHED;
    case JobState::kFailed:
      return pb::FAILED;
    case JobState::kCancelled:
      return pb::CANCELLED;
  }
  return pb::JOB_STATE_UNSPECIFIED;
}

pb::Job ToProto(const JobRecord& record, const std::string& cluster) {
  pb::Job out;
  out.set_id(record.job.id);
  out.set_cluster(cluster);
  *out.mutable_spec() = ToProto(record.job);
  out.set_state(ToProto(record.state));
  out.set_guaranteed(record.guaranteed);
  *out.mutable_submitted() = ToTimestamp(record.submitted);
  *out.mutable_sequential_time() = ToDurationProto(record.job.model.SequentialTime());
  if (record.allocation.k > 0) *out.mutable_allocation() = ToProto(record.allocation);
  if (record.group >= 0) out.set_group(record.group);
  return out;
}

pb::Reservation ToProto(const ExternalReservation& r, const std::string& cluster) {
  pb::Reservation out;
  out.set_id(r.id);
  out.set_cluster(cluster);
  out.set_processors(r.k);
  *out.mutable_start() = ToTimestamp(r.start);
  *out.mutable_end() = ToTimestamp(r.end);
  out.set_reason(r.reason);
  if (r.group >= 0) out.set_group(r.group);
  return out;
}

pb::Allocation ToProto(const Allocation& a) {
  pb::Allocation out;
  out.set_processors(a.k);
  *out.mutable_start() = ToTimestamp(a.start);
  *out.mutable_end() = ToTimestamp(a.end);
  return out;
}

pb::TaskPlacement ToProto(const std::string& task, const Allocation& a, int group) {
  pb::TaskPlacement p;
  p.set_task(task);
  *p.mutable_allocation() = ToProto(a);
  if (group >= 0) p.set_group(group);
  return p;
}

pb::DagReservation ToProto(const DagReservation& d, const std::string& cluster) {
  pb::DagReservation out;
  out.set_id(d.id);
  out.set_cluster(cluster);
  out.set_algorithm(d.algorithm);
  out.set_label(d.label);
  out.set_owner(d.owner);
  *out.mutable_release() = ToTimestamp(d.release);
  for (const DagTaskBooking& t : d.tasks) {
    pb::TaskPlacement* placement = out.add_placements();
    *placement = ToProto(t.task, t.allocation, t.group);
    placement->set_state(static_cast<pb::DagTaskState>(t.state));
    if (t.started) *placement->mutable_started() = ToTimestamp(*t.started);
    if (t.ended) *placement->mutable_ended() = ToTimestamp(*t.ended);
  }
  for (const Edge& e : d.edges) {
    pb::DagEdge* edge = out.add_edges();
    edge->set_from(d.tasks[e.from].task);
    edge->set_to(d.tasks[e.to].task);
    if (e.transfer > 0) *edge->mutable_transfer() = ToDurationProto(e.transfer);
  }
  *out.mutable_completion() = ToTimestamp(d.completion);
  out.set_cpu_hours(d.cpu_hours);
  return out;
}

google::protobuf::Duration ToDurationProto(Duration micros) {
  google::protobuf::Duration out;
  out.set_seconds(micros / kMicrosPerSecond);
  out.set_nanos(static_cast<int>((micros % kMicrosPerSecond) * 1000));
  return out;
}

pb::RuntimeModel ToProto(const RuntimeModel& model) {
  pb::RuntimeModel out;
  std::visit(Overloaded{
                 [&](const TableModel& m) {
                   for (const auto& e : m.entries) {
                     auto* entry = out.mutable_table()->add_entries();
                     entry->set_k(e.k);
                     *entry->mutable_time() = ToDurationProto(e.time);
                   }
                 },
                 [&](const AmdahlModel& m) {
                   auto* a = out.mutable_amdahl();
                   *a->mutable_t1() = ToDurationProto(m.t1);
                   a->set_alpha(m.alpha);
                   a->set_k_min(m.k_min);
                   a->set_k_max(m.k_max);
                 },
                 [&](const DowneyModel& m) {
                   auto* d = out.mutable_downey();
                   *d->mutable_t1() = ToDurationProto(m.t1);
                   d->set_a(m.a);
                   d->set_sigma(m.sigma);
                   d->set_k_min(m.k_min);
                   d->set_k_max(m.k_max);
                 },
                 [&](const RigidModel& m) {
                   out.mutable_rigid()->set_k(m.k);
                   *out.mutable_rigid()->mutable_time() = ToDurationProto(m.time);
                 },
                 [&](const PowerOfTwoModel& m) {
                   for (Duration t : m.times) {
                     *out.mutable_power_of_two()->add_times() = ToDurationProto(t);
                   }
                 },
                 [&](const CeilModel& m) {
                   out.mutable_ceil()->set_req_procs(m.req_procs);
                   *out.mutable_ceil()->mutable_req_time() = ToDurationProto(m.req_time);
                 },
                 [&](const CommunicationModel& m) {
                   auto* c = out.mutable_communication();
                   c->set_flops(m.flops);
                   c->set_matrix_size(m.matrix_size);
                   c->set_latency_seconds(m.latency_s);
                   c->set_bandwidth(m.bandwidth);
                   c->set_processor_speed(m.processor_speed);
                   c->set_k_min(m.k_min);
                   c->set_k_max(m.k_max);
                 },
             },
             model.params());
  return out;
}

pb::Dag ToProto(const Dag& dag) {
  pb::Dag out;
  for (const Task& t : dag.tasks) {
    pb::DagTask* task = out.add_tasks();
    task->set_name(t.name);
    *task->mutable_model() = ToProto(t.model);
  }
  const int n = static_cast<int>(dag.tasks.size());
  for (const Edge& e : dag.edges) {
    pb::DagEdge* edge = out.add_edges();
    if (e.from >= 0 && e.from < n) edge->set_from(dag.tasks[e.from].name);
    if (e.to >= 0 && e.to < n) edge->set_to(dag.tasks[e.to].name);
    if (e.transfer != 0) *edge->mutable_transfer() = ToDurationProto(e.transfer);
  }
  return out;
}

}  // namespace resched
