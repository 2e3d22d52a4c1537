#include "client/dag_import.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/durations.h"
#include "core/workload/dax.h"
#include "core/workload/wfcommons.h"
#include "proto/resched/yaml_json.h"

namespace resched::cli {
namespace {

namespace pb = resched::v1;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

absl::StatusOr<DagFormat> ParseDagFormat(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  if (lower == "dag") return DagFormat::kDag;
  if (lower == "wfcommons") return DagFormat::kWfCommons;
  if (lower == "dax") return DagFormat::kDax;
  return absl::InvalidArgumentError(
      absl::StrCat("--format ", name, ": expected dag, wfcommons or dax"));
}

absl::string_view DagFormatName(DagFormat format) {
  switch (format) {
    case DagFormat::kDag:
      return "dag";
    case DagFormat::kWfCommons:
      return "wfcommons";
    case DagFormat::kDax:
      return "dax";
    case DagFormat::kAuto:
      break;
  }
  return "auto";
}

DagFormat DetectDagFormat(absl::string_view path, absl::string_view text) {
  std::string lower_path = absl::AsciiStrToLower(path);
  if (absl::EndsWith(lower_path, ".xml") || absl::EndsWith(lower_path, ".dax")) {
    return DagFormat::kDax;
  }
  absl::string_view body = absl::StripLeadingAsciiWhitespace(text);
  if (absl::StartsWith(body, "<")) return DagFormat::kDax;
  if (absl::StartsWith(body, "{")) {
    // A parse that fails is left to the Dag parser, whose errors say where.
    nlohmann::json doc = nlohmann::json::parse(body.begin(), body.end(), nullptr,
                                               /*allow_exceptions=*/false);
    if (doc.is_object()) {
      auto it = doc.find("workflow");
      if (it != doc.end() && it->is_object()) return DagFormat::kWfCommons;
    }
  }
  return DagFormat::kDag;
}

pb::RuntimeModel ModelToProto(const resched::RuntimeModel& model) {
  pb::RuntimeModel out;
  std::visit(Overloaded{
                 [&](const resched::TableModel& m) {
                   auto* table = out.mutable_table();
                   for (const auto& e : m.entries) {
                     auto* entry = table->add_entries();
                     entry->set_k(e.k);
                     *entry->mutable_time() = ToProtoDuration(e.time);
                   }
                 },
                 [&](const resched::AmdahlModel& m) {
                   auto* a = out.mutable_amdahl();
                   *a->mutable_t1() = ToProtoDuration(m.t1);
                   a->set_alpha(m.alpha);
                   a->set_k_min(m.k_min);
                   a->set_k_max(m.k_max);
                 },
                 [&](const resched::DowneyModel& m) {
                   auto* d = out.mutable_downey();
                   *d->mutable_t1() = ToProtoDuration(m.t1);
                   d->set_a(m.a);
                   d->set_sigma(m.sigma);
                   d->set_k_min(m.k_min);
                   d->set_k_max(m.k_max);
                 },
                 [&](const resched::RigidModel& m) {
                   out.mutable_rigid()->set_k(m.k);
                   *out.mutable_rigid()->mutable_time() = ToProtoDuration(m.time);
                 },
                 [&](const resched::PowerOfTwoModel& m) {
                   auto* p = out.mutable_power_of_two();
                   for (resched::Duration t : m.times) *p->add_times() = ToProtoDuration(t);
                 },
                 [&](const resched::CeilModel& m) {
                   out.mutable_ceil()->set_req_procs(m.req_procs);
                   *out.mutable_ceil()->mutable_req_time() = ToProtoDuration(m.req_time);
                 },
                 [&](const resched::CommunicationModel& m) {
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

pb::Dag DagToProto(const resched::Dag& dag) {
  pb::Dag out;
  for (const resched::Task& t : dag.tasks) {
    pb::DagTask* task = out.add_tasks();
    task->set_name(t.name);
    *task->mutable_model() = ModelToProto(t.model);
  }
  const int n = static_cast<int>(dag.tasks.size());
  for (const resched::Edge& e : dag.edges) {
    pb::DagEdge* edge = out.add_edges();
    // The importers only emit valid indices; an invalid one keeps an empty name, which the
    // server rejects naming the edge, rather than crashing here.
    if (e.from >= 0 && e.from < n) edge->set_from(dag.tasks[e.from].name);
    if (e.to >= 0 && e.to < n) edge->set_to(dag.tasks[e.to].name);
    if (e.transfer != 0) *edge->mutable_transfer() = ToProtoDuration(e.transfer);
  }
  return out;
}

absl::StatusOr<pb::Dag> ParseDagText(absl::string_view path, absl::string_view text,
                                     DagFormat format,
                                     const resched::WorkflowImportOptions& options) {
  if (format == DagFormat::kAuto) format = DetectDagFormat(path, text);
  if (format == DagFormat::kDag) {
    pb::Dag dag;
    absl::Status st =
        resched::api::ParseJsonOrYaml(std::string_view(text.data(), text.size()), &dag);
    if (!st.ok()) return st;
    return dag;
  }
  std::istringstream in{std::string(text)};
  const bool wfcommons = format == DagFormat::kWfCommons;
  absl::StatusOr<resched::Dag> dag =
      wfcommons ? resched::ReadWfCommons(in, options) : resched::ReadDax(in, options);
  if (!dag.ok()) {
    return absl::Status(dag.status().code(),
                        absl::StrCat(wfcommons ? "as a WfCommons workflow: " : "as a DAX file: ",
                                     dag.status().message()));
  }
  return DagToProto(*dag);
}

}  // namespace resched::cli
