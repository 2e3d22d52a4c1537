#include "client/render.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/models.h"
#include "client/ranges.h"
#include "client/table.h"

namespace resched::cli {

using resched::v1::Cluster;
using resched::v1::Job;
using resched::v1::Reservation;

TimeStyle StyleOf(const Cluster& cluster) {
  return cluster.spec().clock() == resched::v1::SIMULATED ? TimeStyle::kSimulated
                                                          : TimeStyle::kWall;
}

std::string ClockName(resched::v1::ClockKind clock) {
  return clock == resched::v1::SIMULATED ? "simulated" : "wall";
}

std::string DescribeAlgorithm(const resched::v1::AlgorithmSpec& algorithm) {
  std::string out = algorithm.name().empty() ? "(default)" : algorithm.name();
  std::map<std::string, double> sorted(algorithm.params().begin(), algorithm.params().end());
  for (const auto& [k, v] : sorted) absl::StrAppend(&out, " ", k, "=", v);
  return out;
}

namespace {

std::string Percent(double fraction) { return absl::StrFormat("%.1f%%", fraction * 100); }

std::string Groups(const resched::v1::ClusterSpec& spec) {
  std::vector<std::string> groups;
  for (const auto& g : spec.groups()) {
    groups.push_back(absl::StrCat(g.name().empty() ? "-" : g.name(), ":", g.count(), ":",
                                  g.speed() == 0 ? 1.0 : g.speed()));
  }
  return absl::StrJoin(groups, " ");
}

}  // namespace

std::string RenderClusterTable(const std::vector<const Cluster*>& clusters) {
  Table t(
      {"NAME", ">P", "CLOCK", "POLICY", "NOW", ">QUEUED", ">RUNNING", ">RESERVATIONS", ">UTIL"});
  for (const Cluster* c : clusters) {
    t.AddRow({c->spec().name(), absl::StrCat(c->capacity()), ClockName(c->spec().clock()),
              DescribeAlgorithm(c->spec().policy()),
              FormatTime(c->has_now(), c->now(), StyleOf(*c)), absl::StrCat(c->queued_jobs()),
              absl::StrCat(c->running_jobs()), absl::StrCat(c->reservations()),
              Percent(c->utilization())});
  }
  return t.Render();
}

std::string RenderClusterDetails(const Cluster& c) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"name", c.spec().name()}, {"processors", absl::StrCat(c.capacity())}};
  if (c.spec().groups_size() > 0) kv.emplace_back("groups", Groups(c.spec()));
  kv.insert(kv.end(), {{"clock", ClockName(c.spec().clock())},
                       {"policy", DescribeAlgorithm(c.spec().policy())}});
  if (c.spec().has_replan_every()) {
    kv.emplace_back(
        "replan",
        absl::StrCat(
            "every ", FormatDuration(ToMicros(c.spec().replan_every())), " with ",
            DescribeAlgorithm(c.spec().replan_algorithm()), " for ",
            absl::AsciiStrToLower(resched::v1::ReplanObjective_Name(c.spec().replan_objective()))));
  }
  kv.insert(kv.end(), {{"now", FormatTime(c.has_now(), c.now(), StyleOf(c))},
                       {"queued jobs", absl::StrCat(c.queued_jobs())},
                       {"running jobs", absl::StrCat(c.running_jobs())},
                       {"reservations", absl::StrCat(c.reservations())},
                       {"utilization", Percent(c.utilization())}});
  return RenderKeyValues(kv);
}

std::vector<std::string> GroupNames(const resched::v1::Schedule& schedule) {
  std::vector<std::string> names;
  for (int i = 0; i < schedule.groups_size(); ++i) {
    const std::string& name = schedule.groups(i).name();
    names.push_back(name.empty() ? absl::StrCat("#", i) : name);
  }
  return names;
}

std::string GroupLabel(bool has_group, int group, const std::vector<std::string>& group_names) {
  if (!has_group) return "-";
  if (group >= 0 && group < static_cast<int>(group_names.size())) return group_names[group];
  return absl::StrCat("#", group);
}

std::string RenderJobTable(const std::vector<const Job*>& jobs, TimeStyle style,
                           bool with_processors, const std::vector<std::string>& group_names) {
  const bool with_groups =
      std::any_of(jobs.begin(), jobs.end(), [](const Job* j) { return j->has_group(); });
  std::vector<std::string> headers = {"ID", "NAME", "STATE"};
  if (with_groups) headers.emplace_back("GROUP");
  headers.insert(headers.end(), {">K", "START", "END"});
  if (with_processors) headers.emplace_back("PROCESSORS");
  Table t(headers);
  for (const Job* j : jobs) {
    const auto& a = j->allocation();
    std::vector<std::string> row = {j->id().empty() ? "-" : j->id(), j->spec().name(),
                                    resched::v1::JobState_Name(j->state())};
    if (with_groups) row.push_back(GroupLabel(j->has_group(), j->group(), group_names));
    row.insert(row.end(),
               {absl::StrCat(a.processors()), FormatTime(a.has_start(), a.start(), style),
                FormatTime(a.has_end(), a.end(), style)});
    if (with_processors) {
      row.push_back(CompressRanges({a.processor_ids().begin(), a.processor_ids().end()}));
    }
    t.AddRow(std::move(row));
  }
  return t.Render();
}

std::string RenderJobDetails(const Job& j, TimeStyle style) {
  const auto& s = j.spec();
  const auto& a = j.allocation();
  std::vector<std::pair<std::string, std::string>> kv = {
      {"id", j.id()},
      {"cluster", j.cluster()},
      {"name", s.name()},
      {"owner", s.owner()},
      {"state", resched::v1::JobState_Name(j.state())},
      {"model", DescribeModel(s.model())},
      {"weight", absl::StrCat(s.weight() == 0 ? 1.0 : s.weight())},
      {"release", FormatTime(s.has_release(), s.release(), style)},
      {"deadline", FormatTime(s.has_deadline(), s.deadline(), style)},
      {"processors", absl::StrCat(a.processors())},
      {"start", FormatTime(a.has_start(), a.start(), style)},
      {"end", FormatTime(a.has_end(), a.end(), style)},
      {"guaranteed", j.guaranteed() ? "yes" : "no (an estimate)"},
      {"submitted", FormatTime(j.has_submitted(), j.submitted(), style)},
      {"sequential time",
       j.has_sequential_time() ? FormatDuration(ToMicros(j.sequential_time())) : "-"}};
  if (j.has_group()) {  // a cluster of several speeds: the times are at the group's speed
    kv.insert(kv.begin() + 5, {"group", absl::StrCat("#", j.group(), " of the cluster's groups")});
  }
  if (a.processor_ids_size() > 0) {
    kv.emplace_back("processor ids",
                    CompressRanges({a.processor_ids().begin(), a.processor_ids().end()}));
  }
  return RenderKeyValues(kv);
}

std::string RenderReservationTable(const std::vector<const Reservation*>& reservations,
                                   TimeStyle style, const std::vector<std::string>& group_names) {
  const bool with_groups = std::any_of(reservations.begin(), reservations.end(),
                                       [](const Reservation* r) { return r->has_group(); });
  std::vector<std::string> headers = {"ID"};
  if (with_groups) headers.emplace_back("GROUP");
  headers.insert(headers.end(), {">K", "START", "END", "REASON"});
  Table t(headers);
  for (const Reservation* r : reservations) {
    std::vector<std::string> row = {r->id()};
    if (with_groups) {
      row.push_back(r->has_group() ? GroupLabel(true, r->group(), group_names) : "any");
    }
    row.insert(row.end(),
               {absl::StrCat(r->processors()), FormatTime(r->has_start(), r->start(), style),
                FormatTime(r->has_end(), r->end(), style), r->reason()});
    t.AddRow(std::move(row));
  }
  return t.Render();
}

}  // namespace resched::cli
