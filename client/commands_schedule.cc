// schedule show, clock advance
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/commands.h"
#include "client/dag_render.h"
#include "client/gantt.h"
#include "client/render.h"

namespace resched::cli {
namespace {

using Stub = resched::v1::Resched::StubInterface;

constexpr absl::string_view kShowUsage =
    R"(usage: resched schedule show [--cluster NAME] [--from TIME] [--to TIME] [--width COLS] [--all]
Shows the allocations, reservations and DAG task reservations in a window, then a Gantt
chart.
  --from TIME    start of the window (default: the cluster's now)
  --to TIME      end of the window (default: the end of the last allocation)
  --width COLS   width of the chart (default 80)
  --all          also the jobs that finished inside the window
)";
constexpr absl::string_view kAdvanceUsage =
    R"(usage: resched clock advance (--by DUR | --to TIME) [--cluster NAME] [--request-id ID]
Moves a simulated cluster's clock forward, starting and finishing jobs as it passes.
)";

int Show(Context& ctx, const ParsedArgs& args) {
  resched::v1::GetScheduleRequest request;
  request.set_cluster(ClusterFlag(args));
  if (auto t = args.Get("from")) {
    *request.mutable_from() = ToProtoTimestamp(ctx.ParseTimeFlag(request.cluster(), "from", *t));
  }
  if (auto t = args.Get("to")) {
    *request.mutable_to() = ToProtoTimestamp(ctx.ParseTimeFlag(request.cluster(), "to", *t));
  }
  GanttOptions options;
  if (auto w = args.Get("width")) {
    options.width = IntFlag("width", *w);
    if (options.width < 30 || options.width > 10000)
      throw UsageError("--width: between 30 and 10000");
  }
  request.set_include_finished(args.Has("all"));
  resched::v1::Schedule schedule = ctx.Call(&Stub::GetSchedule, request);
  if (ctx.json) {
    ctx.PrintJson(schedule);
    return 0;
  }
  options.style = ctx.StyleOf(request.cluster());
  if (schedule.jobs_size() > 0) {
    ctx.out << RenderJobTable(Pointers(schedule.jobs()), options.style, true, GroupNames(schedule))
            << "\n";
  }
  if (schedule.reservations_size() > 0) {
    ctx.out << RenderReservationTable(Pointers(schedule.reservations()), options.style,
                                      GroupNames(schedule))
            << "\n";
  }
  if (schedule.dag_tasks_size() > 0) {
    ctx.out << RenderDagTaskTable(Pointers(schedule.dag_tasks()), options.style,
                                  GroupNames(schedule))
            << "\n";
  }
  ctx.out << RenderGantt(schedule, options);
  return 0;
}

int Advance(Context& ctx, const ParsedArgs& args) {
  resched::v1::AdvanceClockRequest request;
  request.set_cluster(ClusterFlag(args));
  if (args.Has("by") == args.Has("to")) throw UsageError("give either --by or --to");
  if (auto by = args.Get("by")) {
    *request.mutable_by() = ToProtoDuration(Context::ParseDurationFlag("by", *by));
  } else {
    *request.mutable_to() =
        ToProtoTimestamp(ctx.ParseTimeFlag(request.cluster(), "to", *args.Get("to")));
  }
  request.set_request_id(args.GetOr("request-id", ""));
  resched::v1::AdvanceClockResponse response = ctx.Call(&Stub::AdvanceClock, request);
  if (ctx.json) {
    ctx.PrintJson(response);
    return 0;
  }
  TimeStyle style = ctx.StyleOf(request.cluster());
  ctx.out << "now " << FormatTime(response.has_now(), response.now(), style) << "\n";
  if (response.started_size() > 0) {
    ctx.out << "\nstarted " << response.started_size() << " job(s):\n"
            << RenderJobTable(Pointers(response.started()), style);
  }
  if (response.finished_size() > 0) {
    ctx.out << "\nfinished " << response.finished_size() << " job(s):\n"
            << RenderJobTable(Pointers(response.finished()), style);
  }
  return 0;
}

}  // namespace

void AddScheduleCommands(std::vector<Command>& commands) {
  commands.push_back({"schedule",
                      "show",
                      kShowUsage,
                      {{"cluster"}, {"from"}, {"to"}, {"width"}, {"all", 0, false}},
                      0,
                      0,
                      Show});
  commands.push_back({"clock",
                      "advance",
                      kAdvanceUsage,
                      {{"cluster"}, {"by"}, {"to"}, {"request-id"}},
                      0,
                      0,
                      Advance});
}

}  // namespace resched::cli
