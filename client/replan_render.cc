#include "client/replan_render.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/table.h"

namespace resched::cli {
namespace {

using resched::v1::ReplanResponse;

std::string Arrow(const std::string& before, const std::string& after) {
  return before == after ? after : absl::StrCat(before, " -> ", after);
}

}  // namespace

std::string RenderReplanFigures(const ReplanResponse& response, TimeStyle style) {
  std::string out = absl::StrCat(response.outcome(), "\n");
  Table t({"", ">JOBS", "MAKESPAN", ">WEIGHTED COMPLETION", ">MEAN STRETCH", ">MAX STRETCH"});
  for (const auto& [label, f] :
       {std::pair{"before", &response.before()}, std::pair{"after", &response.after()}}) {
    t.AddRow({label, absl::StrCat(f->jobs()), FormatTime(f->has_makespan(), f->makespan(), style),
              absl::StrFormat("%.6g", f->weighted_completion()),
              absl::StrFormat("%.3f", f->mean_stretch()),
              absl::StrFormat("%.3f", f->max_stretch())});
  }
  if (response.has_makespan_lower_bound() || response.has_weighted_completion_lower_bound()) {
    t.AddRow(
        {"lower bound", "",
         FormatTime(response.has_makespan_lower_bound(), response.makespan_lower_bound(), style),
         response.has_weighted_completion_lower_bound()
             ? absl::StrFormat("%.6g", response.weighted_completion_lower_bound())
             : "-",
         "-", "-"});
  }
  absl::StrAppend(&out, t.Render());
  absl::StrAppend(&out, absl::StrFormat("planner time: %s, %d plan(s) made\n",
                                        FormatDuration(ToMicros(response.planner_time())),
                                        response.attempts()));
  return out;
}

std::string RenderJobMoves(const ReplanResponse& response, TimeStyle style) {
  Table t({"JOB", ">K", "START", "END"});
  for (const resched::v1::JobMove& move : response.moves()) {
    const resched::v1::Allocation& b = move.before();
    const resched::v1::Allocation& a = move.after();
    t.AddRow(
        {move.job_id(), Arrow(absl::StrCat(b.processors()), absl::StrCat(a.processors())),
         Arrow(FormatTime(b.has_start(), b.start(), style),
               FormatTime(a.has_start(), a.start(), style)),
         Arrow(FormatTime(b.has_end(), b.end(), style), FormatTime(a.has_end(), a.end(), style))});
  }
  return absl::StrCat("moved ", response.moves_size(), " job(s):\n", t.Render());
}

void PutPlannedAllocations(const ReplanResponse& response, resched::v1::Schedule& schedule) {
  std::map<std::string, const resched::v1::Allocation*> planned;
  for (const resched::v1::JobMove& move : response.moves()) planned[move.job_id()] = &move.after();
  for (resched::v1::Job& job : *schedule.mutable_jobs()) {
    auto it = planned.find(job.id());
    if (it == planned.end()) continue;
    *job.mutable_allocation() = *it->second;
    // The window reaches the plan's last end.
    if (ToMicros(it->second->end()) > ToMicros(schedule.to())) {
      *schedule.mutable_to() = it->second->end();
    }
  }
}

}  // namespace resched::cli
