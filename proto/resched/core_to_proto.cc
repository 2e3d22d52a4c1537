#include "proto/resched/core_to_proto.h"

#include <variant>

namespace resched::api {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

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

}  // namespace resched::api
