#include "client/dag_render.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "client/ranges.h"
#include "client/render.h"
#include "client/table.h"

namespace resched::cli {

namespace pb = resched::v1;

pb::Schedule PlanSchedule(const std::string& cluster, int32_t capacity, const std::string& dag_id,
                          const Placements& placements) {
  pb::Schedule s;
  s.set_cluster(cluster);
  s.set_capacity(capacity);
  int64_t from = std::numeric_limits<int64_t>::max(), to = std::numeric_limits<int64_t>::min();
  for (const pb::TaskPlacement& p : placements) {
    pb::DagTaskSlot* slot = s.add_dag_tasks();
    slot->set_dag_id(dag_id);
    slot->set_task(p.task());
    *slot->mutable_allocation() = p.allocation();
    from = std::min(from, ToMicros(p.allocation().start()));
    to = std::max(to, ToMicros(p.allocation().end()));
  }
  if (placements.empty()) from = to = 0;
  *s.mutable_now() = ToProtoTimestamp(from);
  *s.mutable_from() = ToProtoTimestamp(from);
  *s.mutable_to() = ToProtoTimestamp(to);
  return s;
}

std::string RenderPlacementTable(const Placements& placements, TimeStyle style) {
  const bool with_groups = std::any_of(placements.begin(), placements.end(),
                                       [](const pb::TaskPlacement& p) { return p.has_group(); });
  std::vector<std::string> headers = {"", "TASK"};
  if (with_groups) headers.emplace_back("GROUP");
  headers.insert(headers.end(), {">K", "START", "END", ">DURATION"});
  Table t(headers);
  for (int i = 0; i < placements.size(); ++i) {
    const pb::TaskPlacement& p = placements[i];
    const pb::Allocation& a = p.allocation();
    std::vector<std::string> row = {std::string(1, JobChar(static_cast<size_t>(i))), p.task()};
    if (with_groups) row.push_back(GroupLabel(p.has_group(), p.group(), {}));
    row.insert(row.end(),
               {absl::StrCat(a.processors()), FormatTime(a.has_start(), a.start(), style),
                FormatTime(a.has_end(), a.end(), style),
                FormatDuration(std::max<int64_t>(0, ToMicros(a.end()) - ToMicros(a.start())))});
    t.AddRow(row);
  }
  return t.Render();
}

std::string RenderDagPlan(const std::string& cluster, int32_t capacity, const std::string& dag_id,
                          const Placements& placements, const GanttOptions& options) {
  GanttOptions chart = options;
  chart.legend = false;
  return absl::StrCat(RenderPlacementTable(placements, options.style), "\n",
                      RenderGantt(PlanSchedule(cluster, capacity, dag_id, placements), chart));
}

std::string RenderDagList(const std::vector<const pb::DagReservation*>& dags, TimeStyle style) {
  Table t({"ID", "LABEL", "ALGORITHM", ">TASKS", "RELEASE", "COMPLETION", ">CPU-HOURS"});
  for (const pb::DagReservation* d : dags) {
    t.AddRow({d->id(), d->label().empty() ? "-" : d->label(), d->algorithm(),
              absl::StrCat(d->placements_size()), FormatTime(d->has_release(), d->release(), style),
              FormatTime(d->has_completion(), d->completion(), style),
              absl::StrFormat("%.2f", d->cpu_hours())});
  }
  return t.Render();
}

std::string RenderDagDetails(const pb::DagReservation& d, TimeStyle style) {
  return RenderKeyValues({{"id", d.id()},
                          {"cluster", d.cluster()},
                          {"label", d.label().empty() ? "-" : d.label()},
                          {"algorithm", d.algorithm()},
                          {"release", FormatTime(d.has_release(), d.release(), style)},
                          {"completion", FormatTime(d.has_completion(), d.completion(), style)},
                          {"cpu hours", absl::StrFormat("%.2f", d.cpu_hours())},
                          {"tasks", absl::StrCat(d.placements_size())},
                          {"edges", absl::StrCat(d.edges_size())}});
}

std::string RenderDagTaskStates(const pb::DagReservation& d, TimeStyle style) {
  Table t({"TASK", "STATE", "STARTED", "ENDED"});
  for (const pb::TaskPlacement& p : d.placements()) {
    if (p.state() == pb::TASK_RESERVED) continue;
    t.AddRow({p.task(), std::string(absl::StripPrefix(pb::DagTaskState_Name(p.state()), "TASK_")),
              FormatTime(p.has_started(), p.started(), style),
              FormatTime(p.has_ended(), p.ended(), style)});
  }
  return t.rows() == 0 ? "" : t.Render();
}

std::string RenderDagTaskTable(const std::vector<const pb::DagTaskSlot*>& slots, TimeStyle style,
                               const std::vector<std::string>& group_names) {
  const bool with_groups = std::any_of(slots.begin(), slots.end(),
                                       [](const pb::DagTaskSlot* s) { return s->has_group(); });
  std::vector<std::string> headers = {"DAG", "TASK"};
  if (with_groups) headers.emplace_back("GROUP");
  headers.insert(headers.end(), {">K", "START", "END", "PROCESSORS"});
  Table t(headers);
  for (const pb::DagTaskSlot* s : slots) {
    const pb::Allocation& a = s->allocation();
    std::vector<std::string> row = {s->dag_id(), s->task()};
    if (with_groups) row.push_back(GroupLabel(s->has_group(), s->group(), group_names));
    row.insert(row.end(),
               {absl::StrCat(a.processors()), FormatTime(a.has_start(), a.start(), style),
                FormatTime(a.has_end(), a.end(), style),
                CompressRanges({a.processor_ids().begin(), a.processor_ids().end()})});
    t.AddRow(row);
  }
  return t.Render();
}

}  // namespace resched::cli
